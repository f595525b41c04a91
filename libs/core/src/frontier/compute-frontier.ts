import { isTerminalStatus } from '../dependencies/satisfaction';
import { namedStuckCycles } from './stuck-cycles';
import { EdgeResolution } from './edge-resolution';
import { EdgeStructure } from './edge-structure';
import { ChangedPositions, changedInPlace, indexItems } from './item-index';
import { roomBehind, withRoom } from './position-buffers';
import { compareCandidates, placeInOrder, RankFacts, rankCandidates } from './ranking';
import {
  CHARGE_RELEVANT_STATUSES,
  FrontierComputation,
  FrontierInput,
  FrontierInputItem,
  FrontierItem,
} from './vocabulary';
import { DEFAULT_WIP_CAP, ELIGIBLE, SUPPRESSED, WipAdmission, wipClaim } from './wip';
import { nextStamp, recordListStamps } from './stamps';
import { alignItems, FrontierMemo, FrontierState, ListEdit } from './memo';
import { parseTimestamp } from './timestamps';

export * from './vocabulary';
export { parseTimestamp, toZonelessIso } from './timestamps';
export { compareRank, priorityRank, rankDifference } from './ranking';
export { createRefResolver } from './ref-resolver';
export { alignItems, FrontierMemo } from './memo';
export { factsChangedSince, listStampsOf } from './stamps';
export { recordItemsPatch } from './item-index';
export type { ChangeAwareFacts, ListStamps } from './stamps';
export { referenceFrontier } from './reference-frontier';
export { applyWipCap, CONDUCT_ADAPTERS, DEFAULT_WIP_CAP, isWipStatus, takesWipSlot, WIP_STATUSES } from './wip';

// compute_frontier: candidates, hard-block resolution, depth, ranking, partition and the WIP cap, each in its own
// file; this orchestrator runs the steps in the spec's order.
const CHARGE_RELEVANT = new Set<string>(CHARGE_RELEVANT_STATUSES);

// Shared by every unblocked item instead of two fresh empty arrays each; frozen, so sharing is safe.
const NO_BLOCKERS: readonly number[] = Object.freeze([]);
const NO_REASONS: readonly string[] = Object.freeze([]);

const RUNNABLE = 0;
const BLOCKED = 1;
const FROZEN = 2;

// The reason text of an item the operator blocked.
function operatorReason(item: FrontierInputItem): string {
  return item.blockedReason ? `blocked by operator: ${item.blockedReason}` : 'blocked by operator';
}

// What an output item is built from besides its input item: one run's edges, their resolution and stuck-cycle
// reasons.
interface RunFacts {
  structure: EdgeStructure;
  resolution: EdgeResolution;
  cycleReason: Map<number, string> | null;
}

// Step 1: a candidate is a kept, non-terminal item that is charge-relevant or flagged blocked.
function isCandidateItem(item: FrontierInputItem): boolean {
  return !isTerminalStatus(item.status) && (item.blocked || CHARGE_RELEVANT.has(item.status));
}

// Step 5: wip_active counts these over every input item.
function countsAsWip(item: FrontierInputItem): number {
  return !item.frozen && (item.status === 'implementing' || item.status === 'reviewing-implementation') ? 1 : 0;
}

function bucketOf(item: FrontierInputItem, v: number, run: RunFacts): number {
  return item.frozen ? FROZEN : item.blocked || run.resolution.unsatisfiedCount[v] > 0 ? BLOCKED : RUNNABLE;
}

// An item's blockers and reasons are gathered here, then copied out at their size (blockerList, reasonList).
const blockerScratch: number[] = [];
const reasonScratch: string[] = [];

// The first n values as a new array; up to four of them as an array literal. These arrays live as long as the answer,
// and V8 allocates a literal's site straight into the old generation once its arrays keep surviving, where
// `new Array(n)` is always allocated young and copied by every scavenge until promoted: at 100k items (~100k such
// arrays per run) that copying was about a fifth of the core's time (measured). Two functions, so that each site keeps
// one elements kind.
function blockerList(values: number[], n: number): readonly number[] {
  switch (n) {
    case 0:
      return NO_BLOCKERS;
    case 1:
      return [values[0]];
    case 2:
      return [values[0], values[1]];
    case 3:
      return [values[0], values[1], values[2]];
    case 4:
      return [values[0], values[1], values[2], values[3]];
    default:
      return values.slice(0, n);
  }
}

function reasonList(values: string[], n: number): readonly string[] {
  switch (n) {
    case 0:
      return NO_REASONS;
    case 1:
      return [values[0]];
    case 2:
      return [values[0], values[1]];
    case 3:
      return [values[0], values[1], values[2]];
    case 4:
      return [values[0], values[1], values[2], values[3]];
    default:
      return values.slice(0, n);
  }
}

function toFrontierItem(item: FrontierInputItem, v: number, run: RunFacts): FrontierItem {
  const { structure, resolution, cycleReason } = run;
  const edgeCount = resolution.unsatisfiedCount[v];
  const waiting = edgeCount > 0 || item.blocked;
  let blockedBy: readonly number[] = NO_BLOCKERS;
  let reasons: readonly string[] = NO_REASONS;
  if (waiting) {
    const cycle = cycleReason?.get(v);
    const texts = reasonScratch;
    let at = 0;
    if (item.blocked) {
      texts[at++] = operatorReason(item);
    }
    if (cycle !== undefined) {
      texts[at++] = cycle;
    }
    const ids = blockerScratch;
    const { inEdges, blockerSlot, slotIds } = structure;
    const { unsatisfied, reason } = resolution;
    for (let slot = structure.inStart[v], k = 0; k < edgeCount; slot++) {
      const e = inEdges[slot];
      if (unsatisfied[e] === 1) {
        ids[k++] = slotIds[blockerSlot[e]];
        texts[at++] = reason[e];
      }
    }
    blockedBy = blockerList(ids, edgeCount);
    reasons = reasonList(texts, at);
  }
  return {
    item_id: item.id,
    ref: item.ref,
    title: item.title,
    status: item.status,
    priority: item.priority,
    project: item.project,
    workflow_id: item.workflowId,
    workflow_version_id: item.workflowVersionId,
    adapter: waiting ? 'wait' : item.stageAdapter,
    blocked_by: blockedBy,
    blocked_reasons: reasons,
    unblocks_count: structure.unblocks[v],
    downstream_depth: structure.depth[v],
    created_at: item.createdAt,
    stage_adapter: item.stageAdapter,
    lifecycle_rank: item.lifecycleRank,
    is_epic: item.isEpic,
    frozen: item.frozen,
    blocked_flag: item.blocked,
  };
}

// The previous output item when every field this run would give it is equal: same input object (so every field
// taken from the item), same adapter, counts, blockers and reasons.
function unchangedOutput(previous: FrontierItem, item: FrontierInputItem, v: number, run: RunFacts): boolean {
  const { structure, resolution, cycleReason } = run;
  const edgeCount = resolution.unsatisfiedCount[v];
  const waiting = edgeCount > 0 || item.blocked;
  if (
    previous.adapter !== (waiting ? 'wait' : item.stageAdapter) ||
    previous.unblocks_count !== structure.unblocks[v] ||
    previous.downstream_depth !== structure.depth[v] ||
    previous.blocked_by.length !== edgeCount
  ) {
    return false;
  }
  const texts = previous.blocked_reasons;
  if (!waiting) {
    return texts.length === 0;
  }
  const cycle = cycleReason?.get(v);
  let at = 0;
  if (item.blocked) {
    if (texts[at++] !== operatorReason(item)) {
      return false;
    }
  }
  if (cycle !== undefined && texts[at++] !== cycle) {
    return false;
  }
  if (texts.length !== at + edgeCount) {
    return false;
  }
  const { inEdges, blockerSlot, slotIds } = structure;
  const { unsatisfied, reason } = resolution;
  for (let slot = structure.inStart[v], k = 0; k < edgeCount; slot++) {
    const e = inEdges[slot];
    if (unsatisfied[e] === 1) {
      if (previous.blocked_by[k] !== slotIds[blockerSlot[e]] || texts[at + k] !== reason[e]) {
        return false;
      }
      k++;
    }
  }
  return true;
}

// Stuck cycles are looked for only where the edges close one.
function stuckCycles(
  items: readonly FrontierInputItem[],
  structure: EdgeStructure,
  resolution: EdgeResolution,
  cycles: number[][],
): Map<number, string> | null {
  return structure.hasCycle || resolution.selfLoopTotal > 0
    ? namedStuckCycles(items, structure, resolution, cycles)
    : null;
}

// Candidates in the order of their previous rank (those without one last, in input order): the sort that follows
// then mostly confirms it.
function inPreviousOrder(candidates: readonly number[], aligned: Int32Array, previous: FrontierState): number[] {
  // current position of each previous candidate still a candidate
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

// Every step over every item and edge. With a previous state, an output item equal to the previous one for the same
// input object is that object, and the ranking starts from the previous order. `changed` (see changedInPlace) is
// given only with a previous state.
function computeAll(
  input: FrontierInput,
  previous: FrontierState | null,
  changed: ChangedPositions | null,
): FrontierState {
  const { items, edges, blockerFacts } = input;
  const n = items.length;
  // positions carry over when the write updated items in place
  const index = changed !== null ? previous!.index : indexItems(items);
  const structure =
    changed !== null && previous!.structure.describes(edges) ? previous!.structure : new EdgeStructure(edges, index, n);

  // Step 1: candidates; step 5: wip_active over every input item.
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

  // position of each item in the previous run (same object), or -1
  const aligned =
    previous === null
      ? null
      : changed === null
        ? alignItems(items, previous.items)
        : Int32Array.from(changed.mask, (c, v) => (c === 1 ? -1 : v));
  // Output objects are built in input order (sequential reads of items and arrays), then placed by rank.
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
      wipKind[v] = wipClaim(output);
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

// A run after items were updated in place, over the same edges: the previous state brought up to date at the changed
// positions and the outputs they reach (through their edges or a stuck cycle).
function computeChanged(input: FrontierInput, previous: FrontierState, changes: ChangedPositions): FrontierState {
  const { items, blockerFacts } = input;
  const n = items.length;
  const { structure, resolution, isCandidate, outputs, bucket, created, index, stamp, wipKind } = previous;
  const { mask: changed, list: changedList } = changes;
  let wipActive = previous.wipActive;
  // changed candidates, whose rank keys may have changed with their items
  const moved: number[] = [];
  // list entries that may differ from the previous answer's (see listsAfterEdits)
  let edits: ListEdit[] | null = [];
  for (const v of changedList) {
    if (index.keep[v] === 0) {
      continue;
    }
    edits?.push({ v, from: isCandidate[v] === 1 ? bucket[v] : -1, stamp: stamp[v] });
    const item = items[v];
    wipActive += countsAsWip(item) - countsAsWip(previous.items[v]);
    isCandidate[v] = isCandidateItem(item) ? 1 : 0;
    if (isCandidate[v] === 1) {
      moved.push(v);
      created[v] = parseTimestamp(item.createdAt);
    } else {
      outputs[v] = undefined;
      stamp[v] = 0;
      wipKind[v] = 0;
    }
  }

  // dependents of re-evaluated edges, and items on a stuck cycle before or now
  const touched = previous.scratch.touched?.length === n ? previous.scratch.touched.fill(0) : new Uint8Array(n);
  resolution.resolveChanged(items, blockerFacts, changedList, isCandidate, touched);
  const cycles: number[][] = [];
  const run: RunFacts = { structure, resolution, cycleReason: stuckCycles(items, structure, resolution, cycles) };
  for (const reasons of [previous.cycleReason, run.cycleReason]) {
    reasons?.forEach((_reason, v) => (touched[v] = 1));
  }

  for (let v = 0; v < n; v++) {
    if (isCandidate[v] === 0 || (changed[v] === 0 && touched[v] === 0)) {
      continue;
    }
    const item = items[v];
    const before = changed[v] === 0 ? outputs[v] : undefined;
    const wasStamp = stamp[v];
    const wasBucket = bucket[v];
    if (before === undefined || !unchangedOutput(before, item, v, run)) {
      const output = toFrontierItem(item, v, run);
      outputs[v] = output;
      stamp[v] = nextStamp();
      wipKind[v] = wipClaim(output);
    }
    bucket[v] = bucketOf(item, v, run);
    // a touched item keeps its rank keys: its entry moves only if its output or bucket did
    if (edits !== null && changed[v] === 0 && (stamp[v] !== wasStamp || bucket[v] !== wasBucket)) {
      edits.push({ v, from: wasBucket, stamp: wasStamp });
    }
    if (edits !== null && edits.length > EDITS_IN_PLACE) {
      edits = null;
    }
  }

  // the previous order less the changed and former candidates is still in rank order
  const order = previous.order;
  let kept = 0;
  for (let k = 0; k < order.length; k++) {
    const v = order[k];
    if (changed[v] === 0) {
      order[kept++] = v;
    }
  }
  const rankFacts = { items, ids: index.ids, depth: structure.depth, unblocks: structure.unblocks, created };
  return {
    ...previous,
    items,
    wipActive,
    cycleReason: run.cycleReason,
    cycles,
    order: placeInOrder(order.subarray(0, kept), moved, rankFacts),
    edits: edits !== null && edits.length <= EDITS_IN_PLACE ? edits : null,
    scratch: { changed, touched, positions: previous.scratch.positions },
  };
}

// A run after edges came or went over the very same items (a dependency added or removed, issue 38): a new edge
// structure, the previous answers of the edges that stayed (EdgeResolution.resolveFrom), and only the outputs the
// change reached: the dependents of the edges added or removed or answered anew, the items whose unblocks_count or
// downstream_depth moved (those are placed again in the rank order: both are rank keys), and the members of a stuck
// cycle before or now. null, before anything is changed, when too many edges changed to be worth it.
function computeEdgesChanged(input: FrontierInput, previous: FrontierState): FrontierState | null {
  const { items, edges } = input;
  const n = items.length;
  const before = previous.structure;
  const oldEdges = before.edgeList;
  const oldOf = alignItems(edges, oldEdges);
  let stayed = 0;
  for (let e = 0; e < edges.length; e++) {
    if (oldOf[e] >= 0) stayed++;
  }
  if (edges.length - stayed + (oldEdges.length - stayed) > EDITS_IN_PLACE) {
    return null;
  }
  const { isCandidate, outputs, bucket, index, stamp, wipKind } = previous;
  const structure = new EdgeStructure(edges, index, n);
  const touched = previous.scratch.touched?.length === n ? previous.scratch.touched.fill(0) : new Uint8Array(n);
  const resolution = new EdgeResolution(structure, n, input.blockerFacts, previous.resolution.acceptForeignRuns);
  resolution.resolveFrom(previous.resolution, oldOf, items, isCandidate, touched);
  // the dependents of the edges that went
  const went = new Uint8Array(oldEdges.length).fill(1);
  for (let e = 0; e < edges.length; e++) {
    if (oldOf[e] >= 0) went[oldOf[e]] = 0;
  }
  for (let p = 0; p < oldEdges.length; p++) {
    if (went[p] === 1 && before.dependentOf[p] >= 0) touched[before.dependentOf[p]] = 1;
  }
  // candidates whose rank keys moved
  const rekeyed = new Uint8Array(n);
  const moved: number[] = [];
  for (let v = 0; v < n; v++) {
    if (structure.unblocks[v] !== before.unblocks[v] || structure.depth[v] !== before.depth[v]) {
      touched[v] = 1;
      if (isCandidate[v] === 1) {
        rekeyed[v] = 1;
        moved.push(v);
      }
    }
  }
  const cycles: number[][] = [];
  const run: RunFacts = { structure, resolution, cycleReason: stuckCycles(items, structure, resolution, cycles) };
  for (const reasons of [previous.cycleReason, run.cycleReason]) {
    reasons?.forEach((_reason, v) => (touched[v] = 1));
  }

  let edits: ListEdit[] | null = [];
  for (let v = 0; v < n; v++) {
    if (isCandidate[v] === 0 || touched[v] === 0) {
      continue;
    }
    const item = items[v];
    const wasStamp = stamp[v];
    const wasBucket = bucket[v];
    const was = outputs[v];
    if (was === undefined || !unchangedOutput(was, item, v, run)) {
      const output = toFrontierItem(item, v, run);
      outputs[v] = output;
      stamp[v] = nextStamp();
      wipKind[v] = wipClaim(output);
    }
    bucket[v] = bucketOf(item, v, run);
    if (edits !== null && (rekeyed[v] === 1 || stamp[v] !== wasStamp || bucket[v] !== wasBucket)) {
      edits.push({ v, from: wasBucket, stamp: wasStamp });
      if (edits.length > EDITS_IN_PLACE) {
        edits = null;
      }
    }
  }

  // the previous order less the candidates whose rank keys moved is still in rank order
  const order = previous.order;
  let kept = 0;
  for (let k = 0; k < order.length; k++) {
    const v = order[k];
    if (rekeyed[v] === 0) {
      order[kept++] = v;
    }
  }
  const rankFacts = {
    items,
    ids: index.ids,
    depth: structure.depth,
    unblocks: structure.unblocks,
    created: previous.created,
  };
  return {
    ...previous,
    items,
    structure,
    resolution,
    cycleReason: run.cycleReason,
    cycles,
    order: placeInOrder(order.subarray(0, kept), moved, rankFacts),
    edits,
    scratch: { changed: previous.scratch.changed, touched, positions: previous.scratch.positions },
  };
}

// The lists of this run: the previous ones patched when a write changed a few entries, else laid out from the rank
// order (also when the previous lists turn out not to match the memo: that is a defect, but never a wrong answer).
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

// Past this many changed list entries a run lays the lists out again from the rank order.
const EDITS_IN_PLACE = 256;

interface Lists {
  lists: FrontierItem[][];
  stamps: Float64Array[];
  positions: Int32Array[];
}

// Steps 7 and 8: the runnable, blocked and frozen lists in rank order (each allocated once, at its size).
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

// The indices (ascending) at which `wanted` stamps sit in a list's stamps; every one is there.
function indicesOfStamps(stamps: Float64Array, wanted: readonly number[]): number[] {
  const found: number[] = [];
  if (wanted.length === 0) {
    return found;
  }
  if (wanted.length === 1) {
    // the usual case, one entry: a plain scan
    const stamp = wanted[0];
    for (let i = 0; i < stamps.length; i++) {
      if (stamps[i] === stamp) {
        found.push(i);
        break;
      }
    }
  } else {
    const set = new Set(wanted);
    for (let i = 0; i < stamps.length && found.length < wanted.length; i++) {
      if (set.has(stamps[i])) {
        found.push(i);
      }
    }
  }
  if (found.length !== wanted.length) {
    throw new Error('computeFrontier: a previous list entry was not where the memo had it');
  }
  return found;
}

// The lists after a write that changed a few entries (state.edits): each list is the previous one with those entries
// taken out and the affected items of that bucket put back at their rank, copied in runs. Every other item kept its
// output object, bucket and rank keys, so the lists it leaves are still in rank order. A run thus reads the previous
// lists in sequence instead of every output by position in rank order (at 1M items, 8 MB arrays read in scattered
// order: 70-90 ms a run).
function listsAfterEdits(state: FrontierState, edits: readonly ListEdit[]): Lists {
  const { isCandidate, bucket, outputs, stamp, structure, index, created } = state;
  const facts: RankFacts = {
    items: state.items,
    ids: index.ids,
    depth: structure.depth,
    unblocks: structure.unblocks,
    created,
  };
  const out: Lists = { lists: [], stamps: [], positions: [] };
  for (let b = 0; b < 3; b++) {
    const wasItems = state.lists![b];
    const wasStamps = state.listStamps![b];
    const wasPositions = state.listPositions![b];
    const drop = indicesOfStamps(
      wasStamps,
      edits.filter((e) => e.from === b).map((e) => e.stamp),
    );
    const put = edits
      .filter((e) => isCandidate[e.v] === 1 && bucket[e.v] === b)
      .map((e) => e.v)
      .sort((x, y) => compareCandidates(x, y, facts));
    // the old index of the f-th entry left after the drops
    const oldIndex = (f: number): number => {
      let i = f;
      for (const d of drop) {
        if (d > i) {
          break;
        }
        i++;
      }
      return i;
    };
    const kept = wasItems.length - drop.length;
    // each put's new index: the kept entries ranked before it, and the puts before it
    const at = put.map((v, j) => {
      let low = 0;
      let high = kept;
      while (low < high) {
        const middle = (low + high) >>> 1;
        if (compareCandidates(wasPositions[oldIndex(middle)], v, facts) < 0) {
          low = middle + 1;
        } else {
          high = middle;
        }
      }
      return low + j;
    });
    const size = kept + put.length;
    const items = new Array<FrontierItem>(size);
    const stamps = new Float64Array(size);
    const spare = state.scratch.positions?.[b];
    const positions = spare !== undefined && spare.length >= size ? spare.subarray(0, size) : withRoom(size);
    let k = 0;
    let i = 0;
    let d = 0;
    // copies the next `count` kept entries
    const copy = (count: number): void => {
      while (count > 0) {
        while (d < drop.length && drop[d] === i) {
          d++;
          i++;
        }
        const stop = Math.min(d < drop.length ? drop[d] : wasItems.length, i + count);
        if (stop === i) {
          throw new Error('computeFrontier: a list ran out of entries to keep');
        }
        for (let x = i; x < stop; x++) {
          items[k + x - i] = wasItems[x];
        }
        stamps.set(wasStamps.subarray(i, stop), k);
        positions.set(wasPositions.subarray(i, stop), k);
        k += stop - i;
        count -= stop - i;
        i = stop;
      }
    };
    for (let p = 0; p < put.length; p++) {
      copy(at[p] - k);
      const v = put[p];
      items[k] = outputs[v] as FrontierItem;
      stamps[k] = stamp[v];
      positions[k] = v;
      k++;
    }
    copy(size - k);
    out.lists.push(items);
    out.stamps.push(stamps);
    out.positions.push(positions);
  }
  return out;
}

// With a memo (kept by the caller between runs over one project), unchanged output items are the previous objects
// and the ranking starts from the previous order; the answer is the same with or without it (see memo.ts).
export function computeFrontier(input: FrontierInput, memo?: FrontierMemo): FrontierComputation {
  const previous = memo?.take() ?? null;
  const changed =
    previous === null ? null : changedInPlace(input.items, previous.items, previous.index, previous.scratch.changed);
  // an update in place over the same edges and options
  const inPlace =
    previous !== null &&
    changed !== null &&
    previous.resolution.acceptForeignRuns === (input.acceptForeignRuns ?? false);
  // an update in place over the same edges; edges added or removed over the very same items; anything else
  const state =
    inPlace && previous.structure.describes(input.edges)
      ? computeChanged(input, previous, changed)
      : ((inPlace && changed.list.length === 0 ? computeEdgesChanged(input, previous) : null) ??
        computeAll(input, previous, changed));

  // Steps 7 and 8: reclassification (done in toFrontierItem) and partition in rank order, by patching the previous
  // lists after a small write; step 9, the WIP cap (applyWipCap's rule, read from wipKind instead of each item: at 1M
  // items those reads were a cache miss each).
  const wipCap = Number.isFinite(input.wipCap) ? Math.max(0, Math.floor(input.wipCap)) : DEFAULT_WIP_CAP;
  const remaining = Math.max(0, wipCap - state.wipActive);
  const positionsBefore = state.listPositions;
  const { lists, stamps, positions } = layOutLists(state);
  // the positions before these are read by no one now: the next run writes its own into them
  state.scratch = { ...state.scratch, positions: positionsBefore === null ? null : positionsBefore.map(roomBehind) };
  state.lists = lists;
  state.listStamps = stamps;
  state.listPositions = positions;
  state.edits = null;
  // step 9 over the runnable list, by each item's wipKind
  const eligible: FrontierItem[] = [];
  const eligibleStamps: number[] = [];
  const suppressed: FrontierItem[] = [];
  const admission = new WipAdmission(remaining);
  const { wipKind } = state;
  const runnablePositions = positions[RUNNABLE];
  for (let k = 0; k < runnablePositions.length; k++) {
    const verdict = admission.admit(wipKind[runnablePositions[k]]);
    if (verdict === ELIGIBLE) {
      eligible.push(lists[RUNNABLE][k]);
      eligibleStamps.push(stamps[RUNNABLE][k]);
    } else if (verdict === SUPPRESSED) {
      suppressed.push(lists[RUNNABLE][k]);
    }
  }
  const [runnable, blocked, frozen] = lists;
  const computation: FrontierComputation = {
    runnable,
    blocked,
    frozen,
    wip_cap: wipCap,
    wip_active: state.wipActive,
    conduct_eligible: eligible,
    wip_remaining: remaining,
    wip_suppressed: suppressed,
    cycles: state.cycles,
  };
  if (memo !== undefined) {
    recordListStamps(computation, {
      runnable: stamps[RUNNABLE],
      blocked: stamps[BLOCKED],
      frozen: stamps[FROZEN],
      conduct_eligible: Float64Array.from(eligibleStamps),
    });
  }
  memo?.keep(state);
  return computation;
}
