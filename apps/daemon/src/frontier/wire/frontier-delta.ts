import { FrontierComputation, FrontierItem, ListStamps, listStampsOf } from '@app/core';

import { RefsAt, refsDiffer, refsOf } from './frontier-ref-book';
import { bodyBytes, SerializedFrontier } from './frontier-serializer';
import { frontierItemJson, sameWireFields } from './frontier-wire-fields';

// Each replica keeps the last few answers per project and wip_cap (their items, shared across answers, and refs).
// A delta lists, per list, the base positions that leave and the items placed anew. See docs/api-frontier.md.

const LISTS = ['runnable', 'blocked', 'frozen', 'conduct_eligible'] as const;

// Answers kept per project and wip_cap: a client more than this many answers behind gets the full answer. A large
// project keeps fewer: their rows together at most HISTORY_ROWS (each answer holds its lists and their stamps, 16
// bytes a row: 4 answers at 1M items, ~64 MB, where 16 took ~250 MB), never fewer than HISTORY_MIN_DEPTH.
export const HISTORY_DEPTH = 16;
export const HISTORY_ROWS = 4_000_000;
export const HISTORY_MIN_DEPTH = 2;
export const HISTORY_KEYS = 8;
const DELTAS_PER_ANSWER = 8;
const MEMO_DELTA_BYTES = 256 << 10;

export interface RecordedAnswer {
  etag: string;
  lists: readonly (readonly FrontierItem[])[];
  wipCap: number;
  wipActive: number;
  refs: RefsAt;
  stamps: readonly Float64Array[] | null;
  // the WIP line's held-back count, when the computation counted it (ListStamps.conductHeldBack)
  conductHeldBack: number | null;
  deltas: Map<string, Buffer | null>;
}

export type AnswerDelta = { delta: Buffer } | { full: 'unknown_base' | 'too_large' };

export class FrontierHistory {
  private readonly byKey = new Map<string, RecordedAnswer[]>();
  readonly fullAnswers = { unknown_base: 0, too_large: 0 };
  deltasServed = 0;

  constructor(
    private readonly depth = HISTORY_DEPTH,
    private readonly keys = HISTORY_KEYS,
  ) {}

  static key(project: string, wipCap: number): string {
    return `${project}|${wipCap}`;
  }

  record(key: string, etag: string, computation: FrontierComputation, refs: RefsAt): void {
    let answers = this.byKey.get(key);
    if (answers === undefined) {
      answers = [];
      this.byKey.set(key, answers);
      while (this.byKey.size > this.keys) this.byKey.delete(this.byKey.keys().next().value as string);
    } else {
      this.byKey.delete(key);
      this.byKey.set(key, answers);
    }
    const at = answers.findIndex((a) => a.etag === etag);
    if (at >= 0) answers.splice(at, 1);
    const lists = [computation.runnable, computation.blocked, computation.frozen, computation.conduct_eligible];
    answers.push({
      etag,
      lists,
      wipCap: computation.wip_cap,
      wipActive: computation.wip_active,
      refs,
      stamps: stampLists(listStampsOf(computation)),
      conductHeldBack: listStampsOf(computation)?.conductHeldBack ?? null,
      deltas: new Map(),
    });
    const rows = lists[0].length + lists[1].length + lists[2].length;
    const depth = Math.max(HISTORY_MIN_DEPTH, Math.min(this.depth, Math.floor(HISTORY_ROWS / Math.max(1, rows))));
    if (answers.length > depth) answers.splice(0, answers.length - depth);
  }

  find(key: string, etag: string): RecordedAnswer | undefined {
    return this.byKey.get(key)?.find((a) => a.etag === etag);
  }

  delta(key: string, base: string, etag: string, fullLength: number): AnswerDelta {
    const answers = this.byKey.get(key) ?? [];
    const quoted = quotedEtag(base);
    const from = answers.find((a) => a.etag === quoted);
    const to = answers.find((a) => a.etag === etag);
    if (from === undefined || to === undefined) {
      this.fullAnswers.unknown_base++;
      return { full: 'unknown_base' };
    }
    let body = to.deltas.get(from.etag);
    if (body === undefined) {
      body = frontierDeltaJson(from, to, fullLength / 2);
      // small ones only: a delta near the answer's size is not worth keeping 8 × 16 times
      if (body === null || body.length <= MEMO_DELTA_BYTES) to.deltas.set(from.etag, body);
      if (to.deltas.size > DELTAS_PER_ANSWER) to.deltas.delete(to.deltas.keys().next().value as string);
    }
    if (body === null) {
      this.fullAnswers.too_large++;
      return { full: 'too_large' };
    }
    this.deltasServed++;
    return { delta: body };
  }
}

function stampLists(stamps: ListStamps | undefined): Float64Array[] | null {
  return stamps === undefined ? null : [stamps.runnable, stamps.blocked, stamps.frozen, stamps.conduct_eligible];
}

export function quotedEtag(value: string): string {
  const tag = value.replace(/^W\//, '');
  return tag.startsWith('"') ? tag : `"${tag}"`;
}

export function frontierDeltaJson(from: RecordedAnswer, to: RecordedAnswer, limit = Infinity): Buffer | null {
  // equal wire fields and every named blocker still written the same way: byte-identical item JSON
  const differ = refsDiffer(from.refs, to.refs);
  const same = (a: FrontierItem, b: FrontierItem): boolean => {
    if (a !== b && !sameWireFields(a, b)) return false;
    return differ === null || !differ(b.blocked_by);
  };
  const refOf = refsOf(to.refs);
  let json = `{"base":${JSON.stringify(from.etag)},"etag":${JSON.stringify(to.etag)},"wip_cap":${to.wipCap},"wip_active":${to.wipActive}`;
  // equal stamps are the same object: equal bytes unless a ref changed
  const byStamp = differ === null && from.stamps !== null && to.stamps !== null;
  for (let l = 0; l < LISTS.length; l++) {
    const stamps = byStamp ? { base: from.stamps![l], next: to.stamps![l] } : undefined;
    const { drop, put } = listDelta(from.lists[l], to.lists[l], same, stamps);
    const items = to.lists[l];
    let puts = '';
    for (let k = 0; k < put.length; k++) {
      puts += `${k > 0 ? ',' : ''}[${put[k]},${frontierItemJson(items[put[k]], refOf)}]`;
      if (puts.length > limit) return null;
    }
    json += `,"${LISTS[l]}":{"drop":[${drop.join(',')}],"put":[${puts}]}`;
    if (json.length > limit) return null;
  }
  json += '}';
  const body = Buffer.from(json, 'utf8');
  return body.length > limit ? null : body;
}

// Unchanged items in a longest run of kept relative order stay. Prefix and suffix are found from `stamps`
// without reading the items (a cache miss each at scale). The rest: a write moves a few items, and its middle spans
// from the first to the last of them (an item that leaves the top of 50k blocked and one placed near the end), so it
// is first walked by Myers' diff, O((n + m) · edits) comparisons mostly of stamps (ADR 0109); past a few edits, by a
// longest increasing subsequence of the kept items' base positions, O(n log n) with every item read.
export function listDelta<T extends { item_id: number }>(
  base: readonly T[],
  next: readonly T[],
  same: (a: T, b: T) => boolean,
  stamps?: { base: Float64Array; next: Float64Array },
): { drop: number[]; put: number[] } {
  let prefix = 0;
  const shorter = Math.min(base.length, next.length);
  if (stamps !== undefined) {
    const { base: from, next: to } = stamps;
    while (prefix < shorter && from[prefix] === to[prefix]) prefix++;
  }
  while (prefix < shorter && same(base[prefix], next[prefix])) prefix++;
  let suffix = 0;
  if (stamps !== undefined) {
    const { base: from, next: to } = stamps;
    while (suffix < shorter - prefix && from[base.length - 1 - suffix] === to[next.length - 1 - suffix]) suffix++;
  }
  while (suffix < shorter - prefix && same(base[base.length - 1 - suffix], next[next.length - 1 - suffix])) {
    suffix++;
  }
  const baseEnd = base.length - suffix;
  const nextEnd = next.length - suffix;
  if (prefix === baseEnd && prefix === nextEnd) return { drop: [], put: [] };
  const kept = (b: number, k: number): boolean =>
    (stamps !== undefined && stamps.base[b] === stamps.next[k]) ||
    (base[b].item_id === next[k].item_id && same(base[b], next[k]));
  return fewEdits(prefix, baseEnd, nextEnd, kept) ?? byLongestIncreasing(base, next, same, prefix, baseEnd, nextEnd);
}

// Edits beyond which a middle is left to the longest increasing subsequence, and the comparisons (per entry of the
// middle) after which it is: many edits cost Myers' walk (edits × length) more than the subsequence.
const MYERS_MAX_EDITS = 64;
const MYERS_WORK_PER_ENTRY = 4;

// Myers' greedy diff of base[from, baseEnd) against next[from, nextEnd): the fewest drops and puts, where an entry
// kept is one `kept(b, k)` says is unchanged. Item ids are unique in a list, so this is a longest common
// subsequence of unchanged items, the same length as the longest increasing subsequence finds. null: too many edits.
function fewEdits(
  from: number,
  baseEnd: number,
  nextEnd: number,
  kept: (b: number, k: number) => boolean,
): { drop: number[]; put: number[] } | null {
  const n = baseEnd - from;
  const m = nextEnd - from;
  const most = Math.min(MYERS_MAX_EDITS, n + m);
  const offset = most + 1;
  // furthest[offset + k]: the furthest base position reached on diagonal k (base position − next position)
  const furthest = new Int32Array(2 * most + 3);
  const trace: Int32Array[] = [];
  let budget = MYERS_WORK_PER_ENTRY * (n + m) + 1024;
  for (let d = 0; d <= most; d++) {
    trace.push(furthest.slice());
    for (let k = -d; k <= d; k += 2) {
      const down = k === -d || (k !== d && furthest[offset + k - 1] < furthest[offset + k + 1]);
      let x = down ? furthest[offset + k + 1] : furthest[offset + k - 1] + 1;
      let y = x - k;
      const start = x;
      while (x < n && y < m && kept(from + x, from + y)) {
        x++;
        y++;
      }
      budget -= x - start + 1;
      furthest[offset + k] = x;
      if (x >= n && y >= m) return editsOf(trace, d, n, m, from, offset);
    }
    if (budget < 0) return null;
  }
  return null;
}

// Back from (n, m) through the furthest points each round started from: a step down is a put, a step right a drop.
function editsOf(
  trace: readonly Int32Array[],
  edits: number,
  n: number,
  m: number,
  from: number,
  offset: number,
): { drop: number[]; put: number[] } {
  const drop: number[] = [];
  const put: number[] = [];
  let x = n;
  let y = m;
  for (let d = edits; d > 0; d--) {
    const furthest = trace[d];
    const k = x - y;
    const down = k === -d || (k !== d && furthest[offset + k - 1] < furthest[offset + k + 1]);
    const previousK = down ? k + 1 : k - 1;
    const previousX = furthest[offset + previousK];
    const previousY = previousX - previousK;
    if (down) put.push(from + previousY);
    else drop.push(from + previousX);
    x = previousX;
    y = previousY;
  }
  return { drop: drop.reverse(), put: put.reverse() };
}

function byLongestIncreasing<T extends { item_id: number }>(
  base: readonly T[],
  next: readonly T[],
  same: (a: T, b: T) => boolean,
  prefix: number,
  baseEnd: number,
  nextEnd: number,
): { drop: number[]; put: number[] } {
  const drop: number[] = [];
  const put: number[] = [];
  const where = new Map<number, number>();
  for (let b = prefix; b < baseEnd; b++) where.set(base[b].item_id, b);
  const atNext: number[] = [];
  const atBase: number[] = [];
  for (let k = prefix; k < nextEnd; k++) {
    const b = where.get(next[k].item_id);
    if (b !== undefined && same(base[b], next[k])) {
      atNext.push(k);
      atBase.push(b);
    }
  }
  const kept = longestIncreasing(atBase);
  const keptBase = new Uint8Array(baseEnd - prefix);
  const keptNext = new Uint8Array(nextEnd - prefix);
  for (const s of kept) {
    keptBase[atBase[s] - prefix] = 1;
    keptNext[atNext[s] - prefix] = 1;
  }
  for (let b = prefix; b < baseEnd; b++) if (keptBase[b - prefix] === 0) drop.push(b);
  for (let k = prefix; k < nextEnd; k++) if (keptNext[k - prefix] === 0) put.push(k);
  return { drop, put };
}

export function longestIncreasing(values: readonly number[]): number[] {
  const n = values.length;
  if (n === 0) return [];
  const tails = new Int32Array(n); // index of the smallest tail of an increasing run of each length
  const previous = new Int32Array(n);
  let length = 0;
  for (let i = 0; i < n; i++) {
    let low = 0;
    let high = length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (values[tails[mid]] < values[i]) low = mid + 1;
      else high = mid;
    }
    previous[i] = low > 0 ? tails[low - 1] : -1;
    tails[low] = i;
    if (low === length) length++;
  }
  const out = new Array<number>(length);
  for (let k = length - 1, i = tails[length - 1]; k >= 0; k--, i = previous[i]) out[k] = i;
  return out;
}

export function firstItemsJson(answer: RecordedAnswer, limit: number): Buffer {
  const refOf = refsOf(answer.refs);
  const list = (l: number) =>
    answer.lists[l]
      .slice(0, limit)
      .map((item) => frontierItemJson(item, refOf))
      .join(',');
  return Buffer.from(
    `{"runnable":[${list(0)}],"blocked":[${list(1)}],"frozen":[${list(2)}],"wip_cap":${answer.wipCap},` +
      `"wip_active":${answer.wipActive},"conduct_eligible":[${list(3)}]}`,
    'utf8',
  );
}

export function firstItemsOfBody(serialized: SerializedFrontier, limit: number): Buffer {
  const body = JSON.parse(bodyBytes(serialized).toString('utf8')) as Record<string, unknown>;
  for (const list of LISTS) body[list] = (body[list] as unknown[]).slice(0, limit);
  return Buffer.from(JSON.stringify(body), 'utf8');
}
