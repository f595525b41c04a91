import type { FrontierItemWire, FrontierResultWire } from './frontier';

// Served on `since=<etag>`; the full answer (application/json) when the daemon no longer knows the base.
export const FRONTIER_DELTA_MEDIA_TYPE = 'application/vnd.svc.frontier-delta+json';
// Set on a full answer given to a `since` request: why no delta (unknown_base: not among the recent answers the
// replica keeps; too_large: the delta would have been larger than the answer).
export const FRONTIER_FULL_REASON_HEADER = 'x-frontier-full-reason';

export const FRONTIER_BUCKETS = ['runnable', 'blocked', 'frozen', 'conduct_eligible'] as const;
export type FrontierListName = (typeof FRONTIER_BUCKETS)[number];

// One list's change: the base positions of the items that leave it (ascending), then the items placed at their new
// positions (ascending, counted in the new list). The items kept keep their order; every other position is theirs.
export interface FrontierListDeltaWire {
  drop: number[];
  put: [number, FrontierItemWire][];
}

export interface FrontierDeltaWire {
  base: string;
  etag: string;
  wip_cap: number;
  wip_active: number;
  runnable: FrontierListDeltaWire;
  blocked: FrontierListDeltaWire;
  frozen: FrontierListDeltaWire;
  conduct_eligible: FrontierListDeltaWire;
}

export function isFrontierDelta(body: unknown): body is FrontierDeltaWire {
  return typeof body === 'object' && body !== null && 'base' in body && 'etag' in body;
}

// The list after a delta; `base` is left as it is (items kept are the same objects). Throws on a delta that does not
// fit the list (a client bug or a mismatched base), so a mirror falls back to the full answer.
export function applyListDelta<T>(base: readonly T[], delta: { drop: number[]; put: [number, T][] }): T[] {
  const { drop, put } = delta;
  const length = base.length - drop.length + put.length;
  if (length < 0) throw new Error('frontier delta: drops more items than the list holds');
  if (!ascendingBelow(drop, base.length)) throw new Error('frontier delta: drops positions not in the list');
  if (drop.length + put.length <= SPLICE_AT_MOST) return spliced(base, drop, put, length);
  const out = new Array<T>(length);
  let d = 0;
  let b = 0;
  let p = 0;
  for (let i = 0; i < length; i++) {
    if (p < put.length && put[p][0] === i) {
      out[i] = put[p++][1];
      continue;
    }
    while (d < drop.length && drop[d] === b) {
      d++;
      b++;
    }
    if (b >= base.length) throw new Error('frontier delta: positions past the end of the list');
    out[i] = base[b++];
  }
  if (p !== put.length || d + (base.length - b) !== drop.length) throw new Error('frontier delta: does not fit');
  return out;
}

// Past this many drops and puts a list is copied item by item; up to it, the kept runs are moved by the engine's
// copies (one slice, a splice per change): a write's delta changes an item or two of a list of 100k.
const SPLICE_AT_MOST = 8;

function ascendingBelow(positions: readonly number[], limit: number): boolean {
  for (let k = 0; k < positions.length; k++) {
    const at = positions[k];
    if (!Number.isInteger(at) || at < 0 || at >= limit || (k > 0 && at <= positions[k - 1])) return false;
  }
  return true;
}

function spliced<T>(base: readonly T[], drop: number[], put: [number, T][], length: number): T[] {
  if (
    !ascendingBelow(
      put.map(([at]) => at),
      length,
    )
  ) {
    throw new Error('frontier delta: does not fit');
  }
  const out = base.slice();
  for (let d = drop.length - 1; d >= 0; d--) out.splice(drop[d], 1);
  for (const [at, item] of put) out.splice(at, 0, item);
  return out;
}

// The answer a delta leads to: the same keys in the same order as the daemon's body, so JSON.stringify of the
// result is byte for byte the full answer at the delta's etag.
export function applyFrontierDelta(base: FrontierResultWire, delta: FrontierDeltaWire): FrontierResultWire {
  return {
    runnable: applyListDelta(base.runnable, delta.runnable),
    blocked: applyListDelta(base.blocked, delta.blocked),
    frozen: applyListDelta(base.frozen, delta.frozen),
    wip_cap: delta.wip_cap,
    wip_active: delta.wip_active,
    conduct_eligible: applyListDelta(base.conduct_eligible, delta.conduct_eligible),
  };
}
