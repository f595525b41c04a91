import { formatAge } from '../state/selectors';
import { Dialog } from '../state/state';
import type { ItemCommentWire } from '../wire';
import { bold, clean, esc, paint, promptText, Theme, truncate, wrap } from './format';
import type { OverlayContent } from './overlay-content';

// At most this many lines of one comment in the pane (the rest: `svc items comments <ref>`).
export const COMMENT_PANE_LINES = 6;

export function commentPaneLines(
  comments: readonly ItemCommentWire[],
  count: number,
  now: number,
  width: number,
  theme: Theme,
): string[] {
  const out: string[] = [];
  for (const c of comments) {
    const via = c.session_id !== null ? ` #${c.session_id}${c.harness ? ` ${c.harness}` : ''}` : '';
    const fresh = now - Date.parse(c.created_at) < 5000;
    const age = fresh ? '' : formatAge(c.created_at, now);
    const head = truncate(`${c.author ?? '(unknown)'}${via} · ${age ? `${age} ago` : 'just now'}`, width - 3);
    out.push(` ${paint(theme, bold(esc(head)), 'magenta')}`);
    const body = wrap(c.body.replace(/\n+$/, ''), width - 5);
    const shown = body.length > COMMENT_PANE_LINES ? [...body.slice(0, COMMENT_PANE_LINES - 1), '…'] : body;
    for (const line of shown) out.push(`   ${esc(line)}`);
  }
  if (count > comments.length) {
    out.push(paint(theme, esc(` … ${count - comments.length} older (svc items comments)`), 'gray'));
  }
  return out;
}

export function commentDialog(
  d: Dialog & { kind: 'input' },
  width: number,
  height: number,
  theme: Theme,
  cursor: number | null,
): OverlayContent {
  const w = Math.min(90, width - 4);
  const room = w - 6;
  const at = cursor === null ? d.value.length : Math.min(d.value.length, cursor);
  const lines = d.value.split('\n');
  let row = 0;
  let start = 0;
  while (row < lines.length - 1 && start + lines[row].length < at) {
    start += lines[row].length + 1;
    row++;
  }
  const rows = Math.max(3, Math.min(12, height - 8));
  const first = Math.max(0, Math.min(row - rows + 1, lines.length - rows));
  const out: string[] = [];
  for (let i = first; i < Math.min(lines.length, first + rows); i++) {
    out.push(
      i === row
        ? ` ${paint(theme, '›', 'cyan')} ${promptText(lines[i], at - start, room)}`
        : `   ${esc(truncate(clean(lines[i]), room))}`,
    );
  }
  while (out.length < 3) out.push('');
  out.push('');
  out.push(
    paint(theme, esc(` ${lines.length} line${lines.length === 1 ? '' : 's'} · ${d.value.length} characters`), 'gray'),
  );
  for (const l of wrap('C-s posts · enter: new line · esc cancels · ←→ C-a C-e M-b M-f C-w C-u C-k C-y edit', w - 4))
    out.push(paint(theme, ` ${esc(l)}`, 'gray'));
  return { title: d.title, lines: out, width: w };
}
