import { BlockerFacts } from '../dependencies/satisfaction';
import { toZonelessIso } from './timestamps';
import {
  FrontierComputation,
  FrontierInputItem,
  FrontierItem,
  FrontierItemWire,
  FrontierResultWire,
} from './vocabulary';

// The serialized forms: internal ids become public refs.
// Resolves internal ids to public refs from what the computation already holds (items, then blocker facts).
export function createRefResolver(
  items: readonly FrontierInputItem[],
  blockerFacts: ReadonlyMap<number, BlockerFacts>,
): (id: number) => string | undefined {
  const refs = new Map<number, string>();
  for (const [id, facts] of blockerFacts) {
    if (facts.ref !== undefined) {
      refs.set(id, facts.ref);
    }
  }
  for (const item of items) {
    refs.set(item.id, item.ref);
  }
  return (id) => refs.get(id);
}

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
