import { buildCompactGraph } from '../dependencies/cycles';
import { ParsedSatisfaction, parseSatisfaction } from '../dependencies/satisfaction';
import { acyclicDepth, downstreamDepth } from './depth';
import { ItemIndex, lookupIndex } from './item-index';
import { FrontierEdge } from './vocabulary';

// Depends only on the edge objects in order and the items' ids by position, so a run after a write that changed
// neither keeps it (steps 3 and 4 count satisfied edges too).
export class EdgeStructure {
  readonly blockerOf: Int32Array;
  readonly dependentOf: Int32Array;
  readonly formOf: Int32Array;
  readonly forms: ParsedSatisfaction[] = [];
  // a blocker slot per id, so its facts are looked up once per run however many edges it has
  readonly blockerSlot: Int32Array;
  readonly slotIds: Float64Array;
  readonly slotOfItem: Int32Array;
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

  constructor(
    private edges: readonly FrontierEdge[],
    private readonly index: ItemIndex,
    n: number,
  ) {
    const m = edges.length;
    const blockerOf = new Int32Array(m);
    const dependentOf = new Int32Array(m);
    const formOf = new Int32Array(m);
    const inStart = new Int32Array(n + 1);
    const unblocks = new Int32Array(n);
    const formIds = new Map<string, number>();
    const blockerSlot = new Int32Array(m).fill(-1);
    const slotOfItem = new Int32Array(n).fill(-1);
    // blockers outside the items by id: in a table beside the index's when it has one and the id fits it
    const outsideTable = index.table === null ? null : new Int32Array(index.table.length).fill(-1);
    const outsideMap = new Map<number, number>();
    const slotIds = new Float64Array(m);
    let slots = 0;
    let lastRaw: string | undefined;
    let formId = -1;
    for (let e = 0; e < m; e++) {
      const edge = edges[e];
      const d = lookupIndex(index, edge.dependent);
      const b = lookupIndex(index, edge.blocker);
      dependentOf[e] = d;
      blockerOf[e] = b;
      const raw = edge.satisfaction;
      if (raw !== lastRaw) {
        lastRaw = raw;
        formId = formIds.get(raw) ?? -1;
        if (formId === -1) {
          formId = this.forms.length;
          this.forms.push(parseSatisfaction(raw));
          formIds.set(raw, formId);
        }
      }
      formOf[e] = formId;
      if (d < 0) {
        continue;
      }
      const id = edge.blocker;
      const inTable = outsideTable !== null && (id | 0) === id && id >= 0 && id < outsideTable.length;
      let slot = b >= 0 ? slotOfItem[b] : inTable ? outsideTable[id] : (outsideMap.get(id) ?? -1);
      if (slot === -1) {
        slot = slots++;
        slotIds[slot] = id;
        if (b >= 0) {
          slotOfItem[b] = slot;
        } else if (inTable) {
          outsideTable[id] = slot;
        } else {
          outsideMap.set(id, slot);
        }
      }
      blockerSlot[e] = slot;
      inStart[d + 1]++;
      if (b >= 0 && b !== d) {
        unblocks[b]++;
      }
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
    const slotCount = slots;
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
    this.slotOfItem = slotOfItem;
    this.outStart = outStart;
    this.outEdges = outEdges;
    this.outsideTable = outsideTable;
    this.outsideMap = outsideMap;
    this.blockerOf = blockerOf;
    this.dependentOf = dependentOf;
    this.formOf = formOf;
    this.blockerSlot = blockerSlot;
    this.slotIds = slotIds.slice(0, slots);
    this.inStart = inStart;
    this.inEdges = inEdges;
    this.unblocks = unblocks;
    this.depth = new Int32Array(n);
    this.hasCycle = !acyclicDepth(unblocks, inStart, inEdges, blockerOf, this.depth);
    if (this.hasCycle) {
      const graphEdge = new Uint8Array(m);
      for (let e = 0; e < m; e++) {
        graphEdge[e] = dependentOf[e] >= 0 && blockerOf[e] >= 0 && blockerOf[e] !== dependentOf[e] ? 1 : 0;
      }
      this.depth.fill(0);
      downstreamDepth(buildCompactGraph(n, blockerOf, dependentOf, m, graphEdge), this.depth);
    }
  }

  get edgeList(): readonly FrontierEdge[] {
    return this.edges;
  }

  slotOfId(id: number): number {
    const b = lookupIndex(this.index, id);
    if (b >= 0) {
      return this.slotOfItem[b];
    }
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
