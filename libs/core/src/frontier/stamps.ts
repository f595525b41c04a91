import type { BlockerFacts } from '../dependencies/satisfaction';
import type { FrontierComputation } from './vocabulary';

// Stamps: a number for each output item object compute_frontier builds, unique in the process (a reused object keeps
// its stamp). Equal stamps are the same object, so a consumer that kept an earlier answer's stamps can tell the items
// a later answer shares with it from typed arrays alone. Comparing the objects themselves reads each one's header:
// at 1M items in rank order (objects scattered over a 2 GB heap) that is a cache miss an item, about 100 ms a pass.
// Doubles: exact far beyond any run's count of objects.
let lastStamp = 0;

export function nextStamp(): number {
  return ++lastStamp;
}

// Per list of an answer, the stamp of each item in order (the lists as compute_frontier returned them).
export interface ListStamps {
  runnable: Float64Array;
  blocked: Float64Array;
  frozen: Float64Array;
  conduct_eligible: Float64Array;
}

const stampsOf = new WeakMap<FrontierComputation, ListStamps>();

export function recordListStamps(computation: FrontierComputation, stamps: ListStamps): void {
  stampsOf.set(computation, stamps);
}

// The stamps of an answer computed with a memo, if its lists are still the ones compute_frontier returned (an answer
// rebuilt from another, such as applyDeploymentHalts's when a halt applies, is another object and has none).
export function listStampsOf(computation: FrontierComputation): ListStamps | undefined {
  return stampsOf.get(computation);
}

// Blocker facts that can say which ids may map to another facts object than in an earlier map (a superset), so
// that a run after a write looks up only those; null when they cannot tell (then every blocker is looked up).
export interface ChangeAwareFacts extends ReadonlyMap<number, BlockerFacts> {
  changedSince(previous: ReadonlyMap<number, BlockerFacts>): Iterable<number> | null;
}

export function factsChangedSince(
  facts: ReadonlyMap<number, BlockerFacts>,
  previous: ReadonlyMap<number, BlockerFacts>,
): Iterable<number> | null {
  const aware = facts as Partial<ChangeAwareFacts>;
  return typeof aware.changedSince === 'function' ? aware.changedSince(previous) : null;
}
