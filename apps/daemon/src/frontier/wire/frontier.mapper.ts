import type { FrontierItemWire, FrontierResultWire } from '@app/contracts';
import { FrontierComputation, FrontierItem } from '@app/core';

import { wireItem } from './frontier-wire-fields';

// Blockers whose ref cannot be resolved are left out of blocked_by: internal ids never leak.
export function toFrontierItemWire(item: FrontierItem, refOf: (id: number) => string | undefined): FrontierItemWire {
  return wireItem(item, refOf);
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
