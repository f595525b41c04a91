// The frontier's list query, shared by the TUI (which filters and sorts the whole answer it holds) and the daemon
// (which does it for a client that holds a window of the answer: GET /v1/charge/frontier/window).
// `pri:high`, `status:planned` and `@me` narrow the filter, every other word must appear in the ref or title.
// Several values of one key match any.

// What the query reads of a row: the wire's rows and the core's items both have these; the ref comes from `refOf`.
export interface ListRow {
  title: string;
  priority: string;
  status: string;
  created_at: string;
  unblocks_count: number;
  downstream_depth: number;
}

export const SORT_KEYS = ['rank', 'priority', 'age', 'ref', 'title', 'status', 'unblocks', 'depth'] as const;
export type SortKey = (typeof SORT_KEYS)[number];

const SORT_HELP: Record<SortKey, string> = {
  rank: 'the frontier order (default)',
  priority: 'high first, then rank',
  age: 'oldest first',
  ref: 'by ref number',
  title: 'by title',
  status: 'by workflow stage: idea first, release last',
  unblocks: 'most unblocked items first',
  depth: 'deepest downstream chain first',
};

export function sortHelp(key: SortKey): string {
  return SORT_HELP[key];
}

export function sortKeyOf(text: string): SortKey | null {
  const t = text.trim().toLowerCase();
  if (!t) return null;
  return SORT_KEYS.find((k) => k === t) ?? SORT_KEYS.find((k) => k.startsWith(t)) ?? null;
}

export interface ParsedFilter {
  words: string[];
  priorities: string[] | null;
  statuses: string[] | null;
  me: boolean;
  plain: boolean;
}

const PRIORITIES = ['high', 'medium', 'low'];

export function parseFilter(text: string): ParsedFilter {
  const out: ParsedFilter = { words: [], priorities: null, statuses: null, me: false, plain: true };
  for (const raw of text.trim().toLowerCase().split(/\s+/)) {
    if (!raw) continue;
    const m = /^(pri|priority|p|status|st|s):(.+)$/.exec(raw);
    if (m) {
      out.plain = false;
      if (m[1].startsWith('p')) {
        const p = PRIORITIES.find((x) => x.startsWith(m[2])) ?? m[2];
        out.priorities = [...(out.priorities ?? []), p];
      } else {
        out.statuses = [...(out.statuses ?? []), m[2]];
      }
    } else if (raw === '@me') {
      out.plain = false;
      out.me = true;
    } else {
      out.words.push(raw);
    }
  }
  return out;
}

// What a row is searched in for the filter's words.
export function haystack(ref: string, title: string): string {
  return `${ref}\u0000${title}`.toLowerCase();
}

// The filter's keys (`@me` is the caller's: `mine` says whether the row's item is claimed by them).
export function passes(row: ListRow, f: ParsedFilter, mine: boolean): boolean {
  if (f.priorities && !f.priorities.includes(row.priority)) return false;
  if (f.statuses && !f.statuses.some((s) => row.status.toLowerCase().startsWith(s))) return false;
  return !f.me || mine;
}

const PRIORITY_RANK: Record<string, number> = { high: 0, medium: 1, low: 2 };

// `:sort status` follows the default workflows' stages (the DefaultWorkflows migration), not the alphabet; a custom
// workflow's stage comes after them, by name.
export const STAGE_ORDER: readonly string[] = [
  'idea',
  'refining-idea',
  'refined-idea',
  'plan-drafted',
  'refining-plan',
  'planning',
  'planned',
  'implementing',
  'reviewing-implementation',
  'reviewed-implementation',
  'polishing-implementation',
  'implemented',
  'release',
  'done',
  'cancelled',
  'stopped',
  'failed',
];
const stageRank = (status: string): string => {
  const i = STAGE_ORDER.indexOf(status);
  return i >= 0 ? String(i).padStart(3, '0') : `999${status}`;
};
const refNumber = (ref: string) => Number(/(\d+)$/.exec(ref)?.[1] ?? Number.MAX_SAFE_INTEGER);

// A row's sort key (none for `rank`: the frontier order is the rows' own).
function rowKeyOf<R extends ListRow>(key: SortKey, refOf: (row: R) => string): ((r: R) => number | string) | null {
  switch (key) {
    case 'rank':
      return null;
    case 'priority':
      return (r) => PRIORITY_RANK[r.priority] ?? 3;
    case 'age':
      return (r) => Date.parse(r.created_at);
    case 'ref':
      return (r) => refNumber(refOf(r));
    case 'title':
      return (r) => r.title.toLowerCase();
    case 'status':
      return (r) => stageRank(r.status);
    case 'unblocks':
      return (r) => -r.unblocks_count;
    case 'depth':
      return (r) => -r.downstream_depth;
  }
}

// `positions` (ascending places in `rows`) in the order asked; ties keep the frontier order, also when descending.
// Each row's key is read once into a dense array before the sort: comparing rows read two scattered objects per
// comparison (at 1M, most of a sort's time) and lowered a title each time.
export function sortRows<R extends ListRow>(
  rows: readonly R[],
  positions: number[],
  key: SortKey,
  desc: boolean,
  refOf: (row: R) => string,
): number[] {
  const f = rowKeyOf(key, refOf);
  if (f === null) return desc ? positions.slice().reverse() : positions;
  const keys = positions.map((p) => f(rows[p]));
  const order = positions.map((_, k) => k);
  const sign = desc ? -1 : 1;
  order.sort((a, b) => {
    const x = keys[a];
    const y = keys[b];
    return x < y ? -sign : x > y ? sign : a - b;
  });
  return order.map((k) => positions[k]);
}
