import type { EntityManager } from 'typeorm';

import { testActor } from '../auth/test-actor';
import { DomainError } from '../common/domain-error';
import { refusal } from '../common/test-refusal';
import { WorkflowVersionRow } from './dto/workflows.dto';
import { StageGateRegistry } from './stage-gates';
import { WorkflowsRepository } from './workflows.repository';
import { WorkflowsService } from './workflows.service';

const SERVER_ADMIN = testActor({ id: 1, name: 'root', isAdmin: true });
const MEMBER = testActor();
const MANAGER = {} as EntityManager;

const raw = () => ({
  id: 'mini',
  name: 'Mini',
  initial_stage: 'todo',
  stages: [
    { id: 'todo', adapter: 'conduct', entrypoint: '/svc conduct {ref}', gates: [{ type: 'check_hard_blocks' }] },
    { id: 'done', adapter: 'skip', terminal: true },
    { id: 'cancelled', adapter: 'skip', terminal: true },
    { id: 'stopped', adapter: 'skip', terminal: true },
    { id: 'failed', adapter: 'skip', terminal: true },
  ],
});

const versionRow = (id: number, version: number): WorkflowVersionRow =>
  ({
    workflow_id: 'mini',
    version,
    id,
    checksum: `c${id}`,
    current: true,
    created_by: '1',
    created_at: '2026-01-01T00:00:00.000Z',
    definition: { id: 'mini', name: 'Mini', initial_stage: 'todo', stages: [] },
  }) as WorkflowVersionRow;

function makeSut(known: string[] = ['check_hard_blocks']) {
  const repository = {
    transaction: jest.fn(async <T>(work: (manager: EntityManager) => Promise<T>) => work(MANAGER)),
    lockWorkflow: jest.fn(async () => undefined),
    findCurrent: jest.fn(async (): Promise<WorkflowVersionRow | null> => null),
    findByChecksum: jest.fn(async (): Promise<WorkflowVersionRow | null> => null),
    insertVersion: jest.fn(async () => 12),
    makeCurrent: jest.fn(async () => undefined),
    setCurrentIfUnset: jest.fn(async () => undefined),
    findVersionById: jest.fn(async (id: number): Promise<WorkflowVersionRow | null> => versionRow(id, 2)),
    findVersion: jest.fn(async (): Promise<WorkflowVersionRow | null> => null),
    list: jest.fn(async () => []),
  };
  const gates = new StageGateRegistry();
  for (const type of known) gates.register(type, async () => null);
  const sut = new WorkflowsService(repository as unknown as WorkflowsRepository, gates);
  return { sut, repository };
}

describe(WorkflowsService.name, () => {
  describe('register', () => {
    it('should refuse anyone but a server admin with 403 forbidden and write nothing', async () => {
      const { sut, repository } = makeSut();
      const err = await refusal(sut.register(MEMBER, raw()));
      expect(err).toMatchObject({ code: 'forbidden', status: 403 });
      expect(repository.insertVersion).not.toHaveBeenCalled();
    });

    it('should refuse an admin confined to one organization with 403 forbidden', async () => {
      const { sut, repository } = makeSut();
      const err = await refusal(sut.register({ ...SERVER_ADMIN, organizationId: 4 }, raw()));
      expect(err).toMatchObject({ code: 'forbidden', status: 403 });
      expect(repository.insertVersion).not.toHaveBeenCalled();
    });

    it('should refuse an invalid definition with 400 invalid_workflow_definition naming each field', async () => {
      const { sut, repository } = makeSut();
      const err = await refusal(sut.register(SERVER_ADMIN, { ...raw(), colour: 'red' }));
      expect(err).toMatchObject({ code: 'invalid_workflow_definition', status: 400 });
      expect(err.extra.fields).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'colour' })]));
      expect(repository.transaction).not.toHaveBeenCalled();
    });

    it('should refuse a gate type no checker implements with 400 unknown_gate_type', async () => {
      const { sut, repository } = makeSut(['check_other']);
      const err = await refusal(sut.register(SERVER_ADMIN, raw()));
      expect(err).toMatchObject({ code: 'unknown_gate_type', status: 400 });
      expect(err.extra).toEqual({ gate_types: ['check_hard_blocks'], known: ['check_other'] });
      expect(repository.transaction).not.toHaveBeenCalled();
    });

    it('should write a new current version of a changed definition', async () => {
      const { sut, repository } = makeSut();
      const answer = await sut.register(SERVER_ADMIN, raw());
      expect(repository.insertVersion).toHaveBeenCalledWith(expect.objectContaining({ id: 'mini' }), '1', MANAGER);
      expect(repository.makeCurrent).toHaveBeenCalledWith('mini', 12, 'Mini', MANAGER);
      expect(answer).toMatchObject({ created: true, version: 2 });
    });

    it('should write nothing when the definition is the current version’s', async () => {
      const { sut, repository } = makeSut();
      repository.findCurrent.mockResolvedValueOnce(versionRow(7, 1));
      repository.findByChecksum.mockResolvedValueOnce(versionRow(7, 1));
      const answer = await sut.register(SERVER_ADMIN, raw());
      expect(repository.insertVersion).not.toHaveBeenCalled();
      expect(repository.makeCurrent).not.toHaveBeenCalled();
      expect(answer).toMatchObject({ created: false, version: 1 });
    });

    it('should make a new current version when the definition matches an older one', async () => {
      const { sut, repository } = makeSut();
      repository.findCurrent.mockResolvedValueOnce(versionRow(8, 2));
      repository.findByChecksum.mockResolvedValueOnce(versionRow(7, 1));
      await sut.register(SERVER_ADMIN, raw());
      expect(repository.insertVersion).toHaveBeenCalled();
      expect(repository.makeCurrent).toHaveBeenCalledWith('mini', 12, 'Mini', MANAGER);
    });
  });

  describe('registerIn without making current (import)', () => {
    it('should reuse a version with the same checksum and write nothing', async () => {
      const { sut, repository } = makeSut();
      repository.findByChecksum.mockResolvedValueOnce(versionRow(7, 1));
      const definition = sut.parseDefinition(raw());
      const { row, created } = await sut.registerIn(definition, '1', MANAGER, false);
      expect({ id: row.id, created }).toEqual({ id: 7, created: false });
      expect(repository.insertVersion).not.toHaveBeenCalled();
    });

    it('should set a new version current only where none is', async () => {
      const { sut, repository } = makeSut();
      await sut.registerIn(sut.parseDefinition(raw()), '1', MANAGER, false);
      expect(repository.setCurrentIfUnset).toHaveBeenCalledWith('mini', 12, MANAGER);
      expect(repository.makeCurrent).not.toHaveBeenCalled();
    });
  });

  describe('parseDefinition', () => {
    it('should prefix the fields of a definition nested in a larger document', () => {
      const { sut } = makeSut();
      let caught: unknown;
      try {
        sut.parseDefinition({ ...raw(), colour: 'red' }, 'workflows[0].');
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(DomainError);
      expect((caught as DomainError).extra.fields).toEqual(
        expect.arrayContaining([expect.objectContaining({ field: 'workflows[0].colour' })]),
      );
    });
  });

  describe('reads', () => {
    it('should answer a workflow without a current version with 404 workflow_not_found', async () => {
      const { sut } = makeSut();
      const err = await refusal(sut.current('nope'));
      expect(err).toMatchObject({ code: 'workflow_not_found', status: 404, message: 'no workflow nope' });
      expect(err.extra).toEqual({ workflow_id: 'nope' });
    });

    it('should answer a version the workflow lacks with 404 workflow_not_found naming it', async () => {
      const { sut } = makeSut();
      const err = await refusal(sut.version('mini', 9));
      expect(err).toMatchObject({ code: 'workflow_not_found', status: 404 });
      expect(err.extra).toEqual({ workflow_id: 'mini', version: 9 });
    });

    it('should treat a pinned version that is gone as 500 internal_error', async () => {
      const { sut, repository } = makeSut();
      repository.findVersionById.mockResolvedValueOnce(null);
      const err = await refusal(sut.versionById(99));
      expect(err).toMatchObject({ code: 'internal_error', status: 500 });
    });
  });
});
