import type { FrontierDeltaWire, FrontierItemWire, FrontierResultWire } from '@app/contracts';

// Kept per answer, so an answer made by a delta gets them from its base's counts and the delta's items instead of
// reading every item again (docs/adr/0045).

const LISTS = ['runnable', 'blocked', 'frozen'] as const;
const MIN_REF_WIDTH = 6;

interface AnswerCounts {
  refLengths: Map<number, number>;
  conductRunnable: number;
}

const countsByAnswer = new WeakMap<FrontierResultWire, AnswerCounts>();

function addLength(lengths: Map<number, number>, length: number, by: number): void {
  const count = (lengths.get(length) ?? 0) + by;
  if (count === 0) lengths.delete(length);
  else lengths.set(length, count);
}

const isConduct = (item: FrontierItemWire) => (item.adapter === 'conduct' ? 1 : 0);

function countsOf(answer: FrontierResultWire): AnswerCounts {
  let counts = countsByAnswer.get(answer);
  if (counts === undefined) {
    counts = { refLengths: new Map(), conductRunnable: 0 };
    for (const list of LISTS) for (const item of answer[list]) addLength(counts.refLengths, item.item_id.length, 1);
    for (const item of answer.runnable) counts.conductRunnable += isConduct(item);
    countsByAnswer.set(answer, counts);
  }
  return counts;
}

// Nothing is done when base's were never counted (next's are counted when first asked for).
export function carryAnswerCounts(base: FrontierResultWire, delta: FrontierDeltaWire, next: FrontierResultWire): void {
  const before = countsByAnswer.get(base);
  if (before === undefined || countsByAnswer.has(next)) return;
  const counts = { refLengths: new Map(before.refLengths), conductRunnable: before.conductRunnable };
  for (const list of LISTS) {
    for (const at of delta[list].drop) {
      const item = base[list][at];
      addLength(counts.refLengths, item.item_id.length, -1);
      if (list === 'runnable') counts.conductRunnable -= isConduct(item);
    }
    for (const [, item] of delta[list].put) {
      addLength(counts.refLengths, item.item_id.length, 1);
      if (list === 'runnable') counts.conductRunnable += isConduct(item);
    }
  }
  countsByAnswer.set(next, counts);
}

export function widestRef(answer: FrontierResultWire): number {
  let widest = MIN_REF_WIDTH;
  for (const length of countsOf(answer).refLengths.keys()) if (length > widest) widest = length;
  return widest;
}

export function conductRunnable(answer: FrontierResultWire): number {
  return countsOf(answer).conductRunnable;
}
