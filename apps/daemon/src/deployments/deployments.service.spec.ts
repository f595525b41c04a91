import { testActor } from '../auth/test-actor';
import { refusal } from '../common/test-refusal';
import { EventsService } from '../events/events.service';
import { ProjectAccessService } from '../projects/project-access.service';
import { RefsService } from '../refs/refs.service';
import { DeploymentsRepository } from './deployments.repository';
import { DeploymentsService } from './deployments.service';
import type { FlowWire } from '@app/contracts';

import { RunRow } from './dto/deployments.dto';

const MEMBER = testActor();
const ITEM = { id: 7, ref: 'DEP-1', project: 'dep' };

const FLOW = {
  id: 'ship',
  project: 'dep',
  name: 'ship',
  stages: ['build', { name: 'production', approval: { role: 'admin' } }],
  complete_before_done: true,
} as unknown as FlowWire;

const halted = (over: Partial<RunRow> = {}): RunRow => ({
  id: 'run-1',
  project: 'dep',
  flow_id: 'ship',
  environment: 'production',
  status: 'halted',
  current_stage: 'production',
  stage_index: 2,
  stage_count: 2,
  carried_items: [7],
  qa_summary: null,
  blocked_reason: null,
  started_at: '2025-03-01T12:00:00.000Z',
  finished_at: null,
  halt_kind: 'awaiting-approval',
  halt_stage: 'production',
  halt_missing: [],
  halted_at: '2025-03-01T12:00:00.000Z',
  capabilities: null,
  required_approval: 'admin',
  ...over,
});

type Membership = { organization: string | null; role: string | null; status: string | null };

function makeSut(membership: Membership = { organization: 'acme', role: 'admin', status: 'active' }, run = halted()) {
  const repository = {
    transaction: jest.fn(async <T>(work: (manager: unknown) => Promise<T>) => work({})),
    latestFlowRun: jest.fn(async (): Promise<RunRow | null> => run),
    run: jest.fn(async (): Promise<RunRow | null> => run),
    lockRun: jest.fn(async (): Promise<RunRow | null> => run),
    flow: jest.fn(async (): Promise<FlowWire | null> => FLOW),
    approval: jest.fn(async (): Promise<{ approved_by: string | null; approved_at: string } | null> => null),
    approvals: jest.fn(async () => ({ stages: new Set<number>(), byAdmin: false })),
    approvalRoles: jest.fn(async () => new Map<string, 'member' | 'admin'>()),
    approverStanding: jest.fn(async () => ({ ...membership, policy: {} as Record<string, unknown> })),
    insertApproval: jest.fn(async () => ({ approved_at: '2025-03-01T12:05:00.000Z' })),
    insertFlow: jest.fn(async () => true),
    setEnvironmentRetired: jest.fn(async () => true),
    environment: jest.fn(async () => ({ project: 'dep', name: 'production', retired_at: null })),
    updateRun: jest.fn(async () => undefined),
    setCapabilities: jest.fn(async () => undefined),
    setHalt: jest.fn(async () => undefined),
    cacheDeployStage: jest.fn(async () => undefined),
  };
  const access = {
    assertProject: jest.fn(async () => undefined),
    resolveItem: jest.fn(async () => ITEM),
    canSee: jest.fn(async () => true),
  };
  const refs = { refsOf: jest.fn(async (ids: readonly number[]) => new Map(ids.map((i) => [i, `DEP-${i}`]))) };
  const events = { record: jest.fn(async () => ({ id: '42' })) };
  const sut = new DeploymentsService(
    repository as unknown as DeploymentsRepository,
    access as unknown as ProjectAccessService,
    refs as unknown as RefsService,
    events as unknown as EventsService,
  );
  return { sut, repository, access, refs, events };
}

describe(DeploymentsService.name, () => {
  describe('approve', () => {
    it('should record an admin approval of the halted stage with its event', async () => {
      const { sut, repository, events } = makeSut();
      const answer = await sut.approve(MEMBER, { item: 'DEP-1' });
      expect(answer).toMatchObject({
        item_id: 'DEP-1',
        run_id: 'run-1',
        stage: 'production',
        stage_index: 2,
        event_id: '42',
      });
      expect(repository.insertApproval).toHaveBeenCalledWith(
        expect.objectContaining({ runId: 'run-1', stageIndex: 2, role: 'admin', actorId: 3 }),
        {},
      );
      expect(events.record).toHaveBeenCalledWith(expect.objectContaining({ name: 'DeploymentApproved' }), {});
    });

    it('should refuse when no run awaits approval', async () => {
      const { sut, repository } = makeSut(undefined, halted({ status: 'running', halt_kind: null }));
      const err = await refusal(sut.approve(MEMBER, { item: 'DEP-1' }));
      expect(err).toMatchObject({ code: 'not_awaiting_approval', status: 409 });
      expect(repository.insertApproval).not.toHaveBeenCalled();
    });

    it('should refuse a stage approved already, naming who', async () => {
      const { sut, repository } = makeSut();
      repository.approval.mockResolvedValue({ approved_by: 'bob', approved_at: '2025-03-01T12:01:00.000Z' });
      const err = await refusal(sut.approve(MEMBER, { item: 'DEP-1' }));
      expect(err).toMatchObject({ code: 'already_approved', status: 409 });
      expect(err.extra).toMatchObject({ approved_by: 'bob' });
    });

    it('should refuse an inactive member of the organization', async () => {
      const { sut, repository } = makeSut({ organization: 'acme', role: 'admin', status: 'suspended' });
      const err = await refusal(sut.approve(MEMBER, { item: 'DEP-1' }));
      expect(err).toMatchObject({ code: 'organization_membership_required', status: 403 });
      expect(err.extra).toEqual({ organization: 'acme' });
      expect(repository.insertApproval).not.toHaveBeenCalled();
    });

    it('should refuse a member at an admin stage', async () => {
      const { sut, events } = makeSut({ organization: 'acme', role: 'member', status: 'active' });
      const err = await refusal(sut.approve(MEMBER, { item: 'DEP-1' }));
      expect(err).toMatchObject({ code: 'admin_approval_required', status: 403 });
      expect(events.record).not.toHaveBeenCalled();
    });
  });

  describe('retireEnvironment', () => {
    it('should refuse a member and change nothing', async () => {
      const { sut, repository } = makeSut({ organization: 'acme', role: 'member', status: 'active' });
      const err = await refusal(sut.retireEnvironment(MEMBER, 'dep', 'production'));
      expect(err).toMatchObject({ code: 'environment_admin_required', status: 403 });
      expect(err.extra).toEqual({ environment: 'production', organization: 'acme', required: 'admin' });
      expect(repository.setEnvironmentRetired).not.toHaveBeenCalled();
    });

    it('should answer a missing environment as not found to an admin', async () => {
      const { sut, repository } = makeSut();
      repository.setEnvironmentRetired.mockResolvedValue(false);
      expect(await refusal(sut.retireEnvironment(MEMBER, 'dep', 'nowhere'))).toMatchObject({
        code: 'environment_not_found',
        status: 404,
      });
    });
  });

  describe('createFlow', () => {
    it('should refuse a member writing a flow with an admin approval stage', async () => {
      const { sut, repository } = makeSut({ organization: 'acme', role: 'member', status: 'active' });
      const dto = { id: 'ship', project: 'dep', name: 'ship', stages: FLOW.stages };
      const err = await refusal(sut.createFlow(MEMBER, dto as never));
      expect(err).toMatchObject({ code: 'approver_required', status: 403 });
      expect(err.extra).toEqual({ environment: 'production', required: 'admin', organization: 'acme' });
      expect(repository.insertFlow).not.toHaveBeenCalled();
    });
  });

  describe('resumeRun', () => {
    it('should refuse a run that is not halted and write nothing', async () => {
      const { sut, repository } = makeSut(undefined, halted({ status: 'running', halt_kind: null }));
      const err = await refusal(sut.resumeRun(MEMBER, 'run-1', {}));
      expect(err).toMatchObject({ code: 'run_not_halted', status: 409 });
      expect(repository.updateRun).not.toHaveBeenCalled();
    });

    it('should answer a run the caller cannot see as missing', async () => {
      const { sut, access } = makeSut();
      access.canSee.mockResolvedValue(false);
      expect(await refusal(sut.resumeRun(MEMBER, 'run-1', {}))).toMatchObject({ code: 'deployment_run_not_found' });
    });
  });

  describe('checkComplete', () => {
    const ctx = (fromStage: string, toStage: string) =>
      ({ item: ITEM, fromStage, toStage, manager: {} }) as unknown as Parameters<
        DeploymentsService['checkComplete']
      >[0];

    it('should hold an item at done while its run has not succeeded', async () => {
      const { sut } = makeSut();
      expect(await sut.checkComplete(ctx('review', 'done'))).toMatchObject({
        code: 'deployment_incomplete',
        status: 409,
      });
    });

    it('should let an item reach done once its run succeeded, and other moves always', async () => {
      const { sut } = makeSut(undefined, halted({ status: 'succeeded', halt_kind: null }));
      expect(await sut.checkComplete(ctx('review', 'done'))).toBeNull();
      expect(await makeSut().sut.checkComplete(ctx('plan', 'review'))).toBeNull();
    });
  });
});
