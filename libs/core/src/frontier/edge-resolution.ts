import {
  BlockerFacts,
  isSatisfied,
  ParsedSatisfaction,
  parseSatisfaction,
  SatisfactionOptions,
  satisfactionReason,
  satisfactionReasonTail,
} from '../dependencies/satisfaction';
import { FrontierEdge, FrontierInputItem } from './vocabulary';

// Step 2: hard-block resolution. Edge endpoints become item positions, each edge's satisfaction is evaluated once
// per blocker and form, and the unsatisfied edges are grouped by dependent.
export interface ItemIndex {
  ids: Float64Array;
  // 0 = a later duplicate of an earlier id; the first occurrence wins
  keep: Uint8Array;
  table: Int32Array | null;
  map: Map<number, number> | null;
}

// Dense ids (the usual serial keys) index a typed array; sparse or odd ids fall back to a Map.
export function indexItems(items: readonly FrontierInputItem[]): ItemIndex {
  const n = items.length;
  const ids = new Float64Array(n);
  const keep = new Uint8Array(n).fill(1);
  let max = -1;
  let dense = true;
  for (let v = 0; v < n; v++) {
    const id = items[v].id;
    ids[v] = id;
    if ((id | 0) !== id || id < 0) {
      dense = false;
    } else if (id > max) {
      max = id;
    }
  }
  if (dense && max < n * 4 + 65536) {
    const table = new Int32Array(max + 1).fill(-1);
    for (let v = 0; v < n; v++) {
      const id = ids[v];
      if (table[id] === -1) {
        table[id] = v;
      } else {
        keep[v] = 0;
      }
    }
    return { ids, keep, table, map: null };
  }
  const map = new Map<number, number>();
  for (let v = 0; v < n; v++) {
    if (map.has(ids[v])) {
      keep[v] = 0;
    } else {
      map.set(ids[v], v);
    }
  }
  return { ids, keep, table: null, map };
}

export function lookupIndex(index: ItemIndex, id: number): number {
  const table = index.table;
  if (table !== null) {
    return (id | 0) === id && id >= 0 && id < table.length ? table[id] : -1;
  }
  return (index.map as Map<number, number>).get(id) ?? -1;
}

// Per-call state of the edge resolution: edge endpoints as item positions (-1 = not an input item), the
// parsed form of each edge, which edges are unsatisfied, and per-blocker memos so each blocker's facts are
// fetched, evaluated and explained once per form rather than once per edge.
export class EdgeResolution {
  readonly blockerOf: Int32Array;
  readonly dependentOf: Int32Array;
  readonly unsatisfied: Uint8Array;
  readonly graphEdge: Uint8Array;
  readonly unsatisfiedCount: Int32Array;
  readonly unblocks: Int32Array;
  readonly selfLoop: Uint8Array;
  // reason of each unsatisfied edge into a candidate, as an index into reasonText; -1 otherwise
  readonly reasonOf: Int32Array;
  readonly reasonText: string[] = [];
  unsatisfiedTotal = 0;
  anySelfLoop = false;

  private readonly forms: ParsedSatisfaction[] = [];
  private readonly formIds = new Map<string, number>();
  private readonly satisfiedForm: Int32Array;
  private readonly satisfiedMemo: Uint8Array;
  private readonly reasonForm: Int32Array;
  private readonly reasonSlot: Int32Array;
  // per form: stage order (shared by every item of a workflow version) → blocker status → reason tail
  private readonly tailCache: (Map<readonly string[] | undefined, Map<string, string>> | undefined)[] = [];
  private readonly options: SatisfactionOptions;

  constructor(
    private readonly items: readonly FrontierInputItem[],
    private readonly edges: readonly FrontierEdge[],
    private readonly blockerFacts: ReadonlyMap<number, BlockerFacts>,
    acceptForeignRuns: boolean,
  ) {
    const n = items.length;
    const m = edges.length;
    this.options = { acceptForeignRuns };
    this.blockerOf = new Int32Array(m);
    this.dependentOf = new Int32Array(m);
    this.unsatisfied = new Uint8Array(m);
    this.graphEdge = new Uint8Array(m);
    this.reasonOf = new Int32Array(m).fill(-1);
    this.unsatisfiedCount = new Int32Array(n);
    this.unblocks = new Int32Array(n);
    this.selfLoop = new Uint8Array(n);
    this.satisfiedForm = new Int32Array(n).fill(-1);
    this.satisfiedMemo = new Uint8Array(n);
    this.reasonForm = new Int32Array(n).fill(-1);
    this.reasonSlot = new Int32Array(n);
  }

  // Steps 2 and 3: satisfaction of every edge, its reason when it blocks a candidate, and unblocks_count, in
  // one pass, so each blocker's facts are read while they are at hand.
  resolve(index: ItemIndex, isCandidate: Uint8Array): void {
    const { edges, blockerOf, dependentOf, unsatisfied, graphEdge, unsatisfiedCount, unblocks } = this;
    let lastRaw: string | undefined;
    let formId = -1;
    for (let e = 0; e < edges.length; e++) {
      const edge = edges[e];
      const d = lookupIndex(index, edge.dependent);
      const b = lookupIndex(index, edge.blocker);
      dependentOf[e] = d;
      blockerOf[e] = b;
      if (d < 0) {
        continue;
      }
      const raw = edge.satisfaction;
      if (raw !== lastRaw) {
        lastRaw = raw;
        formId = this.formId(raw);
      }
      let facts: BlockerFacts | undefined;
      let satisfied: boolean;
      if (b >= 0 && this.satisfiedForm[b] === formId) {
        satisfied = this.satisfiedMemo[b] === 1;
      } else {
        facts = this.blockerFacts.get(edge.blocker);
        satisfied = isSatisfied(this.forms[formId], facts, this.options);
        if (b >= 0) {
          this.satisfiedForm[b] = formId;
          this.satisfiedMemo[b] = satisfied ? 1 : 0;
        }
      }
      if (!satisfied) {
        unsatisfied[e] = 1;
        unsatisfiedCount[d]++;
        this.unsatisfiedTotal++;
        if (b === d) {
          this.selfLoop[d] = 1;
          this.anySelfLoop = true;
        }
        if (isCandidate[d] === 1) {
          this.reasonOf[e] = this.reasonSlotFor(edge.blocker, b, formId, facts);
        }
      }
      if (b >= 0 && b !== d) {
        graphEdge[e] = 1;
        unblocks[b]++;
      }
    }
  }

  private formId(raw: string): number {
    let id = this.formIds.get(raw);
    if (id === undefined) {
      id = this.forms.length;
      this.forms.push(parseSatisfaction(raw));
      this.formIds.set(raw, id);
    }
    return id;
  }

  // Reason texts are append-only; the memo keeps the latest slot of each blocker. Tails that depend only on
  // (form, status) are shared across blockers, so most reasons cost one concatenation.
  private reasonSlotFor(blockerId: number, b: number, formId: number, known: BlockerFacts | undefined): number {
    if (b >= 0 && this.reasonForm[b] === formId) {
      return this.reasonSlot[b];
    }
    const facts = known ?? this.blockerFacts.get(blockerId);
    const form = this.forms[formId];
    let reason: string;
    if (facts && facts.status !== null && (form.kind === 'status' || form.kind === 'merged')) {
      let byOrder = this.tailCache[formId];
      if (byOrder === undefined) {
        byOrder = new Map();
        this.tailCache[formId] = byOrder;
      }
      let tails = byOrder.get(facts.stageOrder);
      if (tails === undefined) {
        tails = new Map();
        byOrder.set(facts.stageOrder, tails);
      }
      let tail = tails.get(facts.status);
      if (tail === undefined) {
        tail = satisfactionReasonTail(form, facts, this.options);
        tails.set(facts.status, tail);
      }
      reason = (facts.ref ?? (b >= 0 ? this.items[b].ref : 'blocker')) + tail;
    } else {
      const blockerRef = facts?.ref ?? (b >= 0 ? this.items[b].ref : undefined);
      reason = satisfactionReason(form, facts, { acceptForeignRuns: this.options.acceptForeignRuns, blockerRef });
    }
    const slot = this.reasonText.length;
    this.reasonText.push(reason);
    if (b >= 0) {
      this.reasonForm[b] = formId;
      this.reasonSlot[b] = slot;
    }
    return slot;
  }
}

export interface GroupedEdges {
  start: Int32Array;
  blockerId: Float64Array;
  reason: Int32Array;
}

// Unsatisfied edges grouped by dependent (counting sort, edge order kept), with blocker id and reason slot
// copied out so each output item reads its blockers from one contiguous range.
export function groupUnsatisfied(resolution: EdgeResolution, edges: readonly FrontierEdge[], n: number): GroupedEdges {
  const { unsatisfiedCount, unsatisfied, dependentOf, reasonOf } = resolution;
  const start = new Int32Array(n + 1);
  for (let v = 0; v < n; v++) {
    start[v + 1] = start[v] + unsatisfiedCount[v];
  }
  const blockerId = new Float64Array(resolution.unsatisfiedTotal);
  const reason = new Int32Array(resolution.unsatisfiedTotal);
  if (resolution.unsatisfiedTotal > 0) {
    const cursor = start.slice(0, n);
    for (let e = 0; e < unsatisfied.length; e++) {
      if (unsatisfied[e] === 1) {
        const slot = cursor[dependentOf[e]]++;
        blockerId[slot] = edges[e].blocker;
        reason[slot] = reasonOf[e];
      }
    }
  }
  return { start, blockerId, reason };
}
