import { formatCycle } from '../dependencies/gates';
import {
  BlockerFacts,
  isSatisfied,
  isTerminalStatus,
  parseSatisfaction,
  satisfactionReason,
} from '../dependencies/satisfaction';
import { parseTimestamp } from './timestamps';
import {
  CHARGE_RELEVANT_STATUSES,
  FrontierComputation,
  FrontierEdge,
  FrontierInput,
  FrontierInputItem,
  FrontierItem,
} from './vocabulary';

// compute_frontier as the spec states it ("Computation (compute_frontier)", steps 1 to 9, and "Ranking"), written
// to be read, not to be fast. Invariant: computeFrontier must give exactly this answer for every input, with or
// without its memo (reference-frontier.spec.ts). Never on a request's path. Inputs as the store guarantees them: item
// ids unique, and each (blocker, dependent) pair unique among the activation edges.
export function referenceFrontier(input: FrontierInput): FrontierComputation {
  const items = input.items;
  const acceptForeignRuns = input.acceptForeignRuns ?? false;
  const byId = new Map<number, FrontierInputItem>();
  for (const item of items) byId.set(item.id, item);
  const edges = input.edges.filter((edge) => byId.has(edge.dependent));
  const graphEdges = edges.filter((edge) => byId.has(edge.blocker) && edge.blocker !== edge.dependent);

  // Step 1: charge-relevant or blocked-flagged items are candidates; terminal statuses never are.
  const chargeRelevant: readonly string[] = CHARGE_RELEVANT_STATUSES;
  const candidates = items.filter(
    (item) => !isTerminalStatus(item.status) && (item.blocked || chargeRelevant.includes(item.status)),
  );

  // Step 2: unsatisfied edges are the dependent's blockers, in edge order, each with its reason.
  const isUnsatisfied = (edge: FrontierEdge): boolean =>
    !isSatisfied(parseSatisfaction(edge.satisfaction), input.blockerFacts.get(edge.blocker), { acceptForeignRuns });
  const reasonOf = (edge: FrontierEdge): string => {
    const facts: BlockerFacts | undefined = input.blockerFacts.get(edge.blocker);
    const blockerRef = facts?.ref ?? byId.get(edge.blocker)?.ref;
    return satisfactionReason(parseSatisfaction(edge.satisfaction), facts, { acceptForeignRuns, blockerRef });
  };
  const unsatisfiedInto = (item: FrontierInputItem): FrontierEdge[] =>
    edges.filter((edge) => edge.dependent === item.id && isUnsatisfied(edge));

  // Step 3: unblocks_count, the other input items an item blocks at activation (satisfied edges count too).
  const unblocksCount = (item: FrontierInputItem): number =>
    graphEdges.filter((edge) => edge.blocker === item.id).length;

  // Step 4: the longest blocker-to-dependent chain below an item; edges inside a cycle lead nowhere deeper.
  const reaches = reachability(items, graphEdges);
  const onCycleTogether = (a: number, b: number): boolean => reaches.get(a)!.has(b) && reaches.get(b)!.has(a);
  const depths = new Map<number, number>();
  const downstreamDepth = (id: number): number => {
    let depth = depths.get(id);
    if (depth === undefined) {
      depth = 0;
      for (const edge of graphEdges) {
        if (edge.blocker === id && !onCycleTogether(id, edge.dependent)) {
          depth = Math.max(depth, downstreamDepth(edge.dependent) + 1);
        }
      }
      depths.set(id, depth);
    }
    return depth;
  };

  // Step 5: wip_active, the non-frozen items (candidates or not) implementing or reviewing their implementation.
  const wipActive = items.filter(
    (item) => !item.frozen && (item.status === 'implementing' || item.status === 'reviewing-implementation'),
  ).length;

  // Each cycle of unsatisfied edges is named once, as its shortest cycle from its first item in input order.
  const { cycles, cycleReason } = stuckCycles(
    items,
    edges.filter((edge) => byId.has(edge.blocker) && isUnsatisfied(edge)),
  );

  // Step 7: an item with an unsatisfied activation edge or its blocked flag set waits; reasons in order: the
  // operator's block, the stuck cycle, then each unsatisfied edge.
  const toFrontierItem = (item: FrontierInputItem): FrontierItem => {
    const unsatisfied = unsatisfiedInto(item);
    const waiting = unsatisfied.length > 0 || item.blocked;
    const reasons: string[] = [];
    if (waiting && item.blocked) {
      reasons.push(item.blockedReason ? `blocked by operator: ${item.blockedReason}` : 'blocked by operator');
    }
    if (waiting && cycleReason.has(item.id)) reasons.push(cycleReason.get(item.id)!);
    if (waiting) reasons.push(...unsatisfied.map(reasonOf));
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
      blocked_by: unsatisfied.map((edge) => edge.blocker),
      blocked_reasons: reasons,
      unblocks_count: unblocksCount(item),
      downstream_depth: downstreamDepth(item.id),
      created_at: item.createdAt,
      stage_adapter: item.stageAdapter,
      lifecycle_rank: item.lifecycleRank,
      is_epic: item.isEpic,
      frozen: item.frozen,
      blocked_flag: item.blocked,
    };
  };

  // Step 8: partition, each bucket in rank order: frozen items to frozen, waiting ones to blocked, the rest runnable.
  const ranked = candidates.map(toFrontierItem).sort(byRank);
  const frozen = ranked.filter((item) => item.frozen);
  const blocked = ranked.filter((item) => !item.frozen && (item.blocked_flag || item.blocked_by.length > 0));
  const runnable = ranked.filter((item) => !item.frozen && !item.blocked_flag && item.blocked_by.length === 0);

  // Step 9: the WIP cap limits new starts of conduct work in rank order; re-entry (already implementing or
  // reviewing-implementation) is counted in wip_active already and always eligible.
  const wipCap = Number.isFinite(input.wipCap) ? Math.max(0, Math.floor(input.wipCap)) : 30;
  const remaining = Math.max(0, wipCap - wipActive);
  const eligible: FrontierItem[] = [];
  const suppressed: FrontierItem[] = [];
  let slotsTaken = 0;
  for (const item of runnable) {
    if (item.adapter !== 'conduct' && item.adapter !== 'advance') continue;
    if (item.status === 'implementing' || item.status === 'reviewing-implementation') {
      eligible.push(item);
    } else if (slotsTaken < remaining) {
      slotsTaken++;
      eligible.push(item);
    } else {
      suppressed.push(item);
    }
  }

  return {
    runnable,
    blocked,
    frozen,
    wip_cap: wipCap,
    wip_active: wipActive,
    conduct_eligible: eligible,
    wip_remaining: remaining,
    wip_suppressed: suppressed,
    cycles,
  };
}

// Ranking: priority (high, medium, low, then anything else), downstream_depth and unblocks_count (larger first),
// lifecycle stage (closer to done first, unknown last), created_at (older first, unreadable last), then id.
function byRank(a: FrontierItem, b: FrontierItem): number {
  const priority = (item: FrontierItem): number => {
    const rank = ['high', 'medium', 'low'].indexOf(item.priority);
    return rank === -1 ? 3 : rank;
  };
  const stage = (item: FrontierItem): number =>
    Number.isFinite(item.lifecycle_rank) ? -item.lifecycle_rank : Infinity;
  const created = (item: FrontierItem): number => parseTimestamp(item.created_at);
  const keys: [number, number][] = [
    [priority(a), priority(b)],
    [-a.downstream_depth, -b.downstream_depth],
    [-a.unblocks_count, -b.unblocks_count],
    [stage(a), stage(b)],
    [created(a), created(b)],
    [a.item_id, b.item_id],
  ];
  for (const [x, y] of keys) if (x !== y) return x < y ? -1 : 1;
  return 0;
}

// Itself excluded unless a cycle leads back to it.
function reachability(items: readonly FrontierInputItem[], edges: readonly FrontierEdge[]): Map<number, Set<number>> {
  const reaches = new Map<number, Set<number>>();
  for (const item of items) {
    const seen = new Set<number>();
    const stack = [item.id];
    while (stack.length > 0) {
      const from = stack.pop()!;
      for (const edge of edges) {
        if (edge.blocker === from && !seen.has(edge.dependent)) {
          seen.add(edge.dependent);
          stack.push(edge.dependent);
        }
      }
    }
    reaches.set(item.id, seen);
  }
  return reaches;
}

// Per set of items on a cycle together, in the input order of its first item: the shortest cycle from that item
// (breadth-first in edge order, within the set), first id repeated last, and the reason every member carries.
function stuckCycles(
  items: readonly FrontierInputItem[],
  edges: readonly FrontierEdge[],
): { cycles: number[][]; cycleReason: Map<number, string> } {
  const reaches = reachability(items, edges);
  const refOf = new Map(items.map((item) => [item.id, item.ref]));
  const cycles: number[][] = [];
  const cycleReason = new Map<number, string>();
  for (const item of items) {
    if (!reaches.get(item.id)!.has(item.id) || cycleReason.has(item.id)) continue;
    const together = items.filter(
      (other) => reaches.get(item.id)!.has(other.id) && reaches.get(other.id)!.has(item.id),
    );
    const cycle = shortestCycle(item.id, edges, new Set(together.map((other) => other.id)));
    cycles.push(cycle);
    const reason = formatCycle(cycle, (id) => refOf.get(id)!);
    for (const member of together) cycleReason.set(member.id, reason);
  }
  return { cycles, cycleReason };
}

function shortestCycle(start: number, edges: readonly FrontierEdge[], among: Set<number>): number[] {
  if (edges.some((edge) => edge.blocker === start && edge.dependent === start)) return [start, start];
  const parent = new Map<number, number>([[start, start]]);
  const queue = [start];
  for (let head = 0; head < queue.length; head++) {
    const from = queue[head];
    for (const edge of edges) {
      if (edge.blocker !== from || !among.has(edge.dependent)) continue;
      if (edge.dependent === start) {
        const between: number[] = [];
        for (let at = from; at !== start; at = parent.get(at)!) between.unshift(at);
        return [start, ...between, start];
      }
      if (!parent.has(edge.dependent)) {
        parent.set(edge.dependent, from);
        queue.push(edge.dependent);
      }
    }
  }
  return [start, start];
}
