import type { EntityManager } from 'typeorm';

import { testActor } from '../auth/test-actor';
import { refusal } from '../common/test-refusal';
import { ProjectAccessService } from '../projects/project-access.service';
import { EpicTaskRow } from './dto/epics.dto';
import { EpicsRepository } from './epics.repository';
import { EpicsService } from './epics.service';

const ACTOR = testActor();
const EPIC = { id: 5, ref: 'PRJ-5', project: 'prj' };
const MANAGER = {} as EntityManager;

const task = (num: number, dependencies: string | null = null): EpicTaskRow =>
  ({
    task_num: num,
    title: `task ${num}`,
    dependencies,
    status: 'pending',
    dispatch_attempts: 0,
    max_attempts: 3,
  }) as EpicTaskRow;

// Tasks 1, 2 (after 1) and 3 (after 2).
const TASKS = [task(1), task(2, '1'), task(3, '2')];

function makeSut(workflow = 'epic', tasks: EpicTaskRow[] = TASKS) {
  const repository = {
    transaction: jest.fn(async <T>(work: (manager: EntityManager) => Promise<T>) => work(MANAGER)),
    epicInfo: jest.fn(async () => ({ workflow_id: workflow })),
    lockEpic: jest.fn(async (): Promise<{ workflow_id: string; policy: Record<string, unknown> }> => ({
      workflow_id: workflow,
      policy: {},
    })),
    tasks: jest.fn(async () => tasks),
    task: jest.fn(async (_epic: number, num: number) => tasks.find((t) => t.task_num === num) ?? null),
    insertTask: jest.fn(async () => undefined),
    updateTask: jest.fn(async () => undefined),
    countDispatch: jest.fn(async () => true),
    files: jest.fn(async () => []),
    insertFile: jest.fn(async () => undefined),
    chains: jest.fn(async () => [{ worktree: 'wt', queue: '[1,2]' }]),
    upsertChain: jest.fn(async () => undefined),
    notes: jest.fn(async () => [{ note_num: 1 }]),
    insertNote: jest.fn(async () => 1),
  };
  const access = { resolveItem: jest.fn(async () => EPIC) };
  const sut = new EpicsService(repository as unknown as EpicsRepository, access as unknown as ProjectAccessService);
  return { sut, repository, access };
}

describe(EpicsService.name, () => {
  describe('an item that is not an epic', () => {
    it('should refuse with 409 not_an_epic and write nothing', async () => {
      const { sut, repository } = makeSut('issue');
      const err = await refusal(sut.createTask(ACTOR, 'PRJ-5', { title: 't' }));
      expect(err).toMatchObject({ code: 'not_an_epic', status: 409, message: 'PRJ-5 is not an epic (workflow issue)' });
      expect(repository.transaction).not.toHaveBeenCalled();
      expect(repository.insertTask).not.toHaveBeenCalled();
    });
  });

  describe('createTask', () => {
    it('should number a new task after the highest and store its dependencies', async () => {
      const { sut, repository } = makeSut();
      repository.task.mockResolvedValueOnce(task(4, '3'));
      await sut.createTask(ACTOR, 'PRJ-5', { title: 't', dependencies: [3, 3] });
      expect(repository.insertTask).toHaveBeenCalledWith(EPIC.id, 4, { title: 't', dependencies: '3' }, MANAGER);
    });

    it('should refuse a number already taken with 409 epic_task_exists', async () => {
      const { sut, repository } = makeSut();
      const err = await refusal(sut.createTask(ACTOR, 'PRJ-5', { title: 't', task_num: 2 }));
      expect(err).toMatchObject({ code: 'epic_task_exists', status: 409 });
      expect(repository.insertTask).not.toHaveBeenCalled();
    });

    it('should refuse a title past the project policy with 400 title_too_long', async () => {
      const { sut, repository } = makeSut();
      repository.lockEpic.mockResolvedValueOnce({ workflow_id: 'epic', policy: { title_max_length: 3 } });
      const err = await refusal(sut.createTask(ACTOR, 'PRJ-5', { title: 'four' }));
      expect(err).toMatchObject({ code: 'title_too_long', status: 400 });
      expect(repository.insertTask).not.toHaveBeenCalled();
    });

    it('should refuse dependencies on tasks the epic lacks with 400 unknown_task', async () => {
      const { sut, repository } = makeSut();
      const err = await refusal(sut.createTask(ACTOR, 'PRJ-5', { title: 't', dependencies: [1, 9] }));
      expect(err).toMatchObject({ code: 'unknown_task', status: 400 });
      expect(err.extra).toEqual({ unknown: [9] });
      expect(repository.insertTask).not.toHaveBeenCalled();
    });
  });

  describe('updateTask', () => {
    it('should refuse a dependency that closes a cycle with 409 dependency_cycle and write nothing', async () => {
      const { sut, repository } = makeSut();
      const err = await refusal(sut.updateTask(ACTOR, 'PRJ-5', 1, { dependencies: [3] }));
      expect(err).toMatchObject({ code: 'dependency_cycle', status: 409 });
      expect(err.extra.cycle).toEqual(expect.arrayContaining([1, 2, 3]));
      expect(repository.updateTask).not.toHaveBeenCalled();
    });

    it('should refuse a task depending on itself with 400 unknown_task', async () => {
      const { sut, repository } = makeSut();
      const err = await refusal(sut.updateTask(ACTOR, 'PRJ-5', 2, { dependencies: [2] }));
      expect(err).toMatchObject({ code: 'unknown_task', status: 400 });
      expect(repository.updateTask).not.toHaveBeenCalled();
    });

    it('should refuse a task the epic lacks with 404 epic_task_not_found', async () => {
      const { sut, repository } = makeSut();
      const err = await refusal(sut.updateTask(ACTOR, 'PRJ-5', 9, { title: 'x' }));
      expect(err).toMatchObject({ code: 'epic_task_not_found', status: 404 });
      expect(err.extra).toEqual({ epic: 'PRJ-5', task_num: 9 });
      expect(repository.updateTask).not.toHaveBeenCalled();
    });

    it('should write the fields and pass the heartbeat apart', async () => {
      const { sut, repository } = makeSut();
      await sut.updateTask(ACTOR, 'PRJ-5', 3, { status: 'running', heartbeat: true });
      expect(repository.updateTask).toHaveBeenCalledWith(EPIC.id, 3, { status: 'running' }, true, MANAGER);
    });
  });

  describe('dispatch', () => {
    it('should refuse a task out of attempts with 409 max_attempts_reached', async () => {
      const { sut, repository } = makeSut();
      repository.countDispatch.mockResolvedValueOnce(false);
      const err = await refusal(sut.dispatch(ACTOR, 'PRJ-5', 1));
      expect(err).toMatchObject({ code: 'max_attempts_reached', status: 409 });
      expect(err.extra).toEqual({ dispatch_attempts: 0, max_attempts: 3 });
    });

    it('should refuse a task the epic lacks with 404 epic_task_not_found and count nothing', async () => {
      const { sut, repository } = makeSut();
      const err = await refusal(sut.dispatch(ACTOR, 'PRJ-5', 9));
      expect(err).toMatchObject({ code: 'epic_task_not_found', status: 404 });
      expect(repository.countDispatch).not.toHaveBeenCalled();
    });
  });

  describe('addFile', () => {
    it('should refuse a task the epic lacks with 404 epic_task_not_found and write nothing', async () => {
      const { sut, repository } = makeSut();
      const err = await refusal(sut.addFile(ACTOR, 'PRJ-5', 9, { file_path: 'a.ts' }));
      expect(err).toMatchObject({ code: 'epic_task_not_found', status: 404 });
      expect(repository.insertFile).not.toHaveBeenCalled();
    });
  });

  describe('upsertChain', () => {
    it.each([[''], ['x'.repeat(501)]])(
      'should refuse a worktree of %#th bad length with 400 invalid_value before reading',
      async (worktree) => {
        const { sut, repository, access } = makeSut();
        const err = await refusal(sut.upsertChain(ACTOR, 'PRJ-5', worktree, {}));
        expect(err).toMatchObject({ code: 'invalid_value', status: 400 });
        expect(err.extra).toEqual({ field: 'worktree' });
        expect(access.resolveItem).not.toHaveBeenCalled();
        expect(repository.upsertChain).not.toHaveBeenCalled();
      },
    );

    it('should refuse a queue naming unknown tasks with 400 unknown_task and write nothing', async () => {
      const { sut, repository } = makeSut();
      const err = await refusal(sut.upsertChain(ACTOR, 'PRJ-5', 'wt', { queue: [1, 7, 8] }));
      expect(err).toMatchObject({ code: 'unknown_task', status: 400 });
      expect(err.extra).toEqual({ unknown: [7, 8] });
      expect(repository.upsertChain).not.toHaveBeenCalled();
    });

    it('should store the queue as JSON', async () => {
      const { sut, repository } = makeSut();
      const chain = await sut.upsertChain(ACTOR, 'PRJ-5', 'wt', { queue: [1, 2] });
      expect(repository.upsertChain).toHaveBeenCalledWith(EPIC.id, 'wt', { queue: '[1,2]' }, MANAGER);
      expect(chain).toMatchObject({ epic: 'PRJ-5', worktree: 'wt', queue: [1, 2] });
    });
  });

  describe('addNote', () => {
    it('should refuse a task the epic lacks with 404 epic_task_not_found and write nothing', async () => {
      const { sut, repository } = makeSut();
      const err = await refusal(sut.addNote(ACTOR, 'PRJ-5', 9, { body: 'b' }));
      expect(err).toMatchObject({ code: 'epic_task_not_found', status: 404 });
      expect(repository.insertNote).not.toHaveBeenCalled();
    });

    it('should sign a note with the caller’s name when it names no author', async () => {
      const { sut, repository } = makeSut();
      await sut.addNote(ACTOR, 'PRJ-5', 1, { body: 'b' });
      expect(repository.insertNote).toHaveBeenCalledWith(EPIC.id, 1, 'b', 'alice', MANAGER);
    });
  });
});
