import type { FrontierItemWire, FrontierResultWire } from '@app/contracts';
import { FrontierComputation, FrontierItem, toZonelessIso } from '@app/core';

// The frontier's one mapper: libs/core's model (internal ids) to the wire (public refs), shapes from libs/contracts.

// Blockers whose ref cannot be resolved (deleted items) are left out of blocked_by: internal ids never leak;
// the matching blocked_reasons entry still says the blocker no longer exists.
export function toFrontierItemWire(item: FrontierItem, refOf: (id: number) => string | undefined): FrontierItemWire {
  const blockedBy: string[] = [];
  for (const id of item.blocked_by) {
    const ref = refOf(id);
    if (ref !== undefined) {
      blockedBy.push(ref);
    }
  }
  return {
    item_id: item.ref,
    title: item.title,
    status: item.status,
    priority: item.priority,
    project: item.project,
    workflow_id: item.workflow_id,
    workflow_version_id: item.workflow_version_id,
    adapter: item.adapter,
    blocked_by: blockedBy,
    blocked_reasons: item.blocked_reasons.slice(),
    unblocks_count: item.unblocks_count,
    downstream_depth: item.downstream_depth,
    created_at: toZonelessIso(item.created_at),
  };
}

export function toFrontierResultWire(
  computation: FrontierComputation,
  refOf: (id: number) => string | undefined,
): FrontierResultWire {
  const render = (item: FrontierItem): FrontierItemWire => toFrontierItemWire(item, refOf);
  return {
    runnable: computation.runnable.map(render),
    blocked: computation.blocked.map(render),
    frozen: computation.frozen.map(render),
    wip_cap: computation.wip_cap,
    wip_active: computation.wip_active,
    conduct_eligible: computation.conduct_eligible.map(render),
  };
}
