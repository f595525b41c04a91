import { compareRank } from './ranking';
import { FrontierComputation, FrontierItem } from './vocabulary';

// Read after compute_frontier, so the spec's nine steps stay as they are.
export interface DeploymentHalt {
  runId: string;
  kind: 'awaiting-approval' | 'needs-capability';
  stage: string;
  missing: readonly string[];
  // absolute: the serialized result is cached by ETag, so a relative age ("since 3h") would go stale unseen
  since: string;
  // approval recorded: the usher's re-run passes the gate, so the item is runnable again
  approved: boolean;
}

export function deploymentHaltReason(halt: DeploymentHalt, ref: string): string {
  return halt.kind === 'awaiting-approval'
    ? `deployment halted (awaiting-approval): awaiting approval for ${halt.stage} since ${halt.since}; ` +
        `approve with svc approve ${ref}`
    : `deployment halted (needs-capability): needs capability ${halt.missing.join(', ')} for ${halt.stage} ` +
        `since ${halt.since}; fix it, then svc deployments runs resume ${halt.runId}`;
}

export function blocksUsher(halt: DeploymentHalt | undefined): halt is DeploymentHalt {
  return halt !== undefined && !(halt.kind === 'awaiting-approval' && halt.approved);
}

function mergeByRank(a: FrontierItem[], b: FrontierItem[]): FrontierItem[] {
  const merged: FrontierItem[] = new Array<FrontierItem>(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) merged[k++] = compareRank(a[i], b[j]) <= 0 ? a[i++] : b[j++];
  while (i < a.length) merged[k++] = a[i++];
  while (j < b.length) merged[k++] = b[j++];
  return merged;
}

// A halted item whose next step is the deployment (adapter usher) moves to blocked with the halt as its reason; a
// blocked item gains the halt as one more reason. Returns the computation itself when no halt applies.
export function applyDeploymentHalts(
  computation: FrontierComputation,
  halts: ReadonlyMap<number, DeploymentHalt>,
): FrontierComputation {
  if (halts.size === 0) return computation;
  const runnable: FrontierItem[] = [];
  const moved: FrontierItem[] = [];
  const movedIds = new Set<number>();
  for (const item of computation.runnable) {
    const halt = halts.get(item.item_id);
    if (item.adapter === 'usher' && blocksUsher(halt)) {
      moved.push({ ...item, adapter: 'wait', blocked_reasons: [deploymentHaltReason(halt, item.ref)] });
      movedIds.add(item.item_id);
    } else {
      runnable.push(item);
    }
  }
  let touchedBlocked = false;
  const blocked = computation.blocked.map((item) => {
    const halt = halts.get(item.item_id);
    if (!blocksUsher(halt)) return item;
    touchedBlocked = true;
    return { ...item, blocked_reasons: [...item.blocked_reasons, deploymentHaltReason(halt, item.ref)] };
  });
  if (moved.length === 0 && !touchedBlocked) return computation;
  const kept = (list: FrontierItem[]) => (movedIds.size === 0 ? list : list.filter((i) => !movedIds.has(i.item_id)));
  return {
    ...computation,
    runnable,
    blocked: moved.length === 0 ? blocked : mergeByRank(blocked, moved),
    conduct_eligible: kept(computation.conduct_eligible),
    wip_suppressed: kept(computation.wip_suppressed),
  };
}
