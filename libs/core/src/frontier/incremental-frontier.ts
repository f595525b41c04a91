import { EdgeResolution } from './edge-resolution';
import { EdgeStructure } from './edge-structure';
import { ChangedPositions } from './item-index';
import { withRoom } from './position-buffers';
import { compareCandidates, placeInOrder, RankFacts } from './ranking';
import { FrontierInput, FrontierItem } from './vocabulary';
import { wipClaim } from './wip';
import { nextStamp } from './stamps';
import { alignItems, FrontierState, ListEdit } from './memo';
import { parseTimestamp } from './timestamps';
import {
  bucketOf,
  countsAsWip,
  isCandidateItem,
  RunFacts,
  stuckCycles,
  toFrontierItem,
  unchangedOutput,
} from './frontier-items';

// The runs that bring the previous state up to date instead of computing every step again: after items were updated
// in place, after edges came or went over the same items, and the lists patched after a small write. Each gives the
// answer computeAll would (reference-frontier.spec.ts checks both against the reference).

// Past this many changed list entries a run lays the lists out again from the rank order.
export const EDITS_IN_PLACE = 256;

export interface Lists {
  lists: FrontierItem[][];
  stamps: Float64Array[];
  positions: Int32Array[];
}

// A run after items were updated in place, over the same edges: the previous state brought up to date at the changed
// positions and the outputs they reach (through their edges or a stuck cycle).
export function computeChanged(
  input: FrontierInput,
  previous: FrontierState,
  changes: ChangedPositions,
): FrontierState {
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

// A run after edges came or went over the very same items (a dependency added or removed): a new edge
// structure, the previous answers of the edges that stayed (EdgeResolution.resolveFrom), and only the outputs the
// change reached: the dependents of the edges added or removed or answered anew, the items whose unblocks_count or
// downstream_depth moved (those are placed again in the rank order: both are rank keys), and the members of a stuck
// cycle before or now. null, before anything is changed, when too many edges changed to be worth it.
export function computeEdgesChanged(input: FrontierInput, previous: FrontierState): FrontierState | null {
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
export function listsAfterEdits(state: FrontierState, edits: readonly ListEdit[]): Lists {
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
