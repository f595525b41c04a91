import { buildCompactGraph, cycleThrough, stronglyConnectedComponents } from './cycles';
import {
  BlockerFacts,
  DEFAULT_GATE_POINT,
  ParsedSatisfaction,
  blockingAbandoned,
  blockingTerminal,
  evaluateSatisfaction,
  isSatisfied,
  parseSatisfaction,
} from './satisfaction';

export interface DependencyEdge {
  blocker: number;
  dependent: number;
  gatePoint?: string;
  satisfaction: string;
  rationale?: string;
}

export interface GateBlocker {
  blocker: number;
  satisfaction: string;
  form: ParsedSatisfaction;
  reason: string;
  need: string;
  blocker_status: string | null;
  blocker_title: string | null;
  blocking_terminal: boolean;
  blocking_abandoned: boolean;
  // the blocker is in another organization: it resolves, but status and title are withheld (null)
  blocker_sealed: boolean;
}

export interface GateEvaluation {
  item_id: number;
  gate_point: string;
  satisfied: boolean;
  blockers: GateBlocker[];
}

export interface GateOptions {
  acceptForeignRuns?: boolean;
  refOf?: (id: number) => string | undefined;
}

export interface PlannedBlockedItem {
  item: number;
  blockers: GateBlocker[];
  reasons: string[];
  cycle: number[] | null;
}

export interface CandidatePlan {
  gate_point: string;
  eligible: number[];
  blocked: PlannedBlockedItem[];
}

export type SatisfactionParser = (raw: string) => ParsedSatisfaction;

// Satisfaction strings repeat heavily (status:done on most rows); parse each distinct one once per call.
export function createSatisfactionParser(): SatisfactionParser {
  const cache = new Map<string, ParsedSatisfaction>();
  return (raw) => {
    let form = cache.get(raw);
    if (form === undefined) {
      form = parseSatisfaction(raw);
      cache.set(raw, form);
    }
    return form;
  };
}

export function edgeGatePoint(edge: DependencyEdge): string {
  return edge.gatePoint ?? DEFAULT_GATE_POINT;
}

export function labelOf(id: number, facts: ReadonlyMap<number, BlockerFacts>, options: GateOptions = {}): string {
  return options.refOf?.(id) ?? facts.get(id)?.ref ?? `#${id}`;
}

export function describeBlocker(
  edge: DependencyEdge,
  form: ParsedSatisfaction,
  factsById: ReadonlyMap<number, BlockerFacts>,
  options: GateOptions = {},
): GateBlocker {
  const facts = factsById.get(edge.blocker);
  const blockerRef = options.refOf?.(edge.blocker) ?? facts?.ref;
  const result = evaluateSatisfaction(form, facts, { acceptForeignRuns: options.acceptForeignRuns, blockerRef });
  const sealed = facts?.sealed === true && facts.status !== null;
  const status = sealed ? null : (facts?.status ?? null);
  return {
    blocker: edge.blocker,
    satisfaction: edge.satisfaction,
    form,
    reason: result.reason,
    need: result.need,
    blocker_status: status,
    blocker_title: status === null ? null : (facts?.title ?? null),
    blocking_terminal: blockingTerminal(status),
    blocking_abandoned: blockingAbandoned(status),
    blocker_sealed: sealed,
  };
}

export function evaluateGate(
  itemId: number,
  gatePoint: string,
  edges: readonly DependencyEdge[],
  factsById: ReadonlyMap<number, BlockerFacts>,
  options: GateOptions = {},
): GateEvaluation {
  return evaluateGateBatch([itemId], gatePoint, edges, factsById, options).get(itemId) as GateEvaluation;
}

export function evaluateGateBatch(
  itemIds: readonly number[],
  gatePoint: string,
  edges: readonly DependencyEdge[],
  factsById: ReadonlyMap<number, BlockerFacts>,
  options: GateOptions = {},
): Map<number, GateEvaluation> {
  const results = new Map<number, GateEvaluation>();
  for (const id of itemIds) {
    if (!results.has(id)) {
      results.set(id, { item_id: id, gate_point: gatePoint, satisfied: true, blockers: [] });
    }
  }
  const parse = createSatisfactionParser();
  const satisfactionOptions = { acceptForeignRuns: options.acceptForeignRuns };
  for (const edge of edges) {
    if (edgeGatePoint(edge) !== gatePoint) {
      continue;
    }
    const evaluation = results.get(edge.dependent);
    if (!evaluation) {
      continue;
    }
    const form = parse(edge.satisfaction);
    if (isSatisfied(form, factsById.get(edge.blocker), satisfactionOptions)) {
      continue;
    }
    evaluation.satisfied = false;
    evaluation.blockers.push(describeBlocker(edge, form, factsById, options));
  }
  return results;
}

// Min-heap of candidate positions: Kahn's ready set, so ties resolve to the earliest input position.
class PositionHeap {
  private readonly heap: Int32Array;
  private size = 0;

  constructor(capacity: number) {
    this.heap = new Int32Array(capacity);
  }

  get length(): number {
    return this.size;
  }

  push(value: number): void {
    const heap = this.heap;
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent] <= value) {
        break;
      }
      heap[i] = heap[parent];
      i = parent;
    }
    heap[i] = value;
  }

  pop(): number {
    const heap = this.heap;
    const top = heap[0];
    const last = heap[--this.size];
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= this.size) {
        break;
      }
      const child = left + 1 < this.size && heap[left + 1] < heap[left] ? left + 1 : left;
      if (heap[child] >= last) {
        break;
      }
      heap[i] = heap[child];
      i = child;
    }
    heap[i] = last;
    return top;
  }
}

// Long cycles are abbreviated so one reason string stays readable and its size stays bounded.
export const CYCLE_REASON_MAX_NODES = 20;

export function formatCycle(
  cycle: readonly number[],
  label: (id: number) => string,
  maxNodes = CYCLE_REASON_MAX_NODES,
): string {
  if (cycle.length <= maxNodes) {
    return `dependency cycle: ${cycle.map(label).join(' → ')}`;
  }
  const keep = Math.max(1, Math.floor(maxNodes / 2));
  const head = cycle.slice(0, keep).map(label);
  const tail = cycle.slice(cycle.length - keep).map(label);
  const omitted = cycle.length - 2 * keep;
  return `dependency cycle: ${head.join(' → ')} → … ${omitted} more … → ${tail.join(' → ')}`;
}

// Rule: a candidate is eligible when every edge at the gate is satisfied, except edges whose blocker is
// itself an eligible candidate; such an edge only orders the blocker before the dependent. A candidate
// is blocked when it has an unsatisfied edge to a non-candidate, when an unsatisfied blocker inside the
// set is blocked, or when it sits on (or behind) a cycle of unsatisfied edges inside the set. Eligible
// items come out in Kahn's order with ready ties taken in input order; blocked items keep input order.
export function planCandidates(
  gatePoint: string,
  itemIds: readonly number[],
  edges: readonly DependencyEdge[],
  factsById: ReadonlyMap<number, BlockerFacts>,
  options: GateOptions = {},
): CandidatePlan {
  const positionOf = new Map<number, number>();
  const ids: number[] = [];
  for (const id of itemIds) {
    if (!positionOf.has(id)) {
      positionOf.set(id, ids.length);
      ids.push(id);
    }
  }
  const n = ids.length;
  const unsatisfied: GateBlocker[][] = Array.from({ length: n }, () => []);
  const externallyBlocked = new Uint8Array(n);
  const from: number[] = [];
  const to: number[] = [];
  const parse = createSatisfactionParser();
  const satisfactionOptions = { acceptForeignRuns: options.acceptForeignRuns };

  for (const edge of edges) {
    if (edgeGatePoint(edge) !== gatePoint) {
      continue;
    }
    const dependent = positionOf.get(edge.dependent);
    if (dependent === undefined) {
      continue;
    }
    const form = parse(edge.satisfaction);
    if (isSatisfied(form, factsById.get(edge.blocker), satisfactionOptions)) {
      continue;
    }
    unsatisfied[dependent].push(describeBlocker(edge, form, factsById, options));
    const blocker = positionOf.get(edge.blocker);
    if (blocker === undefined) {
      externallyBlocked[dependent] = 1;
    } else {
      from.push(blocker);
      to.push(dependent);
    }
  }

  const graph = buildCompactGraph(n, Int32Array.from(from), Int32Array.from(to), from.length);
  const indegree = new Int32Array(n);
  for (let slot = 0; slot < graph.targets.length; slot++) {
    indegree[graph.targets[slot]]++;
  }
  const blocked = new Uint8Array(n);
  const processed = new Uint8Array(n);
  const heap = new PositionHeap(n);
  for (let v = 0; v < n; v++) {
    blocked[v] = externallyBlocked[v];
    if (indegree[v] === 0) {
      heap.push(v);
    }
  }
  const eligible: number[] = [];
  let processedCount = 0;
  while (heap.length > 0) {
    const v = heap.pop();
    processed[v] = 1;
    processedCount++;
    if (blocked[v] === 0) {
      eligible.push(ids[v]);
    }
    for (let slot = graph.offsets[v]; slot < graph.offsets[v + 1]; slot++) {
      const w = graph.targets[slot];
      if (blocked[v] === 1) {
        blocked[w] = 1;
      }
      if (--indegree[w] === 0) {
        heap.push(w);
      }
    }
  }

  const label = (id: number): string => labelOf(id, factsById, options);
  let cycleOf: (number[] | null)[] | null = null;
  if (processedCount < n) {
    // Whatever Kahn could not reach is on a cycle or behind one.
    const components = stronglyConnectedComponents(graph);
    cycleOf = new Array<number[] | null>(n).fill(null);
    const cycleOfComponent = new Map<number, number[] | null>();
    for (let v = 0; v < n; v++) {
      if (processed[v] === 1) {
        continue;
      }
      blocked[v] = 1;
      const component = components.componentOf[v];
      if (!cycleOfComponent.has(component)) {
        const path = cycleThrough(graph, components.componentOf, v);
        cycleOfComponent.set(component, path ? path.map((p) => ids[p]) : null);
      }
      cycleOf[v] = cycleOfComponent.get(component) ?? null;
    }
  }

  const blockedItems: PlannedBlockedItem[] = [];
  for (let v = 0; v < n; v++) {
    if (blocked[v] === 0) {
      continue;
    }
    const cycle = cycleOf?.[v] ?? null;
    const reasons: string[] = [];
    if (cycle) {
      reasons.push(formatCycle(cycle, label));
    }
    for (const detail of unsatisfied[v]) {
      const blocker = positionOf.get(detail.blocker);
      if (blocker === undefined) {
        reasons.push(detail.reason);
      } else if (blocked[blocker] === 1 && !(cycle && cycleOf?.[blocker] === cycle)) {
        reasons.push(`waits on ${label(detail.blocker)}, which is blocked`);
      }
    }
    blockedItems.push({ item: ids[v], blockers: unsatisfied[v], reasons, cycle });
  }
  return { gate_point: gatePoint, eligible, blocked: blockedItems };
}
