import { FrontierComputation, FrontierItem } from '@app/core';

import { AccessService } from '../auth/access.service';
import { testActor } from '../auth/test-actor';
import { refusal } from '../common/test-refusal';
import { AppConfig } from '../config/app-config';
import { EventsService } from '../events/events.service';
import { ComputedFrontier, FrontierService } from '../frontier/read-path/frontier.service';
import { RefsService } from '../refs/refs.service';
import { SessionRow } from '../sessions/dto/sessions.dto';
import { sessionEnded } from '../sessions/sessions.errors';
import { SessionsService } from '../sessions/sessions.service';
import { ApprovalHalt, ChargeRepository, ClaimResult, LiveClaimRow, NewClaim } from './charge.repository';
import { ChargeService } from './charge.service';

const ACTOR = testActor();
const PROJECT = { id: 'atl', policy: { wip_cap: 2 } };
const SESSION = {
  id: 11,
  actor_id: 3,
  harness: 'claude-code',
  lane: 'primary',
  ended_at: null,
} as unknown as SessionRow;
const CLAIMED: ClaimResult = {
  item_id: 1,
  claimed_at: new Date('2026-11-28T10:00:00Z'),
  expires_at: new Date('2026-11-28T10:30:00Z'),
};
const HALT: ApprovalHalt = {
  run_id: 'run-1',
  environment: 'prod',
  stage: 'deploy-prod',
  halted_at: new Date('2026-11-28T09:00:00Z'),
};

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

type Stage = { entrypoint?: string | null; lane?: string; adapter?: string };

function computed(
  buckets: Partial<Pick<FrontierComputation, 'runnable' | 'blocked' | 'frozen'>>,
  stages: Record<string, Stage> = { planned: { entrypoint: '/conduct {ref}' } },
  policy: Record<string, unknown> = PROJECT.policy,
): ComputedFrontier {
  const computation: FrontierComputation = {
    runnable: [],
    blocked: [],
    frozen: [],
    wip_cap: 2,
    wip_active: 1,
    conduct_eligible: [],
    wip_remaining: 1,
    wip_suppressed: [],
    cycles: [],
    ...buckets,
  };
  const workflows = new Map([[1, { stages: new Map(Object.entries(stages)) }]]);
  return { computation, graph: { project: { ...PROJECT, policy }, workflows } } as unknown as ComputedFrontier;
}

function makeSut(frontier: ComputedFrontier = computed({ runnable: [item(1)] })) {
  const repository = {
    liveClaims: jest.fn(async (_projects: readonly string[]): Promise<LiveClaimRow[]> => []),
    claimHolders: jest.fn(async () => []),
    awaitingApproval: jest.fn(async (_id: number): Promise<ApprovalHalt | null> => null),
    transaction: jest.fn(async <T>(work: (manager: unknown) => Promise<T>) => work({ tx: true })),
    claim: jest.fn(async (_manager: unknown, _claim: NewClaim): Promise<ClaimResult | null> => CLAIMED),
    claimHolder: jest.fn(async (): Promise<number | null> => null),
    touchSession: jest.fn(async () => undefined),
  };
  const frontierService = {
    resolveProject: jest.fn(async () => PROJECT),
    accessibleProjects: jest.fn(async () => [PROJECT]),
    compute: jest.fn(async () => frontier),
  };
  const sessions = { owned: jest.fn(async () => SESSION) };
  let events = 0;
  const eventsService = {
    record: jest.fn(async (_event: Parameters<EventsService['record']>[0], _manager?: unknown) => ({
      id: `ev-${++events}`,
    })),
  };
  const refs = { resolve: jest.fn(async (ref: string) => ({ id: 1, ref, project: 'atl' })) };
  const access = { projectAdministration: jest.fn(async () => ({ organization: 'acme', isOrgAdmin: false })) };
  const sut = new ChargeService(
    repository as unknown as ChargeRepository,
    frontierService as unknown as FrontierService,
    sessions as unknown as SessionsService,
    eventsService as unknown as EventsService,
    refs as unknown as RefsService,
    access as unknown as AccessService,
    { claimTtlSeconds: 1800 } as AppConfig,
  );
  return { sut, repository, frontier: frontierService, sessions, events: eventsService, refs, access };
}

const DISPATCH = { session_id: 11, item_id: 'ATL-1' };

describe(ChargeService.name, () => {
  describe('dispatch', () => {
    it('should claim the item, touch the session and record the decision in one transaction', async () => {
      const { sut, repository, events } = makeSut();
      const response = await sut.dispatch(ACTOR, DISPATCH);
      expect(repository.claim).toHaveBeenCalledWith(
        { tx: true },
        {
          itemId: 1,
          sessionId: 11,
          project: 'atl',
          entrypoint: '/conduct ATL-1',
          adapter: 'conduct',
          wipSlot: true,
          ttlSeconds: 1800,
          wipRemaining: 1,
        },
      );
      expect(repository.touchSession).toHaveBeenCalledWith({ tx: true }, 11);
      const detail = { item_id: 'ATL-1', adapter: 'conduct', dispatched: true, reason: 'dispatched', project: 'atl' };
      expect(events.record).toHaveBeenCalledWith(
        expect.objectContaining({ name: 'ChargeDecisionMade', sessionId: 11, payload: { detail } }),
        { tx: true },
      );
      expect(response).toEqual({
        dispatched: true,
        item_id: 'ATL-1',
        project: 'atl',
        adapter: 'conduct',
        entrypoint: '/conduct ATL-1',
        session_id: 11,
        wip_slot: true,
        claim: { claimed_at: '2026-11-28T10:00:00.000Z', expires_at: '2026-11-28T10:30:00.000Z' },
        decision: detail,
        event_id: 'ev-1',
      });
    });

    it('should refuse an ended session before reading anything else', async () => {
      const { sut, sessions, refs, repository } = makeSut();
      sessions.owned.mockRejectedValue(sessionEnded(11));
      expect(await refusal(sut.dispatch(ACTOR, DISPATCH))).toMatchObject({ code: 'session_ended', status: 409 });
      expect(refs.resolve).not.toHaveBeenCalled();
      expect(repository.transaction).not.toHaveBeenCalled();
    });

    it('should refuse an item of another project than the one named', async () => {
      const { sut, frontier, events } = makeSut();
      const err = await refusal(sut.dispatch(ACTOR, { ...DISPATCH, project: 'bil' }));
      expect(err).toMatchObject({ code: 'project_mismatch', status: 409 });
      expect(frontier.compute).not.toHaveBeenCalled();
      expect(events.record).not.toHaveBeenCalled();
    });

    it('should answer project_not_found for a project the caller cannot see', async () => {
      const { sut, frontier, repository } = makeSut();
      frontier.resolveProject.mockRejectedValue(new Error('hidden'));
      expect(await refusal(sut.dispatch(ACTOR, DISPATCH))).toMatchObject({ code: 'project_not_found', status: 404 });
      expect(repository.claim).not.toHaveBeenCalled();
    });

    it('should refuse a WIP cap above the policy’s for a non-admin and compute nothing', async () => {
      const { sut, frontier, access } = makeSut();
      const err = await refusal(sut.dispatch(ACTOR, { ...DISPATCH, wip_cap: 5 }));
      expect(err).toMatchObject({ code: 'wip_cap_override_forbidden', status: 403 });
      expect(err.extra).toEqual({ project: 'atl', policy_wip_cap: 2, asked_wip_cap: 5, organization: 'acme' });
      expect(access.projectAdministration).toHaveBeenCalledWith(ACTOR, 'atl');
      expect(frontier.compute).not.toHaveBeenCalled();
    });

    it('should run under a raised cap for an organization admin', async () => {
      const { sut, frontier, access } = makeSut();
      access.projectAdministration.mockResolvedValue({ organization: 'acme', isOrgAdmin: true });
      await sut.dispatch(ACTOR, { ...DISPATCH, wip_cap: 5 });
      expect(frontier.compute).toHaveBeenCalledWith(PROJECT, 5, 3, 11);
    });

    it('should take a lower cap without looking up the caller’s standing', async () => {
      const { sut, frontier, access } = makeSut();
      await sut.dispatch(ACTOR, { ...DISPATCH, wip_cap: 1 });
      expect(access.projectAdministration).not.toHaveBeenCalled();
      expect(frontier.compute).toHaveBeenCalledWith(PROJECT, 1, 3, 11);
    });

    it('should refuse an item whose run awaits approval, record the decision and claim nothing', async () => {
      const usher = item(1, { adapter: 'usher', stage_adapter: 'usher', status: 'release' });
      const { sut, repository, events } = makeSut(computed({ blocked: [usher] }));
      repository.awaitingApproval.mockResolvedValue(HALT);
      const err = await refusal(sut.dispatch(ACTOR, DISPATCH));
      expect(err).toMatchObject({ code: 'deployment_awaiting_approval', status: 409 });
      expect(err.extra).toEqual({
        item_id: 'ATL-1',
        run_id: 'run-1',
        stage: 'deploy-prod',
        environment: 'prod',
        since: '2026-11-28T09:00:00.000Z',
        decision_recorded: true,
        event_id: 'ev-1',
      });
      expect(events.record.mock.calls[0][0]).toMatchObject({
        payload: {
          detail: {
            item_id: 'ATL-1',
            adapter: 'usher',
            reason: 'wait_adapter_encountered',
            dispatched: false,
            project: 'atl',
          },
        },
      });
      expect(repository.transaction).not.toHaveBeenCalled();
    });

    it('should not look for a halted run unless the item is at the usher stage', async () => {
      const { sut, repository } = makeSut();
      await sut.dispatch(ACTOR, DISPATCH);
      expect(repository.awaitingApproval).not.toHaveBeenCalled();
    });

    it('should refuse a blocked item as a wait with its reasons', async () => {
      const { sut, repository, events } = makeSut(
        computed({ blocked: [item(1, { blocked_reasons: ['ATL-2 open'] })] }),
      );
      const err = await refusal(sut.dispatch(ACTOR, DISPATCH));
      expect(err).toMatchObject({
        code: 'wait_adapter_encountered',
        status: 409,
        message: 'ATL-1 is blocked: ATL-2 open',
      });
      expect(err.extra).toEqual({
        item_id: 'ATL-1',
        blocked_reasons: ['ATL-2 open'],
        decision_recorded: true,
        event_id: 'ev-1',
      });
      expect(events.record.mock.calls[0][0].payload.detail).toMatchObject({ adapter: 'wait', dispatched: false });
      expect(repository.claim).not.toHaveBeenCalled();
    });

    it.each([
      ['frozen', computed({ frozen: [item(1)] }), 'ATL-1 is frozen'],
      ['not_found', computed({}), 'ATL-1 is not a frontier candidate'],
    ])('should refuse a %s item as not runnable', async (bucket, frontier, message) => {
      const { sut, repository, events } = makeSut(frontier);
      const err = await refusal(sut.dispatch(ACTOR, DISPATCH));
      expect(err).toMatchObject({ code: 'item_not_runnable', status: 409, message });
      expect(err.extra).toEqual({ item_id: 'ATL-1', target_bucket: bucket, decision_recorded: true, event_id: 'ev-1' });
      expect(events.record.mock.calls[0][0].payload.detail).toEqual({
        item_id: 'ATL-1',
        adapter: null,
        reason: 'requested_item_unavailable',
        target_bucket: bucket,
        dispatched: false,
        project: 'atl',
      });
      expect(repository.claim).not.toHaveBeenCalled();
    });

    it('should refuse a runnable item with the wait adapter', async () => {
      const { sut, repository } = makeSut(computed({ runnable: [item(1, { adapter: 'wait', status: 'parked' })] }));
      const err = await refusal(sut.dispatch(ACTOR, DISPATCH));
      expect(err).toMatchObject({
        code: 'wait_adapter_encountered',
        message: 'ATL-1 has the wait adapter at stage parked',
      });
      expect(err.extra).toEqual({ item_id: 'ATL-1', decision_recorded: true, event_id: 'ev-1' });
      expect(repository.claim).not.toHaveBeenCalled();
    });

    it('should refuse a stage that binds no entrypoint with the recovery', async () => {
      const { sut, repository, events } = makeSut(computed({ runnable: [item(1)] }, { planned: {} }));
      const err = await refusal(sut.dispatch(ACTOR, DISPATCH));
      expect(err).toMatchObject({
        code: 'entrypoint_unavailable',
        status: 409,
        message: 'workflow wf version 1 binds no entrypoint at stage planned',
      });
      expect(err.extra).toMatchObject({ item_id: 'ATL-1', decision_recorded: true, event_id: 'ev-1' });
      expect(err.extra.recovery).toEqual(expect.any(String));
      expect(events.record.mock.calls[0][0].payload.detail).toMatchObject({
        adapter: 'conduct',
        reason: 'entrypoint_unavailable',
      });
      expect(repository.claim).not.toHaveBeenCalled();
    });

    it('should refuse an item of another lane and record no decision', async () => {
      const frontier = computed({ runnable: [item(1)] }, { planned: { entrypoint: '/x', lane: 'review' } });
      const { sut, repository, events } = makeSut(frontier);
      const err = await refusal(sut.dispatch(ACTOR, DISPATCH));
      expect(err).toMatchObject({
        code: 'lane_mismatch',
        status: 409,
        message: 'ATL-1 is offered in lane review, the session is in primary',
      });
      expect(err.extra).toEqual({ item_id: 'ATL-1', lane: 'review' });
      expect(events.record).not.toHaveBeenCalled();
      expect(repository.claim).not.toHaveBeenCalled();
    });

    it('should refuse an item another session claimed meanwhile, and write nothing more', async () => {
      const { sut, repository, events } = makeSut();
      repository.claim.mockResolvedValue(null);
      repository.claimHolder.mockResolvedValue(12);
      const err = await refusal(sut.dispatch(ACTOR, DISPATCH));
      expect(err).toMatchObject({ code: 'item_already_claimed', status: 409 });
      expect(err.extra).toEqual({ item_id: 'ATL-1' });
      expect(repository.touchSession).not.toHaveBeenCalled();
      expect(events.record).not.toHaveBeenCalled();
    });

    it.each([
      ['nobody holds the item', null],
      ['the session holds it itself', 11],
    ])('should refuse with the WIP cap when the claim is refused and %s', async (_case, holder) => {
      const { sut, repository, events } = makeSut();
      repository.claim.mockResolvedValue(null);
      repository.claimHolder.mockResolvedValue(holder);
      const err = await refusal(sut.dispatch(ACTOR, DISPATCH));
      expect(err).toMatchObject({ code: 'wip_cap_reached', status: 409 });
      expect(err.extra).toEqual({ item_id: 'ATL-1', wip_cap: 2, wip_active: 1 });
      expect(repository.touchSession).not.toHaveBeenCalled();
      expect(events.record).not.toHaveBeenCalled();
    });

    it('should claim re-entry work without a WIP slot', async () => {
      const frontier = computed(
        { runnable: [item(1, { status: 'implementing' })] },
        { implementing: { entrypoint: '/x' } },
      );
      const { sut, repository } = makeSut(frontier);
      const response = await sut.dispatch(ACTOR, DISPATCH);
      expect(repository.claim.mock.calls[0][1]).toMatchObject({ wipSlot: false });
      expect(response.wip_slot).toBe(false);
    });
  });

  describe('schedule', () => {
    it('should offer the runnable items minus other sessions’ claims and new starts past the cap', async () => {
      const frontier = computed({ runnable: [item(1), item(2), item(3)] });
      const { sut, repository } = makeSut(frontier);
      repository.liveClaims.mockResolvedValue([
        { item_id: 1, session_id: 12, project: 'atl', wip_slot: true, in_wip: false },
      ]);
      const response = await sut.schedule(ACTOR, { project: 'atl' });
      expect(response.steps).toEqual([]);
      expect(response.projects[0]).toMatchObject({
        wip_claimed: 1,
        wip_remaining: 0,
        claimed_elsewhere: 1,
        wip_suppressed: 2,
      });
    });

    it('should mark the session’s own claim and keep it past a full cap', async () => {
      const { sut, repository } = makeSut(computed({ runnable: [item(1), item(2)] }));
      repository.liveClaims.mockResolvedValue([
        { item_id: 1, session_id: 11, project: 'atl', wip_slot: true, in_wip: false },
      ]);
      const response = await sut.schedule(ACTOR, { project: 'atl', session_id: 11 });
      expect(response.steps.map((s) => [s.item_id, s.claimed_by_session, s.position])).toEqual([['ATL-1', true, 1]]);
      expect(response.projects[0]).toMatchObject({ wip_suppressed: 1 });
    });
  });

  describe('decision', () => {
    it('should refuse a decision that claims to have dispatched and record nothing', async () => {
      const { sut, events } = makeSut();
      const err = await refusal(sut.decision(ACTOR, { reason: 'dry_run', dispatched: true }));
      expect(err).toMatchObject({ code: 'validation_failed', status: 400 });
      expect(events.record).not.toHaveBeenCalled();
    });

    it('should record a terminal exit with its target bucket only for requested_item_unavailable', async () => {
      const { sut, events } = makeSut();
      const response = await sut.decision(ACTOR, {
        reason: 'requested_item_unavailable',
        item_id: 'ATL-1',
        target_bucket: 'frozen',
        project: 'atl',
      });
      expect(response).toEqual({
        event_id: 'ev-1',
        detail: {
          item_id: 'ATL-1',
          adapter: null,
          dispatched: false,
          reason: 'requested_item_unavailable',
          project: 'atl',
          target_bucket: 'frozen',
        },
      });
      expect(events.record).toHaveBeenCalledTimes(1);
    });
  });
});
