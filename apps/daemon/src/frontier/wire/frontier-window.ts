import {
  FRONTIER_WINDOW_LISTS,
  FrontierItemWire,
  FrontierResultWire,
  FrontierWindowList,
  haystack,
  ListRow,
  parseFilter,
  passes,
  SortKey,
  sortRows,
} from '@app/contracts';
import type { FrontierItem } from '@app/core';

import type { RecordedAnswer } from './frontier-delta';
import { refsOf } from './frontier-ref-book';
import { frontierItemJson } from './frontier-wire-fields';

// A window of one list of a recorded answer, filtered and sorted by the TUI's list query (libs/contracts'
// list-query), for a client that does not hold the whole answer (docs/api-frontier.md, "A window of the answer").

export interface WindowQuery {
  list: FrontierWindowList;
  offset: number;
  limit: number;
  filter: string;
  sort: SortKey;
  desc: boolean;
  // the refs the caller's sessions hold claims on, when the filter says `@me`
  mine: ReadonlySet<string> | null;
}

// An answer's lists (runnable, blocked, frozen, conduct_eligible) and how a row is named and written.
export interface WindowSource<R extends ListRow> {
  // the selections below are kept per source
  identity: object;
  lists: readonly (readonly R[])[];
  wipCap: number;
  wipActive: number;
  etag: string;
  // the runnable conduct items the WIP cap holds back, when the answer's computation counted them (else a pass over
  // the runnable list finds them: at 1M, 117k rows read a cache miss each, 12 ms an answer)
  conductHeldBack: number | null;
  refOf(row: R): string;
  adapterOf(row: R): string;
  json(row: R): string;
}

// A recorded answer (the daemon's kept one: its items, written as the full answer writes them).
export function recordedSource(answer: RecordedAnswer): WindowSource<FrontierItem> {
  const refOf = refsOf(answer.refs);
  return {
    identity: answer,
    lists: answer.lists,
    wipCap: answer.wipCap,
    wipActive: answer.wipActive,
    etag: answer.etag,
    conductHeldBack: answer.conductHeldBack,
    refOf: (item) => item.ref,
    adapterOf: (item) => item.adapter,
    json: (item) => frontierItemJson(item, refOf),
  };
}

// Positions (in the list) of the rows that pass, in the order asked; null: every row in the list's own order.
type Selection = Int32Array | null;

// The last few selections of each answer, by query: paging through a filtered list scans it once per answer. Weak by
// answer: a selection never keeps an answer the history let go (at 1M an answer's lists are 8 MB).
const SELECTIONS_KEPT = 8;
const selections = new WeakMap<object, Map<string, Selection>>();

function selectionKey(q: WindowQuery): string {
  const mine = q.mine ? [...q.mine].sort().join(',') : '';
  return `${q.list}\u0000${q.filter}\u0000${q.sort}\u0000${q.desc ? 1 : 0}\u0000${mine}`;
}

function select<R extends ListRow>(source: WindowSource<R>, items: readonly R[], q: WindowQuery): Selection {
  const parsed = parseFilter(q.filter);
  if (parsed.words.length === 0 && parsed.plain && q.sort === 'rank' && !q.desc) return null;
  const out: number[] = [];
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (parsed.words.length > 0) {
      const hay = haystack(source.refOf(item), item.title);
      if (!parsed.words.every((w) => hay.includes(w))) continue;
    }
    if (!parsed.plain && !passes(item, parsed, q.mine?.has(source.refOf(item)) ?? false)) continue;
    out.push(i);
  }
  return Int32Array.from(sortRows(items, out, q.sort, q.desc, source.refOf));
}

// Once per answer: the refs of its eligible items and the conduct items the WIP cap holds back. A window sends the
// eligible ones among its rows (at 1M, every eligible item is ~14k rows, 4 MB a window) and the count.
interface Eligibility {
  refs: ReadonlySet<string>;
  suppressed: number;
}

const eligibilities = new WeakMap<object, Eligibility>();

function eligibilityOf<R extends ListRow>(source: WindowSource<R>): Eligibility {
  let eligibility = eligibilities.get(source.identity);
  if (eligibility === undefined) {
    const refs = new Set<string>();
    for (const item of source.lists[3]) refs.add(source.refOf(item));
    let suppressed = source.conductHeldBack;
    if (suppressed === null) {
      suppressed = 0;
      for (const item of source.lists[3]) if (source.adapterOf(item) === 'conduct') suppressed--;
      for (const item of source.lists[0]) if (source.adapterOf(item) === 'conduct') suppressed++;
    }
    eligibility = { refs, suppressed: Math.max(0, suppressed) };
    eligibilities.set(source.identity, eligibility);
  }
  return eligibility;
}

function selectionOf<R extends ListRow>(source: WindowSource<R>, items: readonly R[], q: WindowQuery): Selection {
  const key = selectionKey(q);
  let kept = selections.get(source.identity);
  const found = kept?.get(key);
  if (found !== undefined) return found;
  const positions = select(source, items, q);
  // the list's own order costs nothing to find again
  if (positions === null) return null;
  if (kept === undefined) {
    kept = new Map();
    selections.set(source.identity, kept);
  }
  kept.set(key, positions);
  if (kept.size > SELECTIONS_KEPT) kept.delete(kept.keys().next().value as string);
  return positions;
}

export function frontierWindowJson<R extends ListRow>(source: WindowSource<R>, q: WindowQuery): Buffer {
  const at = FRONTIER_WINDOW_LISTS.indexOf(q.list);
  const items = source.lists[at];
  const positions = selectionOf(source, items, q);
  const total = positions ? positions.length : items.length;
  const from = Math.min(q.offset, total);
  const to = Math.min(total, from + q.limit);
  const eligibility = eligibilityOf(source);
  const rows: string[] = [];
  const ranks: number[] = [];
  const eligible: string[] = [];
  for (let i = from; i < to; i++) {
    const position = positions ? positions[i] : i;
    const json = source.json(items[position]);
    rows.push(json);
    ranks.push(position);
    if (eligibility.refs.has(source.refOf(items[position]))) eligible.push(json);
  }
  const lists = FRONTIER_WINDOW_LISTS.map((list) => `"${list}":[${list === q.list ? rows.join(',') : ''}]`).join(',');
  const window = {
    list: q.list,
    offset: from,
    total,
    totals: { runnable: source.lists[0].length, blocked: source.lists[1].length, frozen: source.lists[2].length },
    ranks,
    wip_suppressed: eligibility.suppressed,
    filter: q.filter,
    sort: q.sort,
    desc: q.desc,
    etag: source.etag,
  };
  return Buffer.from(
    `{${lists},"wip_cap":${source.wipCap},"wip_active":${source.wipActive},` +
      `"conduct_eligible":[${eligible.join(',')}],` +
      `"window":${JSON.stringify(window)}}`,
    'utf8',
  );
}

// The answer's body read back (the kept answer left the history: many projects or wip_caps read at once).
export function bodySource(body: FrontierResultWire, etag: string): WindowSource<FrontierItemWire> {
  return {
    identity: body,
    lists: [body.runnable, body.blocked, body.frozen, body.conduct_eligible],
    wipCap: body.wip_cap,
    wipActive: body.wip_active,
    etag,
    conductHeldBack: null,
    refOf: (row) => row.item_id,
    adapterOf: (row) => row.adapter,
    json: (row) => JSON.stringify(row),
  };
}
