import Table from 'cli-table3';
import stringWidth from 'string-width';

import { displayText } from '@app/client/display-width';

// A column of a table. `priority`: columns are dropped lowest first when the terminal is too narrow (ties: the
// rightmost first); `flex`: the column gives up width first, its cells cut with an ellipsis (titles, reasons).
export interface Column {
  header: string;
  priority?: number;
  flex?: boolean;
  // never dropped (the row's identity)
  keep?: boolean;
}

export type ColumnSpec = string | Column;

export interface TableLayout {
  shown: number[];
  widths: number[];
  dropped: string[];
}

export const GAP = 2;
// A flexible column keeps at least this many characters (or its natural width when smaller) before columns go.
const FLEX_MIN = 24;

export const visibleWidth = (text: string): number => stringWidth(text);

// Free-text columns give up width first, whatever table they are in.
const FLEX_HEADERS =
  /^(title|reasons?|payload|description|summary|message|note|body|environment|blocked by|blockers|need|would satisfy|policy|memberships|entrypoint|file|caveat|stages|address)$/;

export function columnsOf(specs: ColumnSpec[], rows: string[][] = []): Column[] {
  // Plain headers: every column equal, so the rightmost go first; the first column (the row's identity) stays.
  // A column empty in every row goes before any other.
  return specs.map((s, i) => {
    const column = typeof s === 'string' ? { header: s } : s;
    const empty = rows.length > 0 && rows.every((r) => (r[i] ?? '') === '');
    return {
      priority: 1,
      flex: FLEX_HEADERS.test(column.header),
      ...column,
      ...(empty && !column.keep ? { priority: -1 } : {}),
      keep: column.keep ?? i === 0,
    };
  });
}

// Without a width (--wide, or a pipe): everything, untruncated.
export function layoutTable(columns: Column[], rows: string[][], width: number | null): TableLayout {
  const cellWidth = (text: string) => Math.max(...text.split('\n').map(visibleWidth));
  const natural = columns.map((c, i) => Math.max(visibleWidth(c.header), ...rows.map((r) => cellWidth(r[i] ?? ''))));
  let shown = columns.map((_, i) => i);
  if (width === null) return { shown, widths: natural, dropped: [] };

  const minimum = (i: number) =>
    columns[i].flex ? Math.min(natural[i], Math.max(FLEX_MIN, visibleWidth(columns[i].header))) : natural[i];
  const need = (set: number[]) => set.reduce((sum, i) => sum + minimum(i), 0) + GAP * Math.max(0, set.length - 1);
  const dropped: string[] = [];
  while (shown.length > 1 && need(shown) > width) {
    const candidates = shown.filter((i) => !columns[i].keep);
    if (candidates.length === 0) break;
    const victim = candidates.reduce((a, b) => ((columns[b].priority ?? 1) <= (columns[a].priority ?? 1) ? b : a));
    shown = shown.filter((i) => i !== victim);
    dropped.push(columns[victim].header);
  }

  const widths = shown.map(minimum);
  let spare = width - need(shown);
  for (let k = 0; k < shown.length && spare > 0; k++) {
    const grow = Math.min(spare, natural[shown[k]] - widths[k]);
    widths[k] += grow;
    spare -= grow;
  }
  let over = -spare;
  while (over > 0) {
    const k = widths.indexOf(Math.max(...widths));
    if (widths[k] <= 1) break;
    widths[k] -= 1;
    over -= 1;
  }
  return { shown, widths, dropped };
}

const BORDERLESS = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: ' '.repeat(GAP),
};

export function renderTable(
  columns: Column[],
  rows: string[][],
  width: number | null,
  head: (text: string) => string = (t) => t,
): { lines: string[]; dropped: string[] } {
  // the joiners and selectors terminals disagree about are dropped, as in the TUI (display-width.ts): what is left
  // measures the same in string-width (cli-table3's padding) and on the terminal
  rows = rows.map((r) => r.map((c) => displayText(c)));
  const layout = layoutTable(columns, rows, width);
  const table = new Table({
    head: layout.shown.map((i) => head(columns[i].header)),
    chars: BORDERLESS,
    style: { 'padding-left': 0, 'padding-right': 0, head: [], border: [], compact: true },
    colWidths: layout.widths,
    wordWrap: false,
    truncate: '…',
  });
  // a value with line breaks spans lines (each cut to the column's width)
  for (const row of rows) table.push(layout.shown.map((i) => row[i] ?? ''));
  const lines = table
    .toString()
    .split('\n')
    .map((line) => line.trimEnd());
  return { lines, dropped: layout.dropped };
}
