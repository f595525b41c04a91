import type { FrontierDeltaWire, FrontierResultWire } from '@app/contracts';

// The widest ref of a frontier answer: the width of the ref column. Kept per answer as a count of its refs by
// length, so an answer made by a delta gets its counts from its base's and the delta's items instead of reading
// every ref again (at 100k items that read after each delta was a fifth of the TUI's CPU in a burst of writes).

const LISTS = ['runnable', 'blocked', 'frozen'] as const;
// the column is never narrower than this
const MIN_REF_WIDTH = 6;

const countsByAnswer = new WeakMap<FrontierResultWire, Map<number, number>>();

function add(counts: Map<number, number>, length: number, by: number): void {
  const count = (counts.get(length) ?? 0) + by;
  if (count === 0) counts.delete(length);
  else counts.set(length, count);
}

function countsOf(answer: FrontierResultWire): Map<number, number> {
  let counts = countsByAnswer.get(answer);
  if (counts === undefined) {
    counts = new Map();
    for (const list of LISTS) for (const item of answer[list]) add(counts, item.item_id.length, 1);
    countsByAnswer.set(answer, counts);
  }
  return counts;
}

// `next` is `base` after `delta`: its counts are base's less the refs dropped plus the refs put. Nothing is done when
// base's were never counted (next's are counted when first asked for).
export function carryRefWidths(base: FrontierResultWire, delta: FrontierDeltaWire, next: FrontierResultWire): void {
  const before = countsByAnswer.get(base);
  if (before === undefined || countsByAnswer.has(next)) return;
  const counts = new Map(before);
  for (const list of LISTS) {
    for (const at of delta[list].drop) add(counts, base[list][at].item_id.length, -1);
    for (const [, item] of delta[list].put) add(counts, item.item_id.length, 1);
  }
  countsByAnswer.set(next, counts);
}

// The widest ref of the runnable, blocked and frozen lists (at least MIN_REF_WIDTH).
export function widestRef(answer: FrontierResultWire): number {
  let widest = MIN_REF_WIDTH;
  for (const length of countsOf(answer).keys()) if (length > widest) widest = length;
  return widest;
}
