import type { EntityManager } from 'typeorm';

import { WorkflowDefinition } from '@app/contracts/backlog';
import { ClaimHolder } from '@app/core';

import { AuthenticatedActor } from '../auth/actor';
import { testActor } from '../auth/test-actor';
import { CommentsService } from '../comments/comments.service';
import { DomainError } from '../common/domain-error';
import { refusal } from '../common/test-refusal';
import { projectNotFound, ProjectAccessService } from '../projects/project-access.service';
import { RulebookService } from '../rulebook/rulebook.service';
import { itemClaimedElsewhere } from '../rulebook/rulebook.errors';
import { WorkflowVersionRow } from '../workflows/dto/workflows.dto';
import { StageGateRegistry } from '../workflows/stage-gates';
import { WorkflowsService } from '../workflows/workflows.service';
import { ItemRow } from './dto/items.dto';
import { ItemsRepository } from './items.repository';
import { ItemsService } from './items.service';

const ACTOR = testActor();
const ITEM = { id: 7, ref: 'PRJ-7', project: 'prj' };
const MANAGER = {} as EntityManager;
const HOLDER: ClaimHolder = {
  sessionId: 9,
  actorId: 4,
  actor: 'bob',
  harness: 'claude-code',
  expiresAt: new Date('2026-11-28T12:00:00Z'),
};

const stage = (id: string, terminal = false) => ({
  id,
  name: id,
  adapter: 'conduct',
  entrypoint: null,
  gates: [],
  terminal,
});
const DEFINITION: WorkflowDefinition = {
  id: 'issue',
  name: 'issue',
  initial_stage: 'idea',
  stages: [stage('idea'), stage('implementing'), stage('done', true), stage('cancelled', true)],
};
const VERSION: WorkflowVersionRow = {
  workflow_id: 'issue',
  version: 2,
  id: 11,
  checksum: 'x',
  current: true,
  created_by: null,
  created_at: '2026-01-01T00:00:00.000Z',
  definition: DEFINITION,
};

function itemRow(overrides: Partial<ItemRow> = {}): ItemRow {
  return {
    id: ITEM.id,
    ref: ITEM.ref,
    project: ITEM.project,
    project_sequence: 7,
    title: 'a title',
    workflow_id: 'issue',
    workflow_version_id: VERSION.id,
    workflow_version: VERSION.version,
    status: 'idea',
    priority: 'medium',
    frozen: 0,
    blocked: 0,
    body: null,
    db_mutation_profile: '',
    db_compatibility_attestation: '{}',
    ...overrides,
  } as ItemRow;
}

function makeSut(row: ItemRow = itemRow()) {
  const detail = { ...row, sections: [], recent_comments: [], comment_count: 0 };
  const repository = {
    transaction: jest.fn(async <T>(work: (manager: EntityManager) => Promise<T>) => work(MANAGER)),
    lock: jest.fn(async () => ({ ...row })),
    lockWithClaim: jest.fn(async () => ({
      ...row,
      claim_holder: null,
      project_policy: {} as Record<string, unknown> | null,
    })),
    findById: jest.fn(async () => ({ ...row })),
    findDetail: jest.fn(async () => ({ ...row, sections: [] })),
    sectionsFor: jest.fn(async () => []),
    updateStatus: jest.fn(async () => undefined),
    updateField: jest.fn(async () => detail),
    resolve: jest.fn(async () => undefined),
    flowExists: jest.fn(async () => true),
    insertNext: jest.fn(
      async (): Promise<(typeof detail & { project_policy: Record<string, unknown> | null }) | null> => ({
        ...detail,
        project_policy: {},
      }),
    ),
    stampSpecUpdated: jest.fn(async () => undefined),
    upsertSection: jest.fn(async () => undefined),
    deleteSection: jest.fn(async () => true),
  };
  const access = {
    resolveItem: jest.fn(async (_actor: AuthenticatedActor, ref: string) =>
      ref === 'PRJ-8' ? { id: 8, ref: 'PRJ-8', project: 'prj' } : ITEM,
    ),
    itemTarget: jest.fn(async (_actor: AuthenticatedActor, ref: string) => ({
      ref,
      prefix: ref.split('-')[0],
      sequence: Number(ref.split('-')[1]),
      projects: null as string[] | null,
    })),
    assertProject: jest.fn(async () => undefined),
    projectPolicy: jest.fn(async (): Promise<string> => '{}'),
  };
  const workflows = { versionById: jest.fn(async () => VERSION), current: jest.fn(async () => VERSION) };
  const gates = { check: jest.fn(async () => undefined), checkMergeRecorded: jest.fn(async () => undefined) };
  const rulebook = { checkClaim: jest.fn(async () => undefined), releaseFinished: jest.fn(async () => undefined) };
  const comments = { recentOf: jest.fn(() => ({ comments: [], comment_count: 0 })) };
  const sut = new ItemsService(
    repository as unknown as ItemsRepository,
    access as unknown as ProjectAccessService,
    workflows as unknown as WorkflowsService,
    gates as unknown as StageGateRegistry,
    rulebook as unknown as RulebookService,
    comments as unknown as CommentsService,
  );
  return { sut, repository, access, workflows, gates, rulebook };
}

describe(ItemsService.name, () => {
  describe('setStatus', () => {
    it('should move through the gates and write the new stage', async () => {
      const { sut, repository, gates, rulebook } = makeSut();
      await sut.setStatus(ACTOR, 'PRJ-7', 'implementing');
      expect(rulebook.checkClaim).toHaveBeenCalledWith(
        MANAGER,
        ACTOR,
        ITEM,
        'status',
        false,
        expect.objectContaining({ claim_holder: null }),
      );
      expect(gates.check).toHaveBeenCalledWith(
        expect.objectContaining({ fromStage: 'idea', toStage: 'implementing', definition: DEFINITION }),
      );
      expect(repository.updateStatus).toHaveBeenCalledWith(ITEM.id, 'implementing', MANAGER);
      expect(rulebook.releaseFinished).not.toHaveBeenCalled();
    });

    it('should refuse a stage the pinned workflow version lacks with 409 stage_not_in_workflow and write nothing', async () => {
      const { sut, repository, gates } = makeSut();
      const err = await refusal(sut.setStatus(ACTOR, 'PRJ-7', 'shipped'));
      expect(err).toMatchObject({ code: 'stage_not_in_workflow', status: 409 });
      expect(err.extra).toEqual({
        status: 'shipped',
        workflow_id: 'issue',
        workflow_version: 2,
        stages: ['idea', 'implementing', 'done', 'cancelled'],
      });
      expect(gates.check).not.toHaveBeenCalled();
      expect(repository.updateStatus).not.toHaveBeenCalled();
    });

    it('should write nothing and pass no gate for a move to the current stage', async () => {
      const { sut, repository, gates } = makeSut(itemRow({ status: 'implementing' }));
      await sut.setStatus(ACTOR, 'PRJ-7', 'implementing');
      expect(gates.check).not.toHaveBeenCalled();
      expect(repository.updateStatus).not.toHaveBeenCalled();
    });

    it('should release the claim of an item reaching a terminal stage', async () => {
      const { sut, repository, rulebook } = makeSut(itemRow({ status: 'implementing' }));
      await sut.setStatus(ACTOR, 'PRJ-7', 'done');
      expect(repository.updateStatus).toHaveBeenCalledWith(ITEM.id, 'done', MANAGER);
      expect(rulebook.releaseFinished).toHaveBeenCalledWith(MANAGER, ITEM.id);
    });

    it('should keep the claim of a reopened item', async () => {
      const { sut, repository, rulebook } = makeSut(itemRow({ status: 'done' }));
      await sut.setStatus(ACTOR, 'PRJ-7', 'implementing');
      expect(repository.updateStatus).toHaveBeenCalledWith(ITEM.id, 'implementing', MANAGER);
      expect(rulebook.releaseFinished).not.toHaveBeenCalled();
    });

    it('should write nothing when the claim rule refuses the caller', async () => {
      const { sut, repository, rulebook, gates } = makeSut();
      rulebook.checkClaim.mockRejectedValueOnce(itemClaimedElsewhere(ITEM.ref, HOLDER));
      const err = await refusal(sut.setStatus(ACTOR, 'PRJ-7', 'implementing', true));
      expect(err).toMatchObject({ code: 'item_claimed_elsewhere', status: 409 });
      expect(rulebook.checkClaim).toHaveBeenCalledWith(
        MANAGER,
        ACTOR,
        ITEM,
        'status',
        true,
        expect.objectContaining({ claim_holder: null }),
      );
      expect(gates.check).not.toHaveBeenCalled();
      expect(repository.updateStatus).not.toHaveBeenCalled();
    });

    it('should write nothing when a gate refuses', async () => {
      const { sut, repository, gates, rulebook } = makeSut();
      gates.check.mockRejectedValueOnce(new DomainError('blocked_by_dependencies', 'no', 409));
      const err = await refusal(sut.setStatus(ACTOR, 'PRJ-7', 'done'));
      expect(err).toMatchObject({ code: 'blocked_by_dependencies', status: 409 });
      expect(repository.updateStatus).not.toHaveBeenCalled();
      expect(rulebook.releaseFinished).not.toHaveBeenCalled();
    });

    it('should answer 404 item_not_found when the row is gone under the lock', async () => {
      const { sut, repository } = makeSut();
      repository.lockWithClaim.mockResolvedValueOnce(null as never);
      const err = await refusal(sut.setStatus(ACTOR, 'PRJ-7', 'implementing'));
      expect(err).toMatchObject({ code: 'item_not_found', status: 404, extra: { item_id: 'PRJ-7' } });
      expect(repository.updateStatus).not.toHaveBeenCalled();
    });

    // ADR 0097: the ref is resolved by the locking statement; the caller's view is checked on the row it locked
    it('should answer 404 item_not_found, writing nothing, for an item of a project the caller does not see', async () => {
      const { sut, repository, access, rulebook } = makeSut();
      access.itemTarget.mockResolvedValueOnce({ ref: 'PRJ-7', prefix: 'PRJ', sequence: 7, projects: ['other'] });
      const err = await refusal(sut.setStatus(ACTOR, 'PRJ-7', 'implementing'));
      expect(err).toMatchObject({ code: 'item_not_found', status: 404 });
      expect(repository.lockWithClaim).toHaveBeenCalledWith(
        expect.objectContaining({ prefix: 'PRJ', sequence: 7 }),
        MANAGER,
      );
      expect(rulebook.checkClaim).not.toHaveBeenCalled();
      expect(repository.updateStatus).not.toHaveBeenCalled();
    });
  });

  describe('updateField', () => {
    it.each([
      ['colour', 'unknown_field'],
      ['status', 'field_not_writable'],
      ['created_at', 'field_not_writable'],
    ])('should refuse %s with 400 %s before reading the item', async (field, code) => {
      const { sut, repository, access } = makeSut();
      const err = await refusal(sut.updateField(ACTOR, 'PRJ-7', field, 'x'));
      expect(err).toMatchObject({ code, status: 400 });
      expect(access.itemTarget).not.toHaveBeenCalled();
      expect(repository.updateField).not.toHaveBeenCalled();
    });

    it('should name the operation that writes a field items update does not', async () => {
      const { sut } = makeSut();
      const err = await refusal(sut.updateField(ACTOR, 'PRJ-7', 'status', 'done'));
      expect(err.message).toContain('POST /v1/items/:ref/status');
      expect(err.extra).toEqual({ field: 'status' });
    });

    it('should refuse clearing the title with 400 invalid_value', async () => {
      const { sut, repository } = makeSut();
      const err = await refusal(sut.updateField(ACTOR, 'PRJ-7', 'title', null));
      expect(err).toMatchObject({ code: 'invalid_value', status: 400, message: 'title cannot be cleared' });
      expect(err.extra).toEqual({ field: 'title' });
      expect(repository.updateField).not.toHaveBeenCalled();
    });

    it.each([
      ['priority', 'triage'],
      ['owner', 'triage'],
      ['title', 'edit'],
      ['spec', 'edit'],
    ])('should ask the claim rule about %s as %s', async (field, kind) => {
      const { sut, rulebook } = makeSut();
      await sut.updateField(ACTOR, 'PRJ-7', field, field === 'owner' ? '4' : 'high');
      expect(rulebook.checkClaim).toHaveBeenCalledWith(
        MANAGER,
        ACTOR,
        ITEM,
        kind,
        false,
        expect.objectContaining({ claim_holder: null }),
      );
    });

    it('should write nothing when the claim rule refuses an edit', async () => {
      const { sut, repository, rulebook } = makeSut();
      rulebook.checkClaim.mockRejectedValueOnce(itemClaimedElsewhere(ITEM.ref, HOLDER));
      const err = await refusal(sut.updateField(ACTOR, 'PRJ-7', 'title', 'new'));
      expect(err).toMatchObject({ code: 'item_claimed_elsewhere', status: 409 });
      expect(err.extra).toMatchObject({ item_id: 'PRJ-7', holder: { actor: 'bob', session_id: 9 } });
      expect(repository.updateField).not.toHaveBeenCalled();
    });

    it('should refuse a title past the project policy with 400 title_too_long', async () => {
      const { sut, repository } = makeSut();
      repository.lockWithClaim.mockResolvedValueOnce({
        ...itemRow(),
        claim_holder: null,
        project_policy: { title_max_length: 5 },
      });
      const err = await refusal(sut.updateField(ACTOR, 'PRJ-7', 'title', 'abcdef'));
      expect(err).toMatchObject({ code: 'title_too_long', status: 400 });
      expect(err.extra).toEqual({ max_length: 5, length: 6 });
      expect(repository.updateField).not.toHaveBeenCalled();
    });

    it('should refuse an invalid priority with 400 invalid_value', async () => {
      const { sut, repository } = makeSut();
      const err = await refusal(sut.updateField(ACTOR, 'PRJ-7', 'priority', 'urgent'));
      expect(err).toMatchObject({ code: 'invalid_value', status: 400 });
      expect(err.extra).toEqual({ field: 'priority' });
      expect(repository.updateField).not.toHaveBeenCalled();
    });

    it('should refuse a deployment flow the project lacks with 400 deployment_flow_not_found', async () => {
      const { sut, repository } = makeSut();
      repository.flowExists.mockResolvedValueOnce(false);
      const err = await refusal(sut.updateField(ACTOR, 'PRJ-7', 'deployment_flow', 'nope'));
      expect(err).toMatchObject({ code: 'deployment_flow_not_found', status: 400 });
      expect(repository.flowExists).toHaveBeenCalledWith('prj', 'nope', MANAGER);
      expect(repository.updateField).not.toHaveBeenCalled();
    });

    it('should pass merged_at through the merge stage’s gates and write nothing when they refuse', async () => {
      const { sut, repository, gates } = makeSut();
      gates.checkMergeRecorded.mockRejectedValueOnce(new DomainError('gate_refused', 'no', 409));
      const err = await refusal(sut.updateField(ACTOR, 'PRJ-7', 'merged_at', '2026-11-28T10:00:00Z'));
      expect(err).toMatchObject({ code: 'gate_refused', status: 409 });
      expect(gates.checkMergeRecorded).toHaveBeenCalledWith(expect.objectContaining({ definition: DEFINITION }));
      expect(repository.updateField).not.toHaveBeenCalled();
    });

    it('should stamp a structured field with its writer and store a posture as compact JSON', async () => {
      const { sut, repository } = makeSut();
      await sut.updateField(ACTOR, 'PRJ-7', 'spec', 'the spec');
      expect(repository.updateField).toHaveBeenLastCalledWith(ITEM.id, 'spec', 'the spec', '3', MANAGER);
      await sut.updateField(ACTOR, 'PRJ-7', 'workflow_posture', '{ "a": 1 }');
      expect(repository.updateField).toHaveBeenLastCalledWith(ITEM.id, 'workflow_posture', '{"a":1}', null, MANAGER);
    });
  });

  describe('resolve', () => {
    it('should refuse a duplicate naming nothing with 400 resolution_ref_required and write nothing', async () => {
      const { sut, repository } = makeSut();
      const err = await refusal(sut.resolve(ACTOR, 'PRJ-7', { resolution: 'duplicate' }));
      expect(err).toMatchObject({ code: 'resolution_ref_required', status: 400 });
      expect(repository.transaction).not.toHaveBeenCalled();
    });

    it('should refuse an item duplicating itself with 400 invalid_value', async () => {
      const { sut, repository } = makeSut();
      const err = await refusal(sut.resolve(ACTOR, 'PRJ-7', { resolution: 'duplicate', resolution_ref: 'PRJ-7' }));
      expect(err).toMatchObject({ code: 'invalid_value', status: 400 });
      expect(err.extra).toEqual({ field: 'resolution_ref' });
      expect(repository.resolve).not.toHaveBeenCalled();
    });

    it('should move a duplicate to cancelled, releasing its claim, and record what it duplicates', async () => {
      const { sut, repository, rulebook } = makeSut();
      await sut.resolve(ACTOR, 'PRJ-7', { resolution: 'duplicate', resolution_ref: 'PRJ-8' });
      expect(rulebook.checkClaim).toHaveBeenCalledWith(
        MANAGER,
        ACTOR,
        ITEM,
        'resolve',
        false,
        expect.objectContaining({ claim_holder: null }),
      );
      expect(repository.updateStatus).toHaveBeenCalledWith(ITEM.id, 'cancelled', MANAGER);
      expect(rulebook.releaseFinished).toHaveBeenCalledWith(MANAGER, ITEM.id);
      expect(repository.resolve).toHaveBeenCalledWith(
        ITEM.id,
        { status: 'cancelled', resolution: 'duplicate', ref: 'PRJ-8', comment: null },
        MANAGER,
      );
    });

    it('should refuse a stage the workflow lacks and record no resolution', async () => {
      const { sut, repository } = makeSut();
      const err = await refusal(sut.resolve(ACTOR, 'PRJ-7', { resolution: 'wontfix', status: 'stopped' }));
      expect(err).toMatchObject({ code: 'stage_not_in_workflow', status: 409 });
      expect(repository.resolve).not.toHaveBeenCalled();
    });
  });

  describe('create', () => {
    it('should refuse a starting stage the workflow lacks with 409 stage_not_in_workflow and insert nothing', async () => {
      const { sut, repository } = makeSut();
      const err = await refusal(sut.create(ACTOR, { project: 'prj', title: 't', status: 'shipped' }));
      expect(err).toMatchObject({ code: 'stage_not_in_workflow', status: 409 });
      expect(repository.insertNext).not.toHaveBeenCalled();
    });

    // the title is checked against the policy read first, and the insert goes only while that policy stands
    it('should refuse a title past the project’s policy with 400 title_too_long before any transaction', async () => {
      const { sut, repository, access } = makeSut();
      access.projectPolicy.mockResolvedValueOnce('{"title_max_length": 5}');
      const err = await refusal(sut.create(ACTOR, { project: 'prj', title: 'abcdef' }));
      expect(err).toMatchObject({ code: 'title_too_long', status: 400 });
      expect(repository.transaction).not.toHaveBeenCalled();
    });

    it('should send a plain create’s insert with its COMMIT, inserting only while the policy it checked stands', async () => {
      const { sut, repository } = makeSut();
      await expect(sut.create(ACTOR, { project: 'prj', title: 't' })).resolves.toMatchObject({ item_id: ITEM.ref });
      expect(repository.insertNext).toHaveBeenCalledWith(expect.anything(), MANAGER, { policy: '{}', last: true });
      await sut.create(ACTOR, { project: 'prj', title: 't', spec: 'the spec' });
      expect(repository.insertNext).toHaveBeenLastCalledWith(expect.anything(), MANAGER, { policy: '{}', last: false });
    });

    // ADR 0097: then the policy comes with the insert, which the refusal rolls back; nothing after it runs
    it('should check the policy its insert locked once the policy changed twice under it', async () => {
      const { sut, repository, gates, access } = makeSut();
      repository.insertNext
        .mockResolvedValueOnce(null)
        .mockResolvedValueOnce(null)
        .mockResolvedValueOnce({
          ...itemRow(),
          sections: [],
          recent_comments: [],
          comment_count: 0,
          project_policy: { title_max_length: 5 },
        });
      const err = await refusal(
        sut.create(ACTOR, { project: 'prj', title: 'abcdef', status: 'implementing', spec: 'the spec' }),
      );
      expect(err).toMatchObject({ code: 'title_too_long', status: 400 });
      expect(access.projectPolicy).toHaveBeenCalledTimes(3);
      expect(repository.insertNext).toHaveBeenLastCalledWith(expect.anything(), MANAGER, null);
      expect(repository.stampSpecUpdated).not.toHaveBeenCalled();
      expect(gates.check).not.toHaveBeenCalled();
      expect(repository.findDetail).not.toHaveBeenCalled();
    });

    it('should answer with the item its insert returned, reading it again only after a later step', async () => {
      const { sut, repository } = makeSut();
      await expect(sut.create(ACTOR, { project: 'prj', title: 't' })).resolves.toMatchObject({ item_id: ITEM.ref });
      expect(repository.findDetail).not.toHaveBeenCalled();
      await sut.create(ACTOR, { project: 'prj', title: 't', status: 'implementing' });
      expect(repository.findDetail).toHaveBeenCalledWith(ITEM.id, undefined);
    });

    it('should refuse with 404 project_not_found when the project is gone at the insert', async () => {
      const { sut, repository, access } = makeSut();
      repository.insertNext.mockResolvedValueOnce(null);
      access.projectPolicy.mockResolvedValueOnce('{}').mockRejectedValueOnce(projectNotFound('prj'));
      const err = await refusal(sut.create(ACTOR, { project: 'prj', title: 't' }));
      expect(err).toMatchObject({ code: 'project_not_found', status: 404 });
      expect(repository.insertNext).toHaveBeenCalledTimes(1);
      expect(repository.stampSpecUpdated).not.toHaveBeenCalled();
    });

    it('should insert at the initial stage and move a later start through the gates', async () => {
      const { sut, repository, gates } = makeSut();
      await sut.create(ACTOR, { project: 'prj', title: 't', status: 'implementing' });
      expect(repository.insertNext).toHaveBeenCalledWith(expect.objectContaining({ status: 'idea' }), MANAGER, {
        policy: '{}',
        last: false,
      });
      expect(gates.check).toHaveBeenCalledWith(expect.objectContaining({ fromStage: 'idea', toStage: 'implementing' }));
      expect(repository.updateStatus).toHaveBeenCalledWith(ITEM.id, 'implementing', MANAGER);
    });
  });

  describe('sections', () => {
    it('should refuse a bad section name with 400 invalid_section_name before reading the item', async () => {
      const { sut, access, repository } = makeSut();
      const err = await refusal(sut.upsertSection(ACTOR, 'PRJ-7', 'bad/name', { content: 'x' }));
      expect(err).toMatchObject({ code: 'invalid_section_name', status: 400 });
      expect(access.itemTarget).not.toHaveBeenCalled();
      expect(repository.upsertSection).not.toHaveBeenCalled();
    });

    it('should write no section when the claim rule refuses', async () => {
      const { sut, repository, rulebook } = makeSut();
      rulebook.checkClaim.mockRejectedValueOnce(itemClaimedElsewhere(ITEM.ref, HOLDER));
      const err = await refusal(sut.upsertSection(ACTOR, 'PRJ-7', 'notes', { content: 'x' }));
      expect(err).toMatchObject({ code: 'item_claimed_elsewhere', status: 409 });
      expect(rulebook.checkClaim).toHaveBeenCalledWith(
        MANAGER,
        ACTOR,
        ITEM,
        'edit',
        false,
        expect.objectContaining({ claim_holder: null }),
      );
      expect(repository.upsertSection).not.toHaveBeenCalled();
    });

    it('should answer 404 section_not_found when there was nothing to delete', async () => {
      const { sut, repository } = makeSut();
      repository.deleteSection.mockResolvedValueOnce(false);
      const err = await refusal(sut.deleteSection(ACTOR, 'PRJ-7', 'notes'));
      expect(err).toMatchObject({ code: 'section_not_found', status: 404 });
    });
  });
});
