import { EdgeResolution } from './edge-resolution';
import { EdgeStructure } from './edge-structure';
import { ChangedPositions, indexItems, ItemIndex, lookupIndex, patchedSince } from './item-index';
import { withRoom } from './position-buffers';
import { compareCandidates, placeInOrder, RankFacts } from './ranking';
import { FrontierInput, FrontierInputItem, FrontierItem } from './vocabulary';
import { wipKindOf } from './wip';
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

// Invariant: each run gives the answer computeAll would (reference-frontier.spec.ts checks both).

export const EDITS_IN_PLACE = 256;

export interface Lists {
  lists: FrontierItem[][];
  stamps: Float64Array[];
  positions: Int32Array[];
}

// After in-place updates over the same edges: only the changed positions and the outputs they reach.
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
  const moved: number[] = [];
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

  const touched = previous.scratch.touched?.length === n ? previous.scratch.touched.fill(0) : new Uint8Array(n);
  resolution.resolveChanged(items, blockerFacts, changedList, isCandidate, touched);
  const cycles: number[][] = [];
  const run: RunFacts = { structure, resolution, cycleReason: stuckCycles(items, structure, resolution, cycles) };
  for (const reasons of [previous.cycleReason, run.cycleReason]) {
    reasons?.forEach((_reason, v) => (touched[v] = 1));
  }

  // the changed positions, then the touched ones found a word of the mask at a time (at 1M items a loop over every
  // position took 4.5 ms a write, for the few a write reaches)
  const reached = markedPositions(touched, changed, changedList);
  for (let r = 0; r < reached.length; r++) {
    const v = reached[r];
    if (isCandidate[v] === 0) {
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
      wipKind[v] = wipKindOf(output);
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
  const kept = removeMarked(order, changed, changedList);
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

// The positions in `list` (each marked in `mask`), then every other position marked in `touched`, in order: the mask
// read a 32-bit word at a time, so a run over a million positions that reach a few costs a quarter of the reads.
function markedPositions(touched: Uint8Array, mask: Uint8Array, list: readonly number[]): number[] {
  const out = list.slice();
  const n = touched.length;
  let v = 0;
  if (touched.byteOffset % 4 === 0) {
    const words = new Uint32Array(touched.buffer, touched.byteOffset, n >>> 2);
    for (let w = 0; w < words.length; w++) {
      if (words[w] === 0) continue;
      for (let b = w << 2; b < (w << 2) + 4; b++) if (touched[b] !== 0 && mask[b] === 0) out.push(b);
    }
    v = words.length << 2;
  }
  for (; v < n; v++) if (touched[v] !== 0 && mask[v] === 0) out.push(v);
  return out;
}

// Takes the positions marked in `mask` (listed in `list`) out of `order`, keeping the rest in order; the new length.
// A few are found by indexOf and the runs between them moved down (at 1M items a pass over every entry took 3.3 ms).
const FIND_AT_MOST = 8;

function removeMarked(order: Int32Array, mask: Uint8Array, list: readonly number[]): number {
  if (list.length > FIND_AT_MOST) {
    let kept = 0;
    for (let k = 0; k < order.length; k++) {
      const v = order[k];
      if (mask[v] === 0) order[kept++] = v;
    }
    return kept;
  }
  const at: number[] = [];
  for (const v of list) {
    const k = order.indexOf(v);
    if (k >= 0) at.push(k);
  }
  at.sort((a, b) => a - b);
  let write = at.length > 0 ? at[0] : order.length;
  for (let j = 0; j < at.length; j++) {
    const to = j + 1 < at.length ? at[j + 1] : order.length;
    order.copyWithin(write, at[j] + 1, to);
    write += to - at[j] - 1;
  }
  return write;
}

interface Reshape {
  index: ItemIndex;
  // null: every position is the previous one's
  oldOf: Int32Array | null;
  // null: every previous position is the same one now (items may have come after them)
  newOf: Int32Array | null;
  changed: number[];
  mask: Uint8Array;
}

// null when an id repeats: a later duplicate is no item, so its position would not say which previous one it is.
function reshape(
  items: readonly FrontierInputItem[],
  previous: FrontierState,
  inPlace: ChangedPositions | null,
): Reshape | null {
  if (inPlace !== null) {
    return { index: previous.index, oldOf: null, newOf: null, changed: inPlace.list, mask: inPlace.mask };
  }
  if (previous.index.keep.includes(0)) {
    return null;
  }
  const grown = grownAtEnd(items, previous);
  if (grown !== undefined) {
    return grown;
  }
  const n = items.length;
  const index = indexItems(items);
  if (index.keep.includes(0)) {
    return null;
  }
  const oldOf = new Int32Array(n);
  let newOf: Int32Array | null = new Int32Array(previous.items.length).fill(-1);
  const mask = new Uint8Array(n);
  const changed: number[] = [];
  for (let v = 0; v < n; v++) {
    const p = lookupIndex(previous.index, index.ids[v]);
    oldOf[v] = p;
    if (p >= 0) {
      newOf[p] = v;
    }
    if (p < 0 || items[v] !== previous.items[p]) {
      mask[v] = 1;
      changed.push(v);
    }
  }
  let moved = false;
  for (let p = 0; p < newOf.length && !moved; p++) moved = newOf[p] !== p;
  if (!moved) newOf = null;
  return { index, oldOf, newOf, changed, mask };
}

// The usual reshape after new items (the graph cache grows its arrays at their ends): every previous id at its
// position, the new ones after. The index is the previous one extended, as indexItems would build it. undefined: not
// this shape (or ids a table does not hold); null: a new id repeats one.
function grownAtEnd(items: readonly FrontierInputItem[], previous: FrontierState): Reshape | null | undefined {
  const n = items.length;
  const before = previous.items;
  const prevN = before.length;
  const { ids: prevIds, table: prevTable } = previous.index;
  if (n < prevN || prevTable === null) {
    return undefined;
  }
  // recorded patches and growths (the graph cache's) name the positions that changed: no comparison of the rest
  const patched = patchedSince(items, before);
  for (let v = 0; patched === null && v < prevN; v++) {
    if (items[v] !== before[v] && items[v].id !== prevIds[v]) {
      return undefined;
    }
  }
  let max = prevTable.length - 1;
  for (let v = prevN; v < n; v++) {
    const id = items[v].id;
    if ((id | 0) !== id || id < 0) {
      return undefined;
    }
    if (id > max) max = id;
  }
  if (max >= n * 4 + 65536) {
    return undefined;
  }
  const ids = new Float64Array(n);
  ids.set(prevIds);
  const table = new Int32Array(max + 1).fill(-1);
  table.set(prevTable);
  const mask = new Uint8Array(n);
  const changed: number[] = [];
  const oldOf = new Int32Array(n).fill(-1);
  for (let v = 0; v < prevN; v++) oldOf[v] = v;
  if (patched === null) {
    for (let v = 0; v < prevN; v++) {
      if (items[v] !== before[v]) {
        mask[v] = 1;
        changed.push(v);
      }
    }
  } else {
    for (const v of patched) {
      if (v >= 0 && v < prevN && mask[v] === 0 && items[v] !== before[v]) {
        mask[v] = 1;
        changed.push(v);
      }
    }
    changed.sort((a, b) => a - b);
  }
  for (let v = prevN; v < n; v++) {
    const id = items[v].id;
    if (table[id] !== -1) {
      return null;
    }
    table[id] = v;
    ids[v] = id;
    mask[v] = 1;
    changed.push(v);
  }
  const index = { ids, keep: new Uint8Array(n).fill(1), table, map: null };
  return { index, oldOf, newOf: null, changed, mask };
}

// Edges that stayed keep their answers; only outputs the change reached are rebuilt. null, before anything is
// changed, when ids repeat or too many edges changed to be worth it.
export function computeReshaped(
  input: FrontierInput,
  previous: FrontierState,
  inPlace: ChangedPositions | null,
): FrontierState | null {
  const { items, edges } = input;
  const n = items.length;
  const before = previous.structure;
  const oldEdges = before.edgeList;
  const edgeOldOf = alignItems(edges, oldEdges);
  let stayed = 0;
  for (let e = 0; e < edges.length; e++) {
    if (edgeOldOf[e] >= 0) stayed++;
  }
  if (edges.length - stayed + (oldEdges.length - stayed) > EDITS_IN_PLACE) {
    return null;
  }
  const shape = reshape(items, previous, inPlace);
  if (shape === null) {
    return null;
  }
  const { index, oldOf, newOf, changed: changedList, mask: changed } = shape;
  const now = (p: number): number => (p < 0 || newOf === null ? p : newOf[p]);

  let { isCandidate, outputs, bucket, created, stamp, wipKind } = previous;
  if (oldOf !== null && newOf === null) {
    // every previous position kept: the arrays extended for the items after them (the run owns the previous state)
    const grow = <T extends Uint8Array | Float64Array>(array: T, make: (size: number) => T): T => {
      if (array.length === n) return array;
      const grown = make(n);
      grown.set(array);
      return grown;
    };
    isCandidate = grow(isCandidate, (size) => new Uint8Array(size));
    bucket = grow(bucket, (size) => new Uint8Array(size));
    created = grow(created, (size) => new Float64Array(size));
    stamp = grow(stamp, (size) => new Float64Array(size));
    wipKind = grow(wipKind, (size) => new Uint8Array(size));
    for (let v = outputs.length; v < n; v++) outputs.push(undefined);
  } else if (oldOf !== null) {
    isCandidate = new Uint8Array(n);
    bucket = new Uint8Array(n);
    created = new Float64Array(n);
    stamp = new Float64Array(n);
    wipKind = new Uint8Array(n);
    // pushed, not `new Array(n)`: a long array made by length alone gets dictionary elements
    outputs = [];
    let v = 0;
    while (v < n) {
      const from = oldOf[v];
      if (from < 0) {
        outputs.push(undefined);
        v++;
        continue;
      }
      let end = v + 1;
      while (end < n && oldOf[end] === from + end - v) end++;
      const to = from + end - v;
      isCandidate.set(previous.isCandidate.subarray(from, to), v);
      bucket.set(previous.bucket.subarray(from, to), v);
      created.set(previous.created.subarray(from, to), v);
      stamp.set(previous.stamp.subarray(from, to), v);
      wipKind.set(previous.wipKind.subarray(from, to), v);
      for (let p = from; p < to; p++) outputs.push(previous.outputs[p]);
      v = end;
    }
  }
  let wipActive = previous.wipActive;
  // see listsAfterEdits; a gone item's entry has no position
  let edits: ListEdit[] | null = [];
  if (newOf !== null) {
    for (let p = 0; p < newOf.length; p++) {
      if (newOf[p] === -1) {
        wipActive -= countsAsWip(previous.items[p]);
        if (previous.isCandidate[p] === 1) {
          edits.push({ v: -1, from: previous.bucket[p], stamp: previous.stamp[p] });
        }
      }
    }
  }
  const moved: number[] = [];
  for (const v of changedList) {
    if (index.keep[v] === 0) {
      continue;
    }
    edits.push({ v, from: isCandidate[v] === 1 ? bucket[v] : -1, stamp: stamp[v] });
    const item = items[v];
    const p = oldOf === null ? v : oldOf[v];
    wipActive += countsAsWip(item) - (p >= 0 ? countsAsWip(previous.items[p]) : 0);
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

  const carries = newOf === null && before.worthCarrying;
  // every previous edge at its position, the new ones after (a new dependency, or none: new items)
  let appended = carries && stayed === oldEdges.length;
  for (let e = 0; appended && e < oldEdges.length; e++) appended = edgeOldOf[e] === e;
  const carried = carries ? { structure: before, edgeOldOf, appended } : null;
  const structure = new EdgeStructure(edges, index, n, carried);
  const touched = previous.scratch.touched?.length === n ? previous.scratch.touched.fill(0) : new Uint8Array(n);
  const keptEdges = structure.edgesExtendedFrom(before);
  const { acceptForeignRuns } = previous.resolution;
  let resolution: EdgeResolution;
  if (keptEdges >= 0) {
    resolution = new EdgeResolution(structure, n, input.blockerFacts, acceptForeignRuns, previous.resolution);
    resolution.resolveExtended(previous.resolution, keptEdges, items, isCandidate, touched);
  } else {
    resolution = new EdgeResolution(structure, n, input.blockerFacts, acceptForeignRuns);
    resolution.resolveFrom(previous.resolution, edgeOldOf, items, isCandidate, touched, newOf);
  }
  resolution.resolveChanged(items, input.blockerFacts, changedList, isCandidate, touched);
  // a gone edge's dependent is touched (none went when every previous edge stayed)
  if (stayed < oldEdges.length) {
    const went = new Uint8Array(oldEdges.length).fill(1);
    for (let e = 0; e < edges.length; e++) {
      if (edgeOldOf[e] >= 0) went[edgeOldOf[e]] = 0;
    }
    for (let p = 0; p < oldEdges.length; p++) {
      const d = went[p] === 1 ? now(before.dependentOf[p]) : -1;
      if (d >= 0) touched[d] = 1;
    }
  }
  const rekeyed = new Uint8Array(n);
  for (let v = 0; v < n; v++) {
    const p = oldOf === null ? v : oldOf[v];
    if (p >= 0 && (structure.unblocks[v] !== before.unblocks[p] || structure.depth[v] !== before.depth[p])) {
      touched[v] = 1;
      if (isCandidate[v] === 1 && changed[v] === 0) {
        rekeyed[v] = 1;
        moved.push(v);
      }
    }
  }
  const cycles: number[][] = [];
  const run: RunFacts = { structure, resolution, cycleReason: stuckCycles(items, structure, resolution, cycles) };
  previous.cycleReason?.forEach((_reason, p) => {
    const v = now(p);
    if (v >= 0) touched[v] = 1;
  });
  run.cycleReason?.forEach((_reason, v) => (touched[v] = 1));

  for (let v = 0; v < n; v++) {
    if (isCandidate[v] === 0 || (changed[v] === 0 && touched[v] === 0)) {
      continue;
    }
    const item = items[v];
    const wasStamp = stamp[v];
    const wasBucket = bucket[v];
    const was = changed[v] === 0 ? outputs[v] : undefined;
    if (was === undefined || !unchangedOutput(was, item, v, run)) {
      const output = toFrontierItem(item, v, run);
      outputs[v] = output;
      stamp[v] = nextStamp();
      wipKind[v] = wipKindOf(output);
    }
    bucket[v] = bucketOf(item, v, run);
    // a changed item's entry is listed above; an unchanged one moves only if its rank keys, output or bucket did
    if (edits !== null && changed[v] === 0 && (rekeyed[v] === 1 || stamp[v] !== wasStamp || bucket[v] !== wasBucket)) {
      edits.push({ v, from: wasBucket, stamp: wasStamp });
    }
    if (edits !== null && edits.length > EDITS_IN_PLACE) {
      edits = null;
    }
  }

  // the previous order, at the positions now, less the gone, changed and rekeyed candidates, is still in rank order
  const order = previous.order;
  let kept = 0;
  for (let k = 0; k < order.length; k++) {
    const v = now(order[k]);
    if (v >= 0 && changed[v] === 0 && rekeyed[v] === 0) {
      order[kept++] = v;
    }
  }
  const rankFacts = { items, ids: index.ids, depth: structure.depth, unblocks: structure.unblocks, created };
  return {
    ...previous,
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
    order: placeInOrder(order.subarray(0, kept), moved, rankFacts),
    listPositions:
      newOf === null ? previous.listPositions : (previous.listPositions?.map((list) => list.map(now)) ?? null),
    edits: edits !== null && edits.length <= EDITS_IN_PLACE ? edits : null,
    scratch: { changed, touched, positions: previous.scratch.positions },
  };
}

function indicesOfStamps(stamps: Float64Array, wanted: readonly number[]): number[] {
  const found: number[] = [];
  if (wanted.length === 0) {
    return found;
  }
  if (wanted.length === 1) {
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

// Every item not in state.edits kept its output, bucket and rank keys, so the previous lists stay in rank order
// less the edits: reading them in sequence avoids a cache miss per output that a rank-order walk would cost.
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
      .filter((e) => e.v >= 0 && isCandidate[e.v] === 1 && bucket[e.v] === b)
      .map((e) => e.v)
      .sort((x, y) => compareCandidates(x, y, facts));
    if (drop.length === 0 && put.length === 0) {
      // no edit reached this list: the previous one is this one (lists are never changed once laid out)
      out.lists.push(wasItems as FrontierItem[]);
      out.stamps.push(wasStamps);
      out.positions.push(wasPositions);
      continue;
    }
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
    const positions = spare != null && spare.length >= size ? spare.subarray(0, size) : withRoom(size);
    let k = 0;
    let i = 0;
    let d = 0;
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
