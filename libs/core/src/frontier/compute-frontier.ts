import { buildCompactGraph } from '../dependencies/cycles';
import { isTerminalStatus } from '../dependencies/satisfaction';
import { downstreamDepth, namedStuckCycles } from './depth';
import { EdgeResolution, GroupedEdges, groupUnsatisfied, indexItems } from './edge-resolution';
import { rankCandidates } from './ranking';
import {
  CHARGE_RELEVANT_STATUSES,
  FrontierComputation,
  FrontierInput,
  FrontierInputItem,
  FrontierItem,
} from './vocabulary';
import { applyWipCap, DEFAULT_WIP_CAP } from './wip';
import { alignItems, FrontierMemo } from './memo';
import { parseTimestamp } from './timestamps';

export * from './vocabulary';
export { parseTimestamp, toZonelessIso } from './timestamps';
export { compareRank, priorityRank, rankDifference } from './ranking';
export { createRefResolver } from './ref-resolver';
export { alignItems, FrontierMemo } from './memo';
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

// What an output item is built from besides its input item: one run's edge resolution, unsatisfied edges grouped
// by dependent, stuck-cycle reasons and depths.
interface RunFacts {
  resolution: EdgeResolution;
  grouped: GroupedEdges;
  cycleReason: Map<number, string> | null;
  depth: Int32Array;
}

function toFrontierItem(item: FrontierInputItem, v: number, run: RunFacts): FrontierItem {
  const { resolution, grouped, cycleReason, depth } = run;
  const edgeCount = resolution.unsatisfiedCount[v];
  const waiting = edgeCount > 0 || item.blocked;
  let blockedBy: readonly number[] = NO_BLOCKERS;
  let reasons: readonly string[] = NO_REASONS;
  if (waiting) {
    const cycle = cycleReason?.get(v);
    const ids = new Array<number>(edgeCount);
    const texts = new Array<string>((item.blocked ? 1 : 0) + (cycle === undefined ? 0 : 1) + edgeCount);
    let at = 0;
    if (item.blocked) {
      texts[at++] = operatorReason(item);
    }
    if (cycle !== undefined) {
      texts[at++] = cycle;
    }
    const start = grouped.start[v];
    const reasonText = resolution.reasonText;
    for (let k = 0; k < edgeCount; k++) {
      ids[k] = grouped.blockerId[start + k];
      texts[at++] = reasonText[grouped.reason[start + k]];
    }
    blockedBy = ids;
    reasons = texts;
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
    unblocks_count: resolution.unblocks[v],
    downstream_depth: depth[v],
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
  const { resolution, grouped, cycleReason, depth } = run;
  const edgeCount = resolution.unsatisfiedCount[v];
  const waiting = edgeCount > 0 || item.blocked;
  if (
    previous.adapter !== (waiting ? 'wait' : item.stageAdapter) ||
    previous.unblocks_count !== resolution.unblocks[v] ||
    previous.downstream_depth !== depth[v] ||
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
  const start = grouped.start[v];
  const reasonText = resolution.reasonText;
  for (let k = 0; k < edgeCount; k++) {
    if (
      previous.blocked_by[k] !== grouped.blockerId[start + k] ||
      texts[at + k] !== reasonText[grouped.reason[start + k]]
    ) {
      return false;
    }
  }
  return true;
}

// Candidates in the order of their previous rank (those without one last, in input order): the sort that follows
// then mostly confirms it.
function inPreviousOrder(candidates: readonly number[], aligned: Int32Array, previousRank: Int32Array): number[] {
  const slots = new Int32Array(previousRank.length).fill(-1);
  const fresh: number[] = [];
  for (let k = 0; k < candidates.length; k++) {
    const v = candidates[k];
    const p = aligned[v];
    const rank = p >= 0 && p < previousRank.length ? previousRank[p] : -1;
    if (rank >= 0 && slots[rank] === -1) {
      slots[rank] = v;
    } else {
      fresh.push(v);
    }
  }
  const order: number[] = [];
  for (let r = 0; r < slots.length; r++) {
    if (slots[r] !== -1) {
      order.push(slots[r]);
    }
  }
  for (const v of fresh) {
    order.push(v);
  }
  return order;
}

// With a memo (kept by the caller between runs over one project), unchanged output items are the previous objects
// and the ranking starts from the previous order; the answer is the same with or without it (see memo.ts).
export function computeFrontier(input: FrontierInput, memo?: FrontierMemo): FrontierComputation {
  const { items, edges, blockerFacts } = input;
  const n = items.length;
  const index = indexItems(items);
  // position of each item in the memo's previous run (same object), or -1
  const aligned = memo === undefined ? null : alignItems(items, memo.items);

  // Step 1: candidates; step 5: wip_active over every input item.
  const candidates: number[] = [];
  const isCandidate = new Uint8Array(n);
  let wipActive = 0;
  for (let v = 0; v < n; v++) {
    if (index.keep[v] === 0) {
      continue;
    }
    const item = items[v];
    const status = item.status;
    if (!item.frozen && (status === 'implementing' || status === 'reviewing-implementation')) {
      wipActive++;
    }
    if (!isTerminalStatus(status) && (item.blocked || CHARGE_RELEVANT.has(status))) {
      candidates.push(v);
      isCandidate[v] = 1;
    }
  }

  const resolution = new EdgeResolution(items, edges, blockerFacts, input.acceptForeignRuns ?? false);
  resolution.resolve(index, isCandidate);

  const depth = new Int32Array(n);
  const graph = buildCompactGraph(n, resolution.blockerOf, resolution.dependentOf, edges.length, resolution.graphEdge);
  const hasCycle = downstreamDepth(graph, depth);
  const cycles: number[][] = [];
  const cycleReason = hasCycle || resolution.anySelfLoop ? namedStuckCycles(items, resolution, cycles) : null;

  // Output objects are built in input order (sequential reads of items and arrays), then placed by rank.
  const grouped = groupUnsatisfied(resolution, edges, n);
  const run: RunFacts = { resolution, grouped, cycleReason, depth };
  const built: FrontierItem[] = new Array<FrontierItem>(n);
  const bucketOf = new Uint8Array(n);
  const created = new Float64Array(n).fill(NaN);
  for (let k = 0; k < candidates.length; k++) {
    const v = candidates[k];
    const item = items[v];
    const p = aligned === null ? -1 : aligned[v];
    const previous = p >= 0 ? memo!.outputs[p] : undefined;
    built[v] =
      previous !== undefined && unchangedOutput(previous, item, v, run) ? previous : toFrontierItem(item, v, run);
    bucketOf[v] = item.frozen ? FROZEN : item.blocked || resolution.unsatisfiedCount[v] > 0 ? BLOCKED : RUNNABLE;
    created[v] = p >= 0 && memo!.created.length > p ? memo!.created[p] : parseTimestamp(item.createdAt);
  }
  const order = aligned === null ? candidates : inPreviousOrder(candidates, aligned, memo!.rank);
  rankCandidates(
    order,
    items,
    index.ids,
    depth,
    resolution.unblocks,
    created,
    aligned !== null && memo!.items.length > 0,
  );

  // Steps 7 and 8: reclassification (done in toFrontierItem) and partition, in rank order.
  const runnable: FrontierItem[] = [];
  const blocked: FrontierItem[] = [];
  const frozen: FrontierItem[] = [];
  for (let k = 0; k < order.length; k++) {
    const v = order[k];
    const bucket = bucketOf[v];
    (bucket === RUNNABLE ? runnable : bucket === BLOCKED ? blocked : frozen).push(built[v]);
  }

  const wipCap = Number.isFinite(input.wipCap) ? Math.max(0, Math.floor(input.wipCap)) : DEFAULT_WIP_CAP;
  const { eligible, suppressed, remaining } = applyWipCap(runnable, wipCap, wipActive);
  if (memo !== undefined) {
    const rank = new Int32Array(n).fill(-1);
    for (let k = 0; k < order.length; k++) {
      rank[order[k]] = k;
    }
    memo.items = items;
    memo.outputs = built;
    memo.rank = rank;
    memo.created = created;
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
