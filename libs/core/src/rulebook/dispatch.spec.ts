import { FrontierItem } from '../frontier/vocabulary';
import {
  claimRefusal,
  decideDispatch,
  DispatchPlacement,
  DispatchStep,
  itemLane,
  LiveClaim,
  mayAwaitApproval,
  offerToSession,
  placeForDispatch,
  projectMismatch,
} from './dispatch';

function item(id: number, over: Partial<FrontierItem> = {}): FrontierItem {
  return {
    item_id: id,
    ref: `ATL-${id}`,
    title: `item ${id}`,
    status: 'planned',
    priority: 'med',
    project: 'atl',
    workflow_id: 'wf',
    workflow_version_id: 1,
    adapter: 'conduct',
    blocked_by: [],
    blocked_reasons: [],
    unblocks_count: 0,
    downstream_depth: 0,
    created_at: '2026-01-01T00:00:00.000Z',
    stage_adapter: 'conduct',
    lifecycle_rank: 0,
    is_epic: false,
    frozen: false,
    blocked_flag: false,
    ...over,
  };
}

const claim = (itemId: number, sessionId: number, over: Partial<LiveClaim> = {}): LiveClaim => ({
  item_id: itemId,
  session_id: sessionId,
  wip_slot: true,
  in_wip: false,
  ...over,
});

describe('itemLane', () => {
  it('should take the stage’s declared lane first', () => {
    expect(itemLane({ stageLane: 'review', adapter: 'conduct', routing: { adapter_lanes: { conduct: 'x' } } })).toBe(
      'review',
    );
  });

  it('should fall back to the project’s adapter_lanes entry for the adapter', () => {
    expect(itemLane({ stageLane: null, adapter: 'polish', routing: { adapter_lanes: { polish: 'cheap' } } })).toBe(
      'cheap',
    );
  });

  it.each([
    ['no routing', undefined],
    ['no adapter_lanes', {}],
    ['another adapter only', { adapter_lanes: { refine: 'cheap' } }],
    ['an empty lane', { adapter_lanes: { conduct: '' } }],
    ['a lane that is not text', { adapter_lanes: { conduct: 3 } }],
    ['routing that is not an object', 'cheap'],
  ])('should answer primary with %s', (_case, routing) => {
    expect(itemLane({ stageLane: undefined, adapter: 'conduct', routing })).toBe('primary');
  });
});

describe('projectMismatch', () => {
  it.each([
    [undefined, 'atl', false],
    ['', 'atl', false],
    ['atl', 'atl', false],
    ['bil', 'atl', true],
  ])('should answer asked %p of an item of %s with %s', (asked, project, expected) => {
    expect(projectMismatch(asked, project)).toBe(expected);
  });
});

describe('placeForDispatch', () => {
  const computation = { runnable: [item(1)], blocked: [item(2)], frozen: [item(3)] };

  it.each([
    [1, 'runnable'],
    [2, 'blocked'],
    [3, 'frozen'],
    [4, 'not_found'],
  ])('should place item %s as %s', (id, bucket) => {
    expect(placeForDispatch(computation, id).bucket).toBe(bucket);
  });

  it('should carry the frontier’s item for a runnable or blocked one', () => {
    expect(placeForDispatch(computation, 2)).toEqual({ bucket: 'blocked', item: computation.blocked[0] });
  });
});

describe('mayAwaitApproval', () => {
  it.each<[string, DispatchPlacement, boolean]>([
    ['a runnable usher item', { bucket: 'runnable', item: item(1, { stage_adapter: 'usher' }) }, true],
    ['a blocked usher item', { bucket: 'blocked', item: item(1, { stage_adapter: 'usher' }) }, true],
    ['a runnable conduct item', { bucket: 'runnable', item: item(1) }, false],
    ['a frozen item', { bucket: 'frozen' }, false],
    ['an item off the frontier', { bucket: 'not_found' }, false],
  ])('should look the halt up for %s: %s', (_case, placement, expected) => {
    expect(mayAwaitApproval(placement)).toBe(expected);
  });
});

describe('decideDispatch', () => {
  const dispatchable: DispatchStep = { wait: false, entrypoint: '/conduct ATL-1', lane: 'primary' };
  const decide = (
    placement: DispatchPlacement,
    over: { awaitingApproval?: { run: string } | null; step?: Partial<DispatchStep>; sessionLane?: string } = {},
  ) =>
    decideDispatch({
      ref: 'ATL-1',
      placement,
      awaitingApproval: over.awaitingApproval ?? null,
      sessionLane: over.sessionLane ?? 'primary',
      stepOf: () => ({ ...dispatchable, ...over.step }),
    });

  it('should dispatch a runnable item with an entrypoint in the session’s lane', () => {
    const runnable = item(1);
    expect(decide({ bucket: 'runnable', item: runnable })).toEqual({
      dispatch: true,
      item: runnable,
      step: dispatchable,
    });
  });

  it('should refuse an item whose run awaits approval and carry the halt, even when runnable', () => {
    const usher = item(1, { stage_adapter: 'usher', adapter: 'usher' });
    expect(decide({ bucket: 'runnable', item: usher }, { awaitingApproval: { run: 'r1' } })).toEqual({
      refuse: 'deployment_awaiting_approval',
      item: usher,
      halt: { run: 'r1' },
      decision: { item_id: 'ATL-1', adapter: 'usher', reason: 'wait_adapter_encountered' },
    });
  });

  it('should not take a halt for an item that is not at the usher stage', () => {
    expect(decide({ bucket: 'runnable', item: item(1) }, { awaitingApproval: { run: 'r1' } })).toMatchObject({
      dispatch: true,
    });
  });

  it('should refuse a blocked item as a wait and record it with the wait adapter', () => {
    const blocked = item(1, { blocked_reasons: ['blocked by ATL-2'] });
    expect(decide({ bucket: 'blocked', item: blocked })).toEqual({
      refuse: 'wait_adapter_encountered',
      item: blocked,
      blocked: true,
      decision: { item_id: 'ATL-1', adapter: 'wait', reason: 'wait_adapter_encountered' },
    });
  });

  it.each(['frozen', 'not_found'] as const)('should refuse a %s item as not runnable with its bucket', (bucket) => {
    expect(decide({ bucket })).toEqual({
      refuse: 'item_not_runnable',
      targetBucket: bucket,
      decision: { item_id: 'ATL-1', adapter: null, reason: 'requested_item_unavailable', target_bucket: bucket },
    });
  });

  it('should refuse a runnable item at a wait stage', () => {
    expect(decide({ bucket: 'runnable', item: item(1, { adapter: 'wait' }) }, { step: { wait: true } })).toMatchObject({
      refuse: 'wait_adapter_encountered',
      blocked: false,
      decision: { item_id: 'ATL-1', adapter: 'wait', reason: 'wait_adapter_encountered' },
    });
  });

  it('should refuse a runnable item whose stage binds no entrypoint, recording its adapter', () => {
    expect(
      decide({ bucket: 'runnable', item: item(1, { adapter: 'advance' }) }, { step: { entrypoint: null } }),
    ).toEqual({
      refuse: 'entrypoint_unavailable',
      item: item(1, { adapter: 'advance' }),
      decision: { item_id: 'ATL-1', adapter: 'advance', reason: 'entrypoint_unavailable' },
    });
  });

  it('should refuse an item offered in another lane without recording a decision', () => {
    expect(decide({ bucket: 'runnable', item: item(1) }, { step: { lane: 'review' } })).toEqual({
      refuse: 'lane_mismatch',
      item: item(1),
      lane: 'review',
      decision: null,
    });
  });

  it('should check the wait before the entrypoint and the entrypoint before the lane', () => {
    const runnable: DispatchPlacement = { bucket: 'runnable', item: item(1) };
    expect(decide(runnable, { step: { wait: true, entrypoint: null, lane: 'review' } })).toMatchObject({
      refuse: 'wait_adapter_encountered',
    });
    expect(decide(runnable, { step: { entrypoint: null, lane: 'review' } })).toMatchObject({
      refuse: 'entrypoint_unavailable',
    });
  });

  it('should not render a step for an item that is not runnable', () => {
    const stepOf = jest.fn(() => dispatchable);
    decideDispatch({ ref: 'ATL-1', placement: { bucket: 'frozen' }, awaitingApproval: null, sessionLane: 'x', stepOf });
    expect(stepOf).not.toHaveBeenCalled();
  });
});

describe('claimRefusal', () => {
  it('should name the claim held by another session', () => {
    expect(claimRefusal({ holder: 8, sessionId: 7 })).toBe('item_already_claimed');
  });

  it.each([
    ['nobody holds the item', null],
    ['the session itself holds it', 7],
  ])('should name the WIP cap when %s', (_case, holder) => {
    expect(claimRefusal({ holder, sessionId: 7 })).toBe('wip_cap_reached');
  });
});

describe('offerToSession', () => {
  const offer = (over: Partial<Parameters<typeof offerToSession<FrontierItem>>[0]>) =>
    offerToSession<FrontierItem>({
      runnable: [],
      claims: [],
      sessionId: 7,
      sessionLane: 'primary',
      laneOf: () => 'primary',
      wipRemaining: 5,
      ...over,
    });
  const refs = (o: ReturnType<typeof offer>) => o.offered.map((x) => x.item.ref);

  it('should offer every runnable item in rank order when nothing holds it back', () => {
    const o = offer({ runnable: [item(1), item(2), item(3)] });
    expect(refs(o)).toEqual(['ATL-1', 'ATL-2', 'ATL-3']);
    expect(o).toMatchObject({ claimedElsewhere: 0, wipSuppressed: 0, otherLanes: 0, slotsClaimed: 0, wipRemaining: 5 });
  });

  it('should hold back an item claimed by another session and keep the session’s own claim', () => {
    const own = claim(2, 7);
    const o = offer({ runnable: [item(1), item(2)], claims: [claim(1, 8), own] });
    expect(o.offered).toEqual([{ item: item(2), claim: own }]);
    expect(o.claimedElsewhere).toBe(1);
  });

  it('should hold back items of other lanes only for a session', () => {
    const laneOf = (i: FrontierItem) => (i.item_id === 2 ? 'review' : 'primary');
    expect(offer({ runnable: [item(1), item(2)], laneOf })).toMatchObject({ otherLanes: 1 });
    expect(refs(offer({ runnable: [item(1), item(2)], laneOf, sessionId: null, sessionLane: null }))).toEqual([
      'ATL-1',
      'ATL-2',
    ]);
  });

  it('should suppress new starts past the remaining capacity, not re-entry or non-conduct work', () => {
    const o = offer({
      runnable: [item(1), item(2), item(3, { status: 'implementing' }), item(4, { adapter: 'refine' })],
      wipRemaining: 1,
    });
    expect(refs(o)).toEqual(['ATL-1', 'ATL-3', 'ATL-4']);
    expect(o.wipSuppressed).toBe(1);
  });

  it('should count live slot claims of any session against the capacity', () => {
    const o = offer({ runnable: [item(1), item(2)], claims: [claim(8, 8), claim(9, 7)], wipRemaining: 3 });
    expect(o).toMatchObject({ slotsClaimed: 2, wipRemaining: 1, wipSuppressed: 1 });
    expect(refs(o)).toEqual(['ATL-1']);
  });

  it('should not count claims without a slot or already in WIP', () => {
    const o = offer({ claims: [claim(8, 8, { wip_slot: false }), claim(9, 8, { in_wip: true })], wipRemaining: 2 });
    expect(o).toMatchObject({ slotsClaimed: 0, wipRemaining: 2 });
  });

  it('should not let the capacity go below zero', () => {
    expect(offer({ claims: [claim(8, 8), claim(9, 8)], wipRemaining: 1 }).wipRemaining).toBe(0);
  });

  it('should let the session’s own claimed new start through a full cap', () => {
    const own = claim(1, 7);
    const o = offer({ runnable: [item(1), item(2)], claims: [own], wipRemaining: 1 });
    expect(o.offered).toEqual([{ item: item(1), claim: own }]);
    expect(o.wipSuppressed).toBe(1);
  });
});
