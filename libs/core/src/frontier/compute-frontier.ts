import { EdgeResolution } from './edge-resolution';
import { EdgeStructure } from './edge-structure';
import { ChangedPositions, changedInPlace, indexItems } from './item-index';
import { roomBehind } from './position-buffers';
import { rankCandidates } from './ranking';
import { FrontierComputation, FrontierInput, FrontierItem } from './vocabulary';
import { applyWipCap, CLAIM_BITS, CONDUCT_ADAPTER, DEFAULT_WIP_CAP, ELIGIBLE, WipAdmission, wipKindOf } from './wip';
import { nextStamp, recordListStamps } from './stamps';
import { alignItems, FrontierMemo, FrontierState } from './memo';
import { parseTimestamp } from './timestamps';
import {
  BLOCKED,
  bucketOf,
  countsAsWip,
  FROZEN,
  isCandidateItem,
  RUNNABLE,
  RunFacts,
  stuckCycles,
  toFrontierItem,
  unchangedOutput,
} from './frontier-items';
import { computeChanged, computeReshaped, listsAfterEdits, Lists } from './incremental-frontier';

export * from './vocabulary';
export { parseTimestamp, toZonelessIso } from './timestamps';
export { compareRank, priorityRank, rankDifference } from './ranking';
export { createRefResolver } from './ref-resolver';
export { alignItems, FrontierMemo } from './memo';
export { factsChangedSince, listStampsOf } from './stamps';
export { recordedEdit, recordEdit, recordItemsPatch } from './item-index';
export type { ChangeAwareFacts, ListStamps } from './stamps';
export { referenceFrontier } from './reference-frontier';
export { applyWipCap, CONDUCT_ADAPTERS, DEFAULT_WIP_CAP, isWipStatus, takesWipSlot, WIP_STATUSES } from './wip';

// In their previous rank order, so the sort that follows mostly confirms it.
function inPreviousOrder(candidates: readonly number[], aligned: Int32Array, previous: FrontierState): number[] {
  const now = new Int32Array(previous.items.length).fill(-1);
  const fresh: number[] = [];
  for (let k = 0; k < candidates.length; k++) {
    const v = candidates[k];
    const p = aligned[v];
    if (p >= 0 && previous.isCandidate[p] === 1 && now[p] === -1) {
      now[p] = v;
    } else {
      fresh.push(v);
    }
  }
  const order: number[] = [];
  for (let k = 0; k < previous.order.length; k++) {
    const v = now[previous.order[k]];
    if (v !== -1) {
      order.push(v);
    }
  }
  for (const v of fresh) {
    order.push(v);
  }
  return order;
}

function computeAll(
  input: FrontierInput,
  previous: FrontierState | null,
  changed: ChangedPositions | null,
): FrontierState {
  const { items, edges, blockerFacts } = input;
  const n = items.length;
  const index = changed !== null ? previous!.index : indexItems(items);
  const structure =
    changed !== null && previous!.structure.describes(edges) ? previous!.structure : new EdgeStructure(edges, index, n);

  const candidates: number[] = [];
  const isCandidate = new Uint8Array(n);
  let wipActive = 0;
  for (let v = 0; v < n; v++) {
    if (index.keep[v] === 0) {
      continue;
    }
    const item = items[v];
    wipActive += countsAsWip(item);
    if (isCandidateItem(item)) {
      candidates.push(v);
      isCandidate[v] = 1;
    }
  }

  const resolution = new EdgeResolution(structure, n, blockerFacts, input.acceptForeignRuns ?? false);
  resolution.resolveAll(items, isCandidate);
  const cycles: number[][] = [];
  const run: RunFacts = { structure, resolution, cycleReason: stuckCycles(items, structure, resolution, cycles) };

  const aligned =
    previous === null
      ? null
      : changed === null
        ? alignItems(items, previous.items)
        : Int32Array.from(changed.mask, (c, v) => (c === 1 ? -1 : v));
  // Built in input order (sequential reads), then placed by rank.
  const outputs = new Array<FrontierItem | undefined>(n);
  const bucket = new Uint8Array(n);
  const created = new Float64Array(n);
  const stamp = new Float64Array(n);
  const wipKind = new Uint8Array(n);
  for (let k = 0; k < candidates.length; k++) {
    const v = candidates[k];
    const item = items[v];
    const p = aligned === null ? -1 : aligned[v];
    const before = p >= 0 ? previous!.outputs[p] : undefined;
    if (before !== undefined && unchangedOutput(before, item, v, run)) {
      outputs[v] = before;
      stamp[v] = previous!.stamp[p];
      wipKind[v] = previous!.wipKind[p];
    } else {
      const output = toFrontierItem(item, v, run);
      outputs[v] = output;
      stamp[v] = nextStamp();
      wipKind[v] = wipKindOf(output);
    }
    bucket[v] = bucketOf(item, v, run);
    created[v] = before !== undefined ? previous!.created[p] : parseTimestamp(item.createdAt);
  }
  const order = aligned === null ? candidates : inPreviousOrder(candidates, aligned, previous!);
  const rankFacts = { items, ids: index.ids, depth: structure.depth, unblocks: structure.unblocks, created };
  rankCandidates(order, rankFacts, aligned !== null);
  return {
    items,
    index,
    structure,
    resolution,
    isCandidate,
    wipActive,
    outputs,
    bucket,
    created,
    stamp,
    wipKind,
    cycleReason: run.cycleReason,
    cycles,
    order: Int32Array.from(order),
    lists: null,
    listStamps: null,
    listPositions: null,
    edits: null,
    scratch: { changed: changed?.mask ?? null, touched: null, positions: null },
  };
}

// Laid out from the rank order also when the previous lists do not match the memo: a defect, never a wrong answer.
function layOutLists(state: FrontierState): Lists {
  if (state.edits !== null && state.lists !== null) {
    try {
      return listsAfterEdits(state, state.edits);
    } catch {
      // laid out again below
    }
  }
  return listsInRankOrder(state);
}

// Each list allocated once, at its size.
function listsInRankOrder(state: FrontierState): Lists {
  const { order, outputs, bucket, stamp } = state;
  const sizes = [0, 0, 0];
  for (let k = 0; k < order.length; k++) {
    sizes[bucket[order[k]]]++;
  }
  const lists = sizes.map((size) => new Array<FrontierItem>(size));
  const stamps = sizes.map((size) => new Float64Array(size));
  const positions = sizes.map((size) => new Int32Array(size));
  const filled = [0, 0, 0];
  for (let k = 0; k < order.length; k++) {
    const v = order[k];
    const b = bucket[v];
    const at = filled[b]++;
    lists[b][at] = outputs[v] as FrontierItem;
    stamps[b][at] = stamp[v];
    positions[b][at] = v;
  }
  return { lists, stamps, positions };
}

export function computeFrontier(input: FrontierInput, memo?: FrontierMemo): FrontierComputation {
  const previous = memo?.take() ?? null;
  const changed =
    previous === null ? null : changedInPlace(input.items, previous.items, previous.index, previous.scratch.changed);
  const sameOptions = previous !== null && previous.resolution.acceptForeignRuns === (input.acceptForeignRuns ?? false);
  const inPlace = sameOptions && changed !== null;
  const state =
    inPlace && previous.structure.describes(input.edges)
      ? computeChanged(input, previous, changed)
      : ((sameOptions ? computeReshaped(input, previous, changed) : null) ?? computeAll(input, previous, changed));

  // Step 9 reads wipKind instead of each item: those reads are a cache miss each at scale.
  const wipCap = Number.isFinite(input.wipCap) ? Math.max(0, Math.floor(input.wipCap)) : DEFAULT_WIP_CAP;
  const remaining = Math.max(0, wipCap - state.wipActive);
  const positionsBefore = state.listPositions;
  const { lists, stamps, positions } = layOutLists(state);
  // the positions before these are read by no one: the next run writes its own into them, except a list no edit
  // reached, whose positions these still are
  state.scratch = {
    ...state.scratch,
    positions:
      positionsBefore === null
        ? null
        : positionsBefore.map((before, b) => (before === positions[b] ? null : roomBehind(before))),
  };
  state.lists = lists;
  state.listStamps = stamps;
  state.listPositions = positions;
  state.edits = null;
  const eligible: FrontierItem[] = [];
  const eligibleStamps: number[] = [];
  const admission = new WipAdmission(remaining);
  const { wipKind } = state;
  const runnablePositions = positions[RUNNABLE];
  // the runnable items whose adapter is conduct, less the eligible ones: the count the WIP line shows as held back
  let conductHeldBack = 0;
  for (let k = 0; k < runnablePositions.length; k++) {
    const kind = wipKind[runnablePositions[k]];
    const verdict = admission.admit(kind & CLAIM_BITS);
    if (verdict === ELIGIBLE) {
      eligible.push(lists[RUNNABLE][k]);
      eligibleStamps.push(stamps[RUNNABLE][k]);
    } else if ((kind & CONDUCT_ADAPTER) !== 0) {
      conductHeldBack++;
    }
  }
  const [runnable, blocked, frozen] = lists;
  const computation = {
    runnable,
    blocked,
    frozen,
    wip_cap: wipCap,
    wip_active: state.wipActive,
    conduct_eligible: eligible,
    wip_remaining: remaining,
    cycles: state.cycles,
  } as FrontierComputation;
  // Listed on first read (explain reads it; the answer on the wire does not): at 1M items it is most of the runnable
  // list, ~100k entries, and building it took a tenth of a write's time.
  let suppressed: FrontierItem[] | undefined;
  Object.defineProperty(computation, 'wip_suppressed', {
    enumerable: true,
    configurable: true,
    get: () => (suppressed ??= applyWipCap(runnable, wipCap, computation.wip_active).suppressed),
  });
  if (memo !== undefined) {
    recordListStamps(computation, {
      runnable: stamps[RUNNABLE],
      blocked: stamps[BLOCKED],
      frozen: stamps[FROZEN],
      conduct_eligible: Float64Array.from(eligibleStamps),
      conductHeldBack,
    });
  }
  memo?.keep(state);
  return computation;
}
