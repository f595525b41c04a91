// Decides from facts the daemon has already read; nothing here reads or writes.

import { FrontierComputation, FrontierItem } from '../frontier/vocabulary';
import { takesWipSlot } from '../frontier/wip';
import { DEFAULT_LANE } from '../sessions/lane';

// The lane an item is worked in: its stage's declared lane, else the project's session_routing.adapter_lanes entry
// for its adapter, else the default lane.
export function itemLane(input: { stageLane: string | null | undefined; adapter: string; routing: unknown }): string {
  if (input.stageLane) return input.stageLane;
  const routing = isRecord(input.routing) ? input.routing : undefined;
  const adapterLanes = isRecord(routing?.adapter_lanes) ? routing.adapter_lanes : undefined;
  const lane = adapterLanes?.[input.adapter];
  return typeof lane === 'string' && lane.length > 0 ? lane : DEFAULT_LANE;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

export function projectMismatch(asked: string | undefined, itemProject: string): boolean {
  return asked !== undefined && asked !== '' && asked !== itemProject;
}

export type DispatchPlacement =
  | { bucket: 'runnable'; item: FrontierItem }
  | { bucket: 'blocked'; item: FrontierItem }
  | { bucket: 'frozen' }
  | { bucket: 'not_found' };

export function placeForDispatch(
  computation: Pick<FrontierComputation, 'runnable' | 'blocked' | 'frozen'>,
  itemId: number,
): DispatchPlacement {
  const runnable = computation.runnable.find((i) => i.item_id === itemId);
  if (runnable) return { bucket: 'runnable', item: runnable };
  const blocked = computation.blocked.find((i) => i.item_id === itemId);
  if (blocked) return { bucket: 'blocked', item: blocked };
  return computation.frozen.some((i) => i.item_id === itemId) ? { bucket: 'frozen' } : { bucket: 'not_found' };
}

// A run halted at a human-approval gate leaves its item at the usher stage, listed runnable or blocked by the gate;
// only then is the halt worth reading, so that the usher step is not dispatched a second time.
export function mayAwaitApproval(
  placement: DispatchPlacement,
): placement is Extract<DispatchPlacement, { item: FrontierItem }> {
  return 'item' in placement && placement.item.stage_adapter === 'usher';
}

export interface DispatchStep {
  wait: boolean;
  entrypoint: string | null;
  lane: string;
}

// The ChargeDecisionMade a refusal records; a lane mismatch records none (the session asked in the wrong lane, the
// charge itself decided nothing).
export interface RefusalDecision {
  item_id: string;
  adapter: string | null;
  reason: 'wait_adapter_encountered' | 'requested_item_unavailable' | 'entrypoint_unavailable';
  target_bucket?: 'frozen' | 'not_found';
}

export type DispatchVerdict<H = unknown> =
  | { dispatch: true; item: FrontierItem; step: DispatchStep & { entrypoint: string } }
  | { refuse: 'deployment_awaiting_approval'; item: FrontierItem; halt: H; decision: RefusalDecision }
  | { refuse: 'wait_adapter_encountered'; item: FrontierItem; blocked: boolean; decision: RefusalDecision }
  | { refuse: 'item_not_runnable'; targetBucket: 'frozen' | 'not_found'; decision: RefusalDecision }
  | { refuse: 'entrypoint_unavailable'; item: FrontierItem; decision: RefusalDecision }
  | { refuse: 'lane_mismatch'; item: FrontierItem; lane: string; decision: null };

export type DispatchRefusal<H = unknown> = Exclude<DispatchVerdict<H>, { dispatch: true }>;

// The order matters: a halt awaiting approval outranks the item's bucket, a blocked item is a wait (a blocker appeared
// after it was offered), and only a runnable item has a step whose adapter, entrypoint and lane can refuse.
export function decideDispatch<H>(input: {
  ref: string;
  placement: DispatchPlacement;
  awaitingApproval: H | null;
  sessionLane: string;
  stepOf: (item: FrontierItem) => DispatchStep;
}): DispatchVerdict<H> {
  const { ref, placement } = input;
  if (input.awaitingApproval !== null && mayAwaitApproval(placement)) {
    const item = placement.item;
    return {
      refuse: 'deployment_awaiting_approval',
      item,
      halt: input.awaitingApproval,
      decision: { item_id: item.ref, adapter: 'usher', reason: 'wait_adapter_encountered' },
    };
  }
  if (placement.bucket === 'blocked') {
    return {
      refuse: 'wait_adapter_encountered',
      item: placement.item,
      blocked: true,
      decision: { item_id: ref, adapter: 'wait', reason: 'wait_adapter_encountered' },
    };
  }
  if (placement.bucket !== 'runnable') {
    return {
      refuse: 'item_not_runnable',
      targetBucket: placement.bucket,
      decision: { item_id: ref, adapter: null, reason: 'requested_item_unavailable', target_bucket: placement.bucket },
    };
  }
  const item = placement.item;
  const step = input.stepOf(item);
  if (step.wait) {
    return {
      refuse: 'wait_adapter_encountered',
      item,
      blocked: false,
      decision: { item_id: item.ref, adapter: 'wait', reason: 'wait_adapter_encountered' },
    };
  }
  if (step.entrypoint === null) {
    return {
      refuse: 'entrypoint_unavailable',
      item,
      decision: { item_id: item.ref, adapter: item.adapter, reason: 'entrypoint_unavailable' },
    };
  }
  if (step.lane !== input.sessionLane) return { refuse: 'lane_mismatch', item, lane: step.lane, decision: null };
  return { dispatch: true, item, step: { ...step, entrypoint: step.entrypoint } };
}

// The claim upsert refuses when another session holds a live claim on the item, or when the item would take a WIP
// slot past the remaining capacity; which of the two is told by who holds the item afterwards.
export function claimRefusal(input: {
  holder: number | null;
  sessionId: number;
}): 'item_already_claimed' | 'wip_cap_reached' {
  return input.holder !== null && input.holder !== input.sessionId ? 'item_already_claimed' : 'wip_cap_reached';
}

export interface LiveClaim {
  item_id: number;
  session_id: number;
  wip_slot: boolean;
  // the claimed item already counts in wip_active (it reached implementing or review)
  in_wip: boolean;
}

export interface SessionOffer<T> {
  offered: { item: T; claim: LiveClaim | undefined }[];
  // live claims holding a slot for work not yet in wip_active, whoever holds them
  slotsClaimed: number;
  wipRemaining: number;
  claimedElsewhere: number;
  wipSuppressed: number;
  otherLanes: number;
}

// Live slot claims count against the remaining WIP capacity; an item the session already claimed keeps its slot.
export function offerToSession<T extends Pick<FrontierItem, 'item_id' | 'adapter' | 'status'>>(input: {
  runnable: readonly T[];
  claims: readonly LiveClaim[];
  sessionId: number | null;
  sessionLane: string | null;
  laneOf: (item: T) => string;
  wipRemaining: number;
}): SessionOffer<T> {
  const claimOf = new Map(input.claims.map((c) => [c.item_id, c]));
  const slotsClaimed = input.claims.filter((c) => c.wip_slot && !c.in_wip).length;
  const wipRemaining = Math.max(0, input.wipRemaining - slotsClaimed);
  let free = wipRemaining;
  const offer: SessionOffer<T> = {
    offered: [],
    slotsClaimed,
    wipRemaining,
    claimedElsewhere: 0,
    wipSuppressed: 0,
    otherLanes: 0,
  };
  for (const item of input.runnable) {
    const claim = claimOf.get(item.item_id);
    if (claim && claim.session_id !== input.sessionId) {
      offer.claimedElsewhere++;
      continue;
    }
    if (input.sessionLane !== null && input.laneOf(item) !== input.sessionLane) {
      offer.otherLanes++;
      continue;
    }
    if (takesWipSlot(item) && !claim) {
      if (free === 0) {
        offer.wipSuppressed++;
        continue;
      }
      free--;
    }
    offer.offered.push({ item, claim });
  }
  return offer;
}
