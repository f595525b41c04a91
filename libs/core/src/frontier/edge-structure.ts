import { buildCompactGraph } from '../dependencies/cycles';
import { ParsedSatisfaction, parseSatisfaction } from '../dependencies/satisfaction';
import { acyclicDepth, downstreamDepth } from './depth';
import { ItemIndex, lookupIndex } from './item-index';
import { FrontierEdge } from './vocabulary';

// The previous run's structure and, by edge now, the edge's position in it (-1: new). Only for a run in which every
// previous item is at the same position (new items after them). `appended`: every previous edge is at its position
// (edgeOldOf[e] === e), the new ones after them.
export interface CarriedEdges {
  structure: EdgeStructure;
  edgeOldOf: Int32Array;
  appended: boolean;
}

// Depends only on the edge objects in order and the items' ids by position, so a run after a write that changed
// neither keeps it (steps 3 and 4 count satisfied edges too).
export class EdgeStructure {
  readonly blockerOf: Int32Array;
  readonly dependentOf: Int32Array;
  readonly formOf: Int32Array;
  readonly forms: ParsedSatisfaction[];
  private readonly formIds: Map<string, number>;
  private lastRaw: string | undefined = undefined;
  private lastForm = -1;
  // a blocker slot per id, so its facts are looked up once per run however many edges it has
  readonly blockerSlot: Int32Array;
  readonly slotIds: Float64Array;
  private slots: number;
  readonly slotOfItem: Int32Array;
  // the structure this one carried its slots from, until the run's resolution asks (never kept: no chain of runs)
  private carriedFrom: EdgeStructure | null;
  // how many of its edges, as a prefix of this one's, the carried structure's lists and answers still describe; -1
  private extendedEdges = -1;
  // edges whose dependent is no item: a new item may be one of them, so only a structure without any is extended
  readonly unplacedDependents: number;
  // edges out of each slot, in edge order: outEdges[outStart[slot]] .. outEdges[outStart[slot + 1] - 1]
  readonly outStart: Int32Array;
  readonly outEdges: Int32Array;
  private readonly outsideTable: Int32Array | null;
  private readonly outsideMap: Map<number, number>;
  // edges into item v, in edge order: inEdges[inStart[v]] .. inEdges[inStart[v + 1] - 1]
  readonly inStart: Int32Array;
  readonly inEdges: Int32Array;
  readonly unblocks: Int32Array;
  readonly depth: Int32Array;
  readonly hasCycle: boolean;

  // With `carried` (the previous run's structure, each edge's position in it, and every previous item at the same
  // position now), an edge that stayed between two items keeps its ends, form and slot from the previous arrays, so a
  // write costs the typed passes below and its own edges' lookups, not a read of every edge object.
  constructor(
    private edges: readonly FrontierEdge[],
    private readonly index: ItemIndex,
    n: number,
    carried: CarriedEdges | null = null,
  ) {
    const m = edges.length;
    const blockerOf = new Int32Array(m);
    const dependentOf = new Int32Array(m);
    const formOf = new Int32Array(m);
    const blockerSlot = new Int32Array(m).fill(-1);
    const slotOfItem = new Int32Array(n).fill(-1);
    const before = carried?.structure ?? null;
    const table = index.table;
    const carries = before !== null && (table === null) === (before.outsideTable === null);
    // extended: only the new edges can name new slots
    const extending = carries && (carried as CarriedEdges).appended && this.extends(before, n);
    if (carries) {
      this.forms = before.forms.slice();
      this.formIds = new Map(before.formIds);
      this.slotIds = new Float64Array(before.slots + (extending ? m - before.blockerOf.length : m));
      this.slotIds.set(before.slotIds.subarray(0, before.slots));
      this.slots = before.slots;
      slotOfItem.set(before.slotOfItem.subarray(0, Math.min(n, before.slotOfItem.length)));
      this.outsideMap = new Map(before.outsideMap);
      if (table === null || before.outsideTable === null) {
        this.outsideTable = null;
      } else {
        this.outsideTable = new Int32Array(table.length).fill(-1);
        this.outsideTable.set(before.outsideTable.subarray(0, Math.min(table.length, before.outsideTable.length)));
        // a longer table now holds ids the map held: slotOfId looks in the table for those
        for (const [id, slot] of before.outsideMap) {
          if ((id | 0) === id && id >= 0 && id < table.length) {
            this.outsideTable[id] = slot;
            this.outsideMap.delete(id);
          }
        }
      }
      this.carriedFrom = before;
    } else {
      this.forms = [];
      this.formIds = new Map();
      this.slotIds = new Float64Array(m);
      this.slots = 0;
      // blockers outside the items by id: in a table beside the index's when it has one and the id fits it
      this.outsideTable = table === null ? null : new Int32Array(table.length).fill(-1);
      this.outsideMap = new Map();
      this.carriedFrom = null;
    }
    this.slotOfItem = slotOfItem;
    this.blockerOf = blockerOf;
    this.dependentOf = dependentOf;
    this.formOf = formOf;
    this.blockerSlot = blockerSlot;
    let replaced: Int32Array | null = null;
    if (extending) {
      // every previous edge where it was, with the same ends (no new item is one of its ends): its arrays copied, the
      // new edges looked up and put at the end of their items' and slots' lists
      const mOld = before.blockerOf.length;
      blockerOf.set(before.blockerOf);
      dependentOf.set(before.dependentOf);
      formOf.set(before.formOf);
      blockerSlot.set(before.blockerSlot);
      const added = new Int32Array(m - mOld);
      for (let e = mOld; e < m; e++) {
        this.place(e);
        added[e - mOld] = e;
      }
      const { ins, outs, unblocks, unplaced } = extendedLists(before, this, added, n, this.slots);
      this.inStart = ins.start;
      this.inEdges = ins.list;
      this.outStart = outs.start;
      this.outEdges = outs.list;
      this.unblocks = unblocks;
      this.unplacedDependents = unplaced;
      this.slotIds = this.slotIds.slice(0, this.slots);
      this.depth = new Int32Array(n);
      this.extendedEdges = mOld;
      const carriedDepth = !before.hasCycle && carryDepth(before, null, added, this, this.depth);
      if (!carriedDepth) this.depth.fill(0);
      this.hasCycle = carriedDepth ? false : !acyclicDepth(unblocks, ins.start, ins.list, blockerOf, this.depth);
      if (this.hasCycle) this.cycleDepth(n, m);
      return;
    }
    if (before !== null && this.carriedFrom === before) {
      const replace = carryEdges(
        before,
        index,
        (carried as CarriedEdges).edgeOldOf,
        dependentOf,
        blockerOf,
        formOf,
        blockerSlot,
      );
      for (let k = 0; k < replace.length; k++) this.place(replace[k]);
      replaced = replace;
    } else {
      for (let e = 0; e < m; e++) this.place(e);
    }

    const inStart = new Int32Array(n + 1);
    const unblocks = new Int32Array(n);
    let unplaced = 0;
    for (let e = 0; e < m; e++) {
      const d = dependentOf[e];
      if (d < 0) {
        unplaced++;
        continue;
      }
      inStart[d + 1]++;
      const b = blockerOf[e];
      if (b >= 0 && b !== d) unblocks[b]++;
    }
    for (let v = 0; v < n; v++) {
      inStart[v + 1] += inStart[v];
    }
    const inEdges = new Int32Array(inStart[n]);
    const cursor = inStart.slice(0, n);
    for (let e = 0; e < m; e++) {
      const d = dependentOf[e];
      if (d >= 0) {
        inEdges[cursor[d]++] = e;
      }
    }
    const slotCount = this.slots;
    const outStart = new Int32Array(slotCount + 1);
    for (let e = 0; e < m; e++) {
      if (blockerSlot[e] >= 0) outStart[blockerSlot[e] + 1]++;
    }
    for (let slot = 0; slot < slotCount; slot++) {
      outStart[slot + 1] += outStart[slot];
    }
    const outEdges = new Int32Array(outStart[slotCount]);
    const outCursor = outStart.slice(0, slotCount);
    for (let e = 0; e < m; e++) {
      if (blockerSlot[e] >= 0) outEdges[outCursor[blockerSlot[e]]++] = e;
    }
    this.outStart = outStart;
    this.outEdges = outEdges;
    this.slotIds = this.slotIds.slice(0, slotCount);
    this.inStart = inStart;
    this.inEdges = inEdges;
    this.unblocks = unblocks;
    this.unplacedDependents = unplaced;
    this.depth = new Int32Array(n);
    const carriedDepth =
      before !== null &&
      replaced !== null &&
      !before.hasCycle &&
      carryDepth(before, (carried as CarriedEdges).edgeOldOf, replaced, this, this.depth);
    if (!carriedDepth && replaced !== null) this.depth.fill(0);
    this.hasCycle = carriedDepth ? false : !acyclicDepth(unblocks, inStart, inEdges, blockerOf, this.depth);
    if (this.hasCycle) this.cycleDepth(n, m);
  }

  // Step 4 on a graph with a cycle: the longest chain below each item, a cycle's items counted once.
  private cycleDepth(n: number, m: number): void {
    const { blockerOf, dependentOf } = this;
    const graphEdge = new Uint8Array(m);
    for (let e = 0; e < m; e++) {
      graphEdge[e] = dependentOf[e] >= 0 && blockerOf[e] >= 0 && blockerOf[e] !== dependentOf[e] ? 1 : 0;
    }
    this.depth.fill(0);
    downstreamDepth(buildCompactGraph(n, blockerOf, dependentOf, m, graphEdge), this.depth);
  }

  // Whether the previous structure's edges keep their ends with the items now (the previous ones at their positions,
  // new ones after): none of them named a new item's id, as a dependent that was no item or as an outside blocker.
  private extends(before: EdgeStructure, n: number): boolean {
    const nOld = before.slotOfItem.length;
    if (n === nOld) return true;
    if (before.unplacedDependents > 0) return false;
    for (let v = nOld; v < n; v++) {
      if (before.outsideSlotOf(this.index.ids[v]) >= 0) return false;
    }
    return true;
  }

  // How many of `previous`'s edges (and their answers) this structure kept as its own first ones, its lists built
  // from `previous`'s; -1 when it did not. The run's resolution then starts from `previous`'s.
  edgesExtendedFrom(previous: EdgeStructure): number {
    return this.carriedFrom === previous ? this.extendedEdges : -1;
  }

  // How many of `previous`'s slots this structure carried (a slot below it names the same id in both), or -1.
  // Asked once, by the run that built this structure.
  slotsCarriedFrom(previous: EdgeStructure): number {
    const carried = this.carriedFrom;
    this.carriedFrom = null;
    return carried === previous ? previous.slots : -1;
  }

  // A carried structure keeps a slot whose edges all went (its id may come back), so a slot's number is the same in
  // every structure carried from the one that made it; past half of them unused, a fresh build compacts them.
  get worthCarrying(): boolean {
    let used = 0;
    for (let slot = 0; slot < this.slots; slot++) {
      if (this.outStart[slot + 1] !== this.outStart[slot]) used++;
    }
    return this.slots <= 2 * used + 64;
  }

  // One edge's ends, form and blocker slot, looked up.
  private place(e: number): void {
    const edge = this.edges[e];
    const d = lookupIndex(this.index, edge.dependent);
    const b = lookupIndex(this.index, edge.blocker);
    this.dependentOf[e] = d;
    this.blockerOf[e] = b;
    const raw = edge.satisfaction;
    // edges of one form come in runs: the last one's id is the usual answer
    if (raw !== this.lastRaw) {
      let formId = this.formIds.get(raw);
      if (formId === undefined) {
        formId = this.forms.length;
        this.forms.push(parseSatisfaction(raw));
        this.formIds.set(raw, formId);
      }
      this.lastRaw = raw;
      this.lastForm = formId;
    }
    this.formOf[e] = this.lastForm;
    if (d < 0) {
      return;
    }
    const id = edge.blocker;
    const table = this.outsideTable;
    const inTable = table !== null && (id | 0) === id && id >= 0 && id < table.length;
    let slot = b >= 0 ? this.slotOfItem[b] : inTable ? table[id] : (this.outsideMap.get(id) ?? -1);
    if (slot === -1) {
      slot = this.slots++;
      this.slotIds[slot] = id;
      if (b >= 0) {
        this.slotOfItem[b] = slot;
      } else if (inTable) {
        table[id] = slot;
      } else {
        this.outsideMap.set(id, slot);
      }
    }
    this.blockerSlot[e] = slot;
  }

  get edgeList(): readonly FrontierEdge[] {
    return this.edges;
  }

  slotOfId(id: number): number {
    const b = lookupIndex(this.index, id);
    if (b >= 0) {
      return this.slotOfItem[b];
    }
    return this.outsideSlotOf(id);
  }

  // The slot of a blocker that is no item, by id; -1.
  private outsideSlotOf(id: number): number {
    const table = this.outsideTable;
    if (table !== null && (id | 0) === id && id >= 0 && id < table.length) {
      return table[id];
    }
    return this.outsideMap.get(id) ?? -1;
  }

  // A caller may rebuild the array around unchanged edges; adopting it lets the next run compare the arrays alone.
  describes(edges: readonly FrontierEdge[]): boolean {
    if (edges === this.edges) {
      return true;
    }
    if (edges.length !== this.edges.length) {
      return false;
    }
    for (let e = 0; e < edges.length; e++) {
      if (edges[e] !== this.edges[e]) {
        return false;
      }
    }
    this.edges = edges;
    return true;
  }
}

// Step 4 after a carried reshape (every previous item at its position, new ones after, no cycle before): the previous
// depths, brought up to date from the blockers of the edges that went or came (or changed ends), then through the
// blockers of each item whose depth moved. An item's depth is recomputed from its dependents' (the longest chain
// below it), so on an acyclic graph the last recomputation of each item comes after its dependents' last change and
// the result is acyclicDepth's. false, depth partial, when the changes reach further than a computation from scratch
// would go (each item and each edge once): a new cycle keeps raising the depths around it.
function carryDepth(
  before: EdgeStructure,
  edgeOldOf: Int32Array | null,
  replaced: Int32Array,
  now: EdgeStructure,
  depth: Int32Array,
): boolean {
  const { blockerOf, dependentOf, inStart, inEdges, outStart, outEdges, slotOfItem } = now;
  const n = depth.length;
  depth.set(before.depth.subarray(0, Math.min(n, before.depth.length)));
  const queued = new Uint8Array(n);
  const queue: number[] = [];
  const mark = (v: number) => {
    if (v >= 0 && queued[v] === 0) {
      queued[v] = 1;
      queue.push(v);
    }
  };
  if (edgeOldOf !== null) {
    const kept = new Uint8Array(before.blockerOf.length);
    for (let e = 0; e < edgeOldOf.length; e++) {
      if (edgeOldOf[e] >= 0) kept[edgeOldOf[e]] = 1;
    }
    for (let p = 0; p < kept.length; p++) {
      if (kept[p] === 0) mark(before.blockerOf[p]);
    }
  }
  for (let k = 0; k < replaced.length; k++) {
    const e = replaced[k];
    mark(blockerOf[e]);
    if (edgeOldOf !== null && edgeOldOf[e] >= 0) mark(before.blockerOf[edgeOldOf[e]]);
  }
  let budget = n + blockerOf.length;
  for (let head = 0; head < queue.length; head++) {
    if (--budget < 0) return false;
    const x = queue[head];
    queued[x] = 0;
    let best = 0;
    const slot = slotOfItem[x];
    if (slot >= 0) {
      for (let k = outStart[slot]; k < outStart[slot + 1]; k++) {
        const d = dependentOf[outEdges[k]];
        if (d >= 0 && d !== x && depth[d] + 1 > best) best = depth[d] + 1;
      }
    }
    if (best !== depth[x]) {
      depth[x] = best;
      for (let k = inStart[x]; k < inStart[x + 1]; k++) {
        const b = blockerOf[inEdges[k]];
        if (b !== x) mark(b);
      }
    }
  }
  return true;
}

// The ends, form and slot of each edge that stayed, from the previous arrays; the edges left to look up (new ones, and
// those whose dependent was no item or whose outside blocker is an item now), in order.
function carryEdges(
  old: EdgeStructure,
  index: ItemIndex,
  oldOf: Int32Array,
  dependentOf: Int32Array,
  blockerOf: Int32Array,
  formOf: Int32Array,
  blockerSlot: Int32Array,
): Int32Array {
  const { dependentOf: oldDependent, blockerOf: oldBlocker, formOf: oldForm, blockerSlot: oldSlot, slotIds } = old;
  const replace = new Int32Array(oldOf.length);
  let count = 0;
  for (let e = 0; e < oldOf.length; e++) {
    const p = oldOf[e];
    // an outside blocker stays one unless its id is among the items now (an item that came back)
    if (p >= 0 && oldDependent[p] >= 0 && (oldBlocker[p] >= 0 || lookupIndex(index, slotIds[oldSlot[p]]) < 0)) {
      dependentOf[e] = oldDependent[p];
      blockerOf[e] = oldBlocker[p];
      formOf[e] = oldForm[p];
      blockerSlot[e] = oldSlot[p];
    } else {
      replace[count++] = e;
    }
  }
  return replace.subarray(0, count);
}

// The lists of `before` (edges into each item, out of each slot), each item's unblocks count and the edges whose
// dependent is no item, after `added` (edges after all of `before`'s, their ends and slots in `now`'s arrays).
function extendedLists(
  before: EdgeStructure,
  now: EdgeStructure,
  added: Int32Array,
  n: number,
  slots: number,
): {
  ins: { start: Int32Array; list: Int32Array };
  outs: { start: Int32Array; list: Int32Array };
  unblocks: Int32Array;
  unplaced: number;
} {
  const { blockerOf, dependentOf, blockerSlot } = now;
  const unblocks = new Int32Array(n);
  unblocks.set(before.unblocks);
  let unplaced = before.unplacedDependents;
  const into: number[] = [];
  for (const e of added) {
    const d = dependentOf[e];
    if (d < 0) {
      unplaced++;
      continue;
    }
    into.push(e);
    const b = blockerOf[e];
    if (b >= 0 && b !== d) unblocks[b]++;
  }
  const out = into.slice();
  into.sort((x, y) => dependentOf[x] - dependentOf[y] || x - y);
  out.sort((x, y) => blockerSlot[x] - blockerSlot[y] || x - y);
  return {
    ins: extendLists(before.inStart, before.inEdges, n, into, dependentOf),
    outs: extendLists(before.outStart, before.outEdges, slots, out, blockerSlot),
    unblocks,
    unplaced,
  };
}

// A list per key (an item's edges in, a slot's edges out) after `added` (new edges, after every previous one, ordered
// by key then edge) joined the previous lists: each goes at the end of its key's list, as edge order puts it. Copies
// the previous list in runs; `size` keys now, the previous ones first.
function extendLists(
  oldStart: Int32Array,
  oldList: Int32Array,
  size: number,
  added: readonly number[],
  keyOf: Int32Array,
): { start: Int32Array; list: Int32Array } {
  const oldSize = oldStart.length - 1;
  const oldTotal = oldStart[oldSize];
  const start = new Int32Array(size + 1);
  start.set(oldStart);
  start.fill(oldTotal, oldSize + 1);
  const list = new Int32Array(oldTotal + added.length);
  let from = 0;
  let to = 0;
  for (let k = 0; k < added.length; k++) {
    const key = keyOf[added[k]];
    const end = key < oldSize ? oldStart[key + 1] : oldTotal;
    list.set(oldList.subarray(from, end), to);
    to += end - from;
    from = end;
    list[to++] = added[k];
  }
  list.set(oldList.subarray(from), to);
  // a key's list starts after every added edge of a key below it
  if (added.length > 0) {
    let k = 0;
    for (let v = keyOf[added[0]] + 1; v <= size; v++) {
      while (k < added.length && keyOf[added[k]] < v) k++;
      start[v] += k;
    }
  }
  return { start, list };
}
