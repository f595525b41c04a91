import type { BlockerFacts } from '../dependencies/satisfaction';
import type { FrontierComputation } from './vocabulary';

// Stamps: a process-unique number per output object (a reused object keeps its stamp), so a consumer can tell which
// items two answers share from typed arrays alone; comparing the objects reads their headers, a cache miss an item
// in rank order at scale. Doubles: exact far beyond any run's count of objects.
let lastStamp = 0;

export function nextStamp(): number {
  return ++lastStamp;
}

export interface ListStamps {
  runnable: Float64Array;
  blocked: Float64Array;
  frozen: Float64Array;
  conduct_eligible: Float64Array;
  // the runnable items with adapter conduct that are not eligible (read from the memo's state, no item touched)
  conductHeldBack: number;
}

const stampsOf = new WeakMap<FrontierComputation, ListStamps>();

export function recordListStamps(computation: FrontierComputation, stamps: ListStamps): void {
  stampsOf.set(computation, stamps);
}

// None when the lists were rebuilt after compute_frontier (such as by applyDeploymentHalts).
export function listStampsOf(computation: FrontierComputation): ListStamps | undefined {
  return stampsOf.get(computation);
}

// Facts that can name the ids which may map to another object than in an earlier map (a superset); null: unknown.
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
