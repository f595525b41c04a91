import { AccessService } from '../auth/access.service';
import { testActor } from '../auth/test-actor';
import { refusal } from '../common/test-refusal';
import { ProjectRow } from './dto/projects.dto';
import { ProjectAccessService } from './project-access.service';
import { projectNotFound } from './projects.errors';
import { ProjectsRepository } from './projects.repository';
import { ProjectsService } from './projects.service';

const ACTOR = testActor();

const row = (policy: Record<string, unknown> = {}): ProjectRow => ({
  id: 'alpha',
  name: 'Alpha',
  public_item_prefix: 'ALP',
  next_sequence: 1,
  policy,
  organization: 'acme',
  created_at: '2025-03-01T12:00:00.000Z',
  updated_at: '2025-03-01T12:00:00.000Z',
});

function makeSut(options: { stored?: ProjectRow | null; isOrgAdmin?: boolean; organizationId?: number | null } = {}) {
  const stored = options.stored === undefined ? row({ wip_cap: 4 }) : options.stored;
  const repository = {
    organizationFor: jest.fn(async () => (options.organizationId === undefined ? 9 : options.organizationId)),
    insert: jest.fn(async () => true),
    conflictOf: jest.fn(async (): Promise<'id' | 'prefix' | null> => 'id'),
    find: jest.fn(async () => stored),
    findForUpdate: jest.fn(async () => stored),
    list: jest.fn(async () => (stored ? [stored] : [])),
    update: jest.fn(async () => undefined),
    transaction: jest.fn(async <T>(work: (manager: unknown) => Promise<T>) => work({})),
  };
  const access = {
    assertProject: jest.fn(async () => undefined),
    visibleProjects: jest.fn(async (): Promise<string[] | null> => ['alpha']),
  };
  const standing = {
    projectAdministration: jest.fn(async () => ({ organization: 'acme', isOrgAdmin: options.isOrgAdmin ?? false })),
  };
  const sut = new ProjectsService(
    repository as unknown as ProjectsRepository,
    access as unknown as ProjectAccessService,
    standing as unknown as AccessService,
  );
  return { sut, repository, access, standing };
}

const create = { id: 'alpha', name: 'Alpha', public_item_prefix: 'ALP' };

describe(ProjectsService.name, () => {
  describe('create', () => {
    it("should create the project in the caller's organization", async () => {
      const { sut, repository } = makeSut();
      expect(await sut.create(ACTOR, create)).toMatchObject({ id: 'alpha' });
      expect(repository.insert).toHaveBeenCalledWith(expect.objectContaining({ id: 'alpha', organizationId: 9 }));
    });

    it('should refuse an invalid policy before anything is read', async () => {
      const { sut, repository } = makeSut();
      const err = await refusal(sut.create(ACTOR, { ...create, policy: { colour: 'blue' } }));
      expect(err).toMatchObject({ code: 'validation_failed', status: 400 });
      expect(repository.organizationFor).not.toHaveBeenCalled();
    });

    it('should refuse a caller of no organization and insert nothing', async () => {
      const { sut, repository } = makeSut({ organizationId: null });
      expect(await refusal(sut.create(ACTOR, create))).toMatchObject({ code: 'organization_membership_required' });
      expect(repository.insert).not.toHaveBeenCalled();
    });

    it.each([
      ['id', 'project_exists'],
      ['prefix', 'prefix_taken'],
    ] as const)('should name a taken %s with %s', async (conflict, code) => {
      const { sut, repository } = makeSut();
      repository.insert.mockResolvedValue(false);
      repository.conflictOf.mockResolvedValue(conflict);
      expect(await refusal(sut.create(ACTOR, create))).toMatchObject({ code, status: 409 });
    });
  });

  describe('get', () => {
    it('should refuse a project the caller cannot see', async () => {
      const { sut, access, repository } = makeSut();
      access.assertProject.mockRejectedValue(projectNotFound('alpha'));
      expect(await refusal(sut.get(ACTOR, 'alpha'))).toMatchObject({ code: 'project_not_found', status: 404 });
      expect(repository.find).not.toHaveBeenCalled();
    });
  });

  describe('list', () => {
    it('should list only the visible projects', async () => {
      const { sut, repository } = makeSut();
      expect((await sut.list(ACTOR)).projects.map((p) => p.id)).toEqual(['alpha']);
      expect(repository.list).toHaveBeenCalledWith(['alpha']);
    });
  });

  describe('update', () => {
    it("should let a member change the name and the policy's other keys without asking their standing", async () => {
      const { sut, repository, standing } = makeSut();
      await sut.update(ACTOR, 'alpha', { name: 'Renamed', policy: { title_max_length: 80 } });
      expect(standing.projectAdministration).not.toHaveBeenCalled();
      expect(repository.update).toHaveBeenCalledWith(
        'alpha',
        'Renamed',
        expect.objectContaining({ wip_cap: 4, title_max_length: 80 }),
        {},
      );
    });

    it('should refuse a member changing the WIP cap, writing nothing', async () => {
      const { sut, repository } = makeSut();
      const err = await refusal(sut.update(ACTOR, 'alpha', { policy: { wip_cap: 8 } }));
      expect(err).toMatchObject({ code: 'wip_cap_policy_forbidden', status: 403 });
      expect(err.extra).toMatchObject({ project: 'alpha', policy_wip_cap: 4, organization: 'acme' });
      expect(repository.update).not.toHaveBeenCalled();
    });

    it('should let an organization admin change the WIP cap', async () => {
      const { sut, repository } = makeSut({ isOrgAdmin: true });
      await sut.update(ACTOR, 'alpha', { policy: { wip_cap: 8 } });
      expect(repository.update).toHaveBeenCalledWith('alpha', undefined, expect.objectContaining({ wip_cap: 8 }), {});
    });

    it('should refuse a member setting who approves deployments before the transaction', async () => {
      const { sut, repository } = makeSut();
      const err = await refusal(sut.update(ACTOR, 'alpha', { policy: { deployment_approval_role: 'admin' } }));
      expect(err).toMatchObject({ code: 'policy_admin_required', status: 403 });
      expect(err.extra).toEqual({ field: 'policy.deployment_approval_role', organization: 'acme' });
      expect(repository.transaction).not.toHaveBeenCalled();
    });

    it('should answer a project gone before the lock as not found', async () => {
      const { sut, repository } = makeSut();
      repository.findForUpdate.mockResolvedValue(null);
      expect(await refusal(sut.update(ACTOR, 'alpha', { name: 'x' }))).toMatchObject({ code: 'project_not_found' });
      expect(repository.update).not.toHaveBeenCalled();
    });
  });
});
