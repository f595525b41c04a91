import {
  BlockerFacts,
  isSatisfied,
  SatisfactionOptions,
  satisfactionReason,
  satisfactionReasonTail,
} from '../dependencies/satisfaction';
import { EdgeStructure } from './edge-structure';
import { factsChangedSince } from './stamps';
import { FrontierInputItem } from './vocabulary';

// Step 2: hard-block resolution. An edge's answer depends only on its form, its blocker's facts object and, for the
// label, the blocker item, so a run after a write re-evaluates only edges where one of those or the dependent changed.
export class EdgeResolution {
  readonly facts: (BlockerFacts | undefined)[];
  readonly unsatisfied: Uint8Array;
  readonly reason: string[];
  readonly unsatisfiedCount: Int32Array;
  readonly selfLoops: Int32Array;
  selfLoopTotal = 0;

  private readonly options: SatisfactionOptions;
  // stage order is shared by every item of a workflow version
  private readonly tailCache: (Map<readonly string[] | undefined, Map<string, string>> | undefined)[] = [];

  // With `extending`, the previous run's resolution over a structure this one's extends (its edges a prefix of
  // these): its answers taken over as they were (the run owns the previous state, and no one reads that resolution
  // after), for resolveExtended to bring up to date.
  constructor(
    readonly structure: EdgeStructure,
    n: number,
    private blockerFacts: ReadonlyMap<number, BlockerFacts>,
    readonly acceptForeignRuns: boolean,
    extending: EdgeResolution | null = null,
  ) {
    const m = structure.dependentOf.length;
    this.options = { acceptForeignRuns };
    if (extending === null) {
      this.facts = new Array<BlockerFacts | undefined>(structure.slotIds.length);
      this.unsatisfied = new Uint8Array(m);
      this.reason = new Array<string>(m).fill('');
      this.unsatisfiedCount = new Int32Array(n);
      this.selfLoops = new Int32Array(n);
      return;
    }
    this.facts = extending.facts;
    this.unsatisfied = grown(extending.unsatisfied, m, (size) => new Uint8Array(size));
    this.reason = extending.reason;
    for (let e = this.reason.length; e < m; e++) this.reason.push('');
    this.unsatisfiedCount = grown(extending.unsatisfiedCount, n, (size) => new Int32Array(size));
    this.selfLoops = grown(extending.selfLoops, n, (size) => new Int32Array(size));
    this.selfLoopTotal = extending.selfLoopTotal;
  }

  // resolveFrom when this resolution was made `extending` `previous` over a structure that extends its (the first
  // `kept` edges as they were, their ends the same items): only the edges of blockers whose facts changed, and the
  // new edges, are evaluated, reached through the structure's lists.
  resolveExtended(
    previous: EdgeResolution,
    kept: number,
    items: readonly FrontierInputItem[],
    isCandidate: Uint8Array,
    touched: Uint8Array,
  ): void {
    const { dependentOf, blockerOf, blockerSlot, slotIds, outStart, outEdges } = this.structure;
    const { facts } = this;
    const carriedSlots = this.structure.slotsCarriedFrom(previous.structure);
    if (carriedSlots < 0) throw new Error('edge resolution: the structure does not extend the previous one');
    const changedSlots = this.refreshFacts(this.blockerFacts, previous.blockerFacts, carriedSlots);
    // a new slot's edges are all new: evaluated below
    for (let slot = carriedSlots; slot < slotIds.length; slot++) facts[slot] = this.blockerFacts.get(slotIds[slot]);
    for (const slot of changedSlots) {
      for (let k = outStart[slot]; k < outStart[slot + 1]; k++) {
        const e = outEdges[k];
        if (e < kept) this.reevaluate(e, items, isCandidate, touched);
      }
    }
    for (let e = kept; e < dependentOf.length; e++) {
      const d = dependentOf[e];
      if (d < 0) continue;
      this.evaluate(e, blockerOf[e], d, facts[blockerSlot[e]], items, isCandidate);
      touched[d] = 1;
    }
  }

  // An edge of the same form as its blocker's previous edge (the usual case) shares that edge's answer and reason.
  resolveAll(items: readonly FrontierInputItem[], isCandidate: Uint8Array): void {
    const { blockerOf, dependentOf, formOf, blockerSlot, slotIds } = this.structure;
    const { facts, unsatisfied, reason, unsatisfiedCount } = this;
    const lastEdge = new Int32Array(slotIds.length).fill(-1);
    // every slot's, also one whose edges all went (a carried structure keeps it): a later run carries them all
    for (let slot = 0; slot < slotIds.length; slot++) {
      facts[slot] = this.blockerFacts.get(slotIds[slot]);
    }
    for (let e = 0; e < dependentOf.length; e++) {
      const d = dependentOf[e];
      if (d < 0) {
        continue;
      }
      const b = blockerOf[e];
      const slot = blockerSlot[e];
      const last = lastEdge[slot];
      lastEdge[slot] = e;
      if (last === -1) {
        this.evaluate(e, b, d, facts[slot], items, isCandidate);
      } else if (formOf[last] !== formOf[e]) {
        this.evaluate(e, b, d, facts[slot], items, isCandidate);
      } else if (unsatisfied[last] === 1) {
        unsatisfied[e] = 1;
        unsatisfiedCount[d]++;
        if (b === d) {
          this.selfLoops[d]++;
          this.selfLoopTotal++;
        }
        if (isCandidate[d] === 1) {
          reason[e] = reason[last] !== '' ? reason[last] : this.reasonFor(e, b, facts[slot], items);
        }
      }
    }
  }

  // An edge that stayed keeps its answer when its ends are the same items and its blocker's facts the same object;
  // edges of replaced items are left to resolveChanged.
  resolveFrom(
    previous: EdgeResolution,
    oldOf: Int32Array,
    items: readonly FrontierInputItem[],
    isCandidate: Uint8Array,
    touched: Uint8Array,
    newOf: Int32Array | null = null,
  ): void {
    const { blockerOf, dependentOf, blockerSlot, slotIds } = this.structure;
    const old = previous.structure;
    const { facts } = this;
    const carriedSlots = this.structure.slotsCarriedFrom(old);
    if (carriedSlots >= 0 && newOf === null) {
      this.resolveCarried(previous, carriedSlots, oldOf, items, isCandidate, touched);
      return;
    }
    // previous position p is position v now (a gone item is no longer one: its edges' reasons named it)
    const same = (p: number, v: number): boolean => (p < 0 ? v < 0 : v >= 0 && (newOf === null ? p : newOf[p]) === v);
    for (let slot = 0; slot < slotIds.length; slot++) {
      facts[slot] = this.blockerFacts.get(slotIds[slot]);
    }
    for (let e = 0; e < dependentOf.length; e++) {
      const d = dependentOf[e];
      if (d < 0) {
        continue;
      }
      const b = blockerOf[e];
      const p = oldOf[e];
      if (
        p >= 0 &&
        same(old.dependentOf[p], d) &&
        same(old.blockerOf[p], b) &&
        previous.facts[old.blockerSlot[p]] === facts[blockerSlot[e]]
      ) {
        if (previous.unsatisfied[p] === 1) this.keepUnsatisfied(e, b, d, previous.reason[p]);
      } else {
        this.evaluate(e, b, d, facts[blockerSlot[e]], items, isCandidate);
        touched[d] = 1;
      }
    }
  }

  // resolveFrom over a structure that carried the previous one's slots, every previous item at its position: a slot
  // keeps its facts unless the facts say they changed, and an edge with the same ends and slot keeps its answer.
  private resolveCarried(
    previous: EdgeResolution,
    carriedSlots: number,
    oldOf: Int32Array,
    items: readonly FrontierInputItem[],
    isCandidate: Uint8Array,
    touched: Uint8Array,
  ): void {
    const { blockerOf, dependentOf, blockerSlot, slotIds } = this.structure;
    const old = previous.structure;
    const { facts } = this;
    const slots = slotIds.length;
    const factsChanged = new Uint8Array(slots);
    for (let slot = 0; slot < carriedSlots; slot++) {
      facts[slot] = previous.facts[slot];
    }
    for (const slot of this.refreshFacts(this.blockerFacts, previous.blockerFacts, carriedSlots)) {
      factsChanged[slot] = 1;
    }
    for (let slot = carriedSlots; slot < slots; slot++) {
      facts[slot] = this.blockerFacts.get(slotIds[slot]);
      factsChanged[slot] = 1;
    }
    for (let e = 0; e < dependentOf.length; e++) {
      const d = dependentOf[e];
      if (d < 0) {
        continue;
      }
      const b = blockerOf[e];
      const slot = blockerSlot[e];
      const p = oldOf[e];
      if (
        p >= 0 &&
        factsChanged[slot] === 0 &&
        old.blockerSlot[p] === slot &&
        old.dependentOf[p] === d &&
        old.blockerOf[p] === b
      ) {
        if (previous.unsatisfied[p] === 1) this.keepUnsatisfied(e, b, d, previous.reason[p]);
      } else {
        this.evaluate(e, b, d, facts[slot], items, isCandidate);
        touched[d] = 1;
      }
    }
  }

  // The slots below `limit` whose blocker's facts are another object in `now` than in this.facts, brought up to date:
  // those of the ids the facts say may have changed since `since`, or every slot when they cannot say.
  private refreshFacts(
    now: ReadonlyMap<number, BlockerFacts>,
    since: ReadonlyMap<number, BlockerFacts>,
    limit: number,
  ): number[] {
    const { slotIds } = this.structure;
    const facts = this.facts;
    const changed: number[] = [];
    const check = (slot: number): void => {
      const f = now.get(slotIds[slot]);
      if (f !== facts[slot]) {
        facts[slot] = f;
        changed.push(slot);
      }
    };
    const ids = now === since ? [] : factsChangedSince(now, since);
    if (ids === null) {
      for (let slot = 0; slot < limit; slot++) check(slot);
    } else {
      for (const id of ids) {
        const slot = this.structure.slotOfId(id);
        if (slot >= 0 && slot < limit) check(slot);
      }
    }
    return changed;
  }

  // Edge e, unsatisfied before as it is now, keeps its reason.
  private keepUnsatisfied(e: number, b: number, d: number, reason: string): void {
    this.unsatisfied[e] = 1;
    this.unsatisfiedCount[d]++;
    if (b === d) {
      this.selfLoops[d]++;
      this.selfLoopTotal++;
    }
    this.reason[e] = reason;
  }

  // Reached through the structure's indexes, so a one-item write costs its own edges, not a pass over all.
  resolveChanged(
    items: readonly FrontierInputItem[],
    blockerFacts: ReadonlyMap<number, BlockerFacts>,
    changed: readonly number[],
    isCandidate: Uint8Array,
    touched: Uint8Array,
  ): void {
    const { inStart, inEdges, outStart, outEdges, slotOfItem, slotIds } = this.structure;
    let newFacts: number[] = [];
    if (blockerFacts !== this.blockerFacts) {
      newFacts = this.refreshFacts(blockerFacts, this.blockerFacts, slotIds.length);
      this.blockerFacts = blockerFacts;
    }
    for (const v of changed) {
      for (let k = inStart[v]; k < inStart[v + 1]; k++) {
        this.reevaluate(inEdges[k], items, isCandidate, touched);
      }
      const slot = slotOfItem[v];
      if (slot >= 0) {
        for (let k = outStart[slot]; k < outStart[slot + 1]; k++) {
          this.reevaluate(outEdges[k], items, isCandidate, touched);
        }
      }
    }
    for (const slot of newFacts) {
      for (let k = outStart[slot]; k < outStart[slot + 1]; k++) {
        this.reevaluate(outEdges[k], items, isCandidate, touched);
      }
    }
  }

  // Idempotent: an edge reached twice gives the same answer.
  private reevaluate(
    e: number,
    items: readonly FrontierInputItem[],
    isCandidate: Uint8Array,
    touched: Uint8Array,
  ): void {
    const { blockerOf, dependentOf, blockerSlot } = this.structure;
    const d = dependentOf[e];
    const b = blockerOf[e];
    if (this.unsatisfied[e] === 1) {
      this.unsatisfied[e] = 0;
      this.unsatisfiedCount[d]--;
      if (b === d) {
        this.selfLoops[d]--;
        this.selfLoopTotal--;
      }
    }
    this.reason[e] = '';
    this.evaluate(e, b, d, this.facts[blockerSlot[e]], items, isCandidate);
    touched[d] = 1;
  }

  private evaluate(
    e: number,
    b: number,
    d: number,
    facts: BlockerFacts | undefined,
    items: readonly FrontierInputItem[],
    isCandidate: Uint8Array,
  ): void {
    if (isSatisfied(this.structure.forms[this.structure.formOf[e]], facts, this.options)) {
      return;
    }
    this.unsatisfied[e] = 1;
    this.unsatisfiedCount[d]++;
    if (b === d) {
      this.selfLoops[d]++;
      this.selfLoopTotal++;
    }
    if (isCandidate[d] === 1) {
      this.reason[e] = this.reasonFor(e, b, facts, items);
    }
  }

  // Tails depending only on (form, status, stage order) are shared, so most reasons cost one concatenation.
  private reasonFor(
    e: number,
    b: number,
    facts: BlockerFacts | undefined,
    items: readonly FrontierInputItem[],
  ): string {
    const formId = this.structure.formOf[e];
    const form = this.structure.forms[formId];
    if (facts && facts.status !== null && facts.sealed !== true && (form.kind === 'status' || form.kind === 'merged')) {
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
      return (facts.ref ?? (b >= 0 ? items[b].ref : 'blocker')) + tail;
    }
    const blockerRef = facts?.ref ?? (b >= 0 ? items[b].ref : undefined);
    return satisfactionReason(form, facts, { acceptForeignRuns: this.options.acceptForeignRuns, blockerRef });
  }
}

// `array`, or a copy of it `size` long (the rest zeros) when it is shorter.
function grown<T extends Uint8Array | Int32Array>(array: T, size: number, make: (size: number) => T): T {
  if (array.length === size) return array;
  const copy = make(size);
  copy.set(array);
  return copy;
}
