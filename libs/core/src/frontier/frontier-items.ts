import { isTerminalStatus } from '../dependencies/satisfaction';
import { namedStuckCycles } from './stuck-cycles';
import { EdgeResolution } from './edge-resolution';
import { EdgeStructure } from './edge-structure';
import { CHARGE_RELEVANT_STATUSES, FrontierInputItem, FrontierItem } from './vocabulary';

const CHARGE_RELEVANT = new Set<string>(CHARGE_RELEVANT_STATUSES);

// frozen, so sharing one instance across items is safe
const NO_BLOCKERS: readonly number[] = Object.freeze([]);
const NO_REASONS: readonly string[] = Object.freeze([]);

export const RUNNABLE = 0;
export const BLOCKED = 1;
export const FROZEN = 2;

function operatorReason(item: FrontierInputItem): string {
  return item.blockedReason ? `blocked by operator: ${item.blockedReason}` : 'blocked by operator';
}

export interface RunFacts {
  structure: EdgeStructure;
  resolution: EdgeResolution;
  cycleReason: Map<number, string> | null;
}

export function isCandidateItem(item: FrontierInputItem): boolean {
  return !isTerminalStatus(item.status) && (item.blocked || CHARGE_RELEVANT.has(item.status));
}

export function countsAsWip(item: FrontierInputItem): number {
  return !item.frozen && (item.status === 'implementing' || item.status === 'reviewing-implementation') ? 1 : 0;
}

export function bucketOf(item: FrontierInputItem, v: number, run: RunFacts): number {
  return item.frozen ? FROZEN : item.blocked || run.resolution.unsatisfiedCount[v] > 0 ? BLOCKED : RUNNABLE;
}

const blockerScratch: number[] = [];
const reasonScratch: string[] = [];

// Array literals for up to four values: these arrays live as long as the answer, and V8 pretenures a literal's
// site once its arrays keep surviving, where `new Array(n)` is copied by every scavenge until promoted (a large share
// of the core's time). Two functions, so that each site keeps one elements kind.
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

export function toFrontierItem(item: FrontierInputItem, v: number, run: RunFacts): FrontierItem {
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

// The previous output item when every field this run would give it is equal.
export function unchangedOutput(previous: FrontierItem, item: FrontierInputItem, v: number, run: RunFacts): boolean {
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

export function stuckCycles(
  items: readonly FrontierInputItem[],
  structure: EdgeStructure,
  resolution: EdgeResolution,
  cycles: number[][],
): Map<number, string> | null {
  return structure.hasCycle || resolution.selfLoopTotal > 0
    ? namedStuckCycles(items, structure, resolution, cycles)
    : null;
}
