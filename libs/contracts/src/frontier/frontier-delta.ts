import type { FrontierItemWire, FrontierResultWire } from './frontier';

// GET /v1/charge/frontier?since=<etag> (issue 27): what changed in the frontier since an answer the client holds.
// Served with this media type; the full answer (application/json) when the daemon no longer knows the base.
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
