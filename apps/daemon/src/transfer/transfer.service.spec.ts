import { testActor } from '../auth/test-actor';
import { refusal } from '../common/test-refusal';
import { DependenciesService } from '../dependencies/dependencies.service';
import { DeploymentsService } from '../deployments/deployments.service';
import { ItemsService } from '../items/items.service';
import { ProjectAccessService } from '../projects/project-access.service';
import { ProjectsService } from '../projects/projects.service';
import { WorkflowsService } from '../workflows/workflows.service';
import { BACKLOG_FORMAT } from './backlog-format';
import { TransferRepository } from './transfer.repository';
import { TransferService } from './transfer.service';

const ACTOR = testActor();

const doc = (over: Record<string, unknown> = {}) => ({
  format: BACKLOG_FORMAT,
  project: { id: 'alpha', public_item_prefix: 'ALP' },
  ...over,
});

type Held = { public_item_prefix: string; items: number; deployments: number; policy: Record<string, unknown> };

function makeSut(options: { held?: Held | null; admin?: boolean; visible?: boolean } = {}) {
  const repository = {
    transaction: jest.fn(async <T>(work: (manager: unknown) => Promise<T>) => work({})),
    projectForUpdate: jest.fn(async () => options.held ?? null),
    lockItems: jest.fn(async () => undefined),
    insertSnapshot: jest.fn(async () => '1'),
    clearProject: jest.fn(async () => undefined),
    updateProject: jest.fn(async () => undefined),
    snapshots: jest.fn(async () => []),
    snapshot: jest.fn(async () => null),
  };
  const projects = {
    administers: jest.fn(async () => options.admin ?? false),
    conflictOf: jest.fn(async (): Promise<'id' | 'prefix' | null> => null),
    organizationFor: jest.fn(async (): Promise<number | null> => 9),
    insertRow: jest.fn(async () => true),
  };
  const access = {
    assertProject: jest.fn(async () => undefined),
    canSee: jest.fn(async () => options.visible ?? true),
  };
  const sut = new TransferService(
    repository as unknown as TransferRepository,
    projects as unknown as ProjectsService,
    access as unknown as ProjectAccessService,
    {} as ItemsService,
    {} as WorkflowsService,
    {} as DependenciesService,
    {} as DeploymentsService,
  );
  return { sut, repository, projects, access };
}

const HELD: Held = { public_item_prefix: 'ALP', items: 3, deployments: 0, policy: {} };

describe(TransferService.name, () => {
  describe('import: the file', () => {
    it('should refuse a document of another format before any transaction', async () => {
      const { sut, repository } = makeSut();
      const err = await refusal(sut.import(ACTOR, { ...doc(), format: 'other/v9' }, false));
      expect(err).toMatchObject({ code: 'validation_failed', status: 400 });
      expect(repository.transaction).not.toHaveBeenCalled();
    });

    it("should refuse a project policy the projects' rules refuse", async () => {
      const { sut, repository } = makeSut();
      const err = await refusal(
        sut.import(ACTOR, doc({ project: { id: 'alpha', public_item_prefix: 'ALP', policy: { colour: 1 } } }), false),
      );
      expect(err).toMatchObject({ code: 'validation_failed' });
      expect(JSON.stringify(err.extra)).toContain('project.');
      expect(repository.transaction).not.toHaveBeenCalled();
    });

    it('should refuse refs that do not carry the prefix or point outside the file', async () => {
      const { sut, repository } = makeSut();
      const err = await refusal(
        sut.import(
          ACTOR,
          doc({
            items: [{ ref: 'BET-1', title: 'x', status: 'idea', workflow_id: 'w', workflow_version: 1 }],
            epics: [{ epic: 'ALP-9', tasks: [] }],
          }),
          false,
        ),
      );
      expect(err.status).toBe(400);
      expect(err.message).toMatch(/BET-1|ALP-9/);
      expect(repository.transaction).not.toHaveBeenCalled();
    });
  });

  describe('import: into a project that exists', () => {
    it('should answer a project the caller cannot see as missing', async () => {
      const { sut, repository } = makeSut({ held: HELD, visible: false });
      expect(await refusal(sut.import(ACTOR, doc(), true))).toMatchObject({ code: 'project_not_found', status: 404 });
      expect(repository.clearProject).not.toHaveBeenCalled();
    });

    it('should refuse another prefix', async () => {
      const { sut, repository } = makeSut({ held: { ...HELD, public_item_prefix: 'OLD' } });
      expect(await refusal(sut.import(ACTOR, doc(), true))).toMatchObject({ code: 'prefix_mismatch', status: 409 });
      expect(repository.clearProject).not.toHaveBeenCalled();
    });

    it('should refuse a project holding items without replace', async () => {
      const { sut, repository } = makeSut({ held: HELD, admin: true });
      expect(await refusal(sut.import(ACTOR, doc(), false))).toMatchObject({ code: 'project_not_empty', status: 409 });
      expect(repository.insertSnapshot).not.toHaveBeenCalled();
    });

    it('should refuse a replace by someone who does not administer the project', async () => {
      const { sut, repository } = makeSut({ held: { ...HELD, items: 0, deployments: 1 } });
      const err = await refusal(sut.import(ACTOR, doc(), true));
      expect(err).toMatchObject({ code: 'project_admin_required', status: 403 });
      expect(repository.insertSnapshot).not.toHaveBeenCalled();
      expect(repository.clearProject).not.toHaveBeenCalled();
    });

    it("should refuse a member's import into an empty project that changes its policy", async () => {
      const { sut, repository } = makeSut({ held: { ...HELD, items: 0, policy: { wip_cap: 4 } } });
      const file = doc({ project: { id: 'alpha', public_item_prefix: 'ALP', policy: { wip_cap: 9 } } });
      expect(await refusal(sut.import(ACTOR, file, false))).toMatchObject({ code: 'project_admin_required' });
      expect(repository.clearProject).not.toHaveBeenCalled();
    });
  });

  describe('import: a new project', () => {
    it('should refuse a prefix another project uses', async () => {
      const { sut, projects } = makeSut();
      projects.conflictOf.mockResolvedValue('prefix');
      expect(await refusal(sut.import(ACTOR, doc(), false))).toMatchObject({ code: 'prefix_taken', status: 409 });
      expect(projects.insertRow).not.toHaveBeenCalled();
    });

    it('should refuse a caller of no organization', async () => {
      const { sut, projects } = makeSut();
      projects.organizationFor.mockResolvedValue(null);
      expect(await refusal(sut.import(ACTOR, doc(), false))).toMatchObject({
        code: 'organization_membership_required',
      });
      expect(projects.insertRow).not.toHaveBeenCalled();
    });
  });

  describe('snapshots', () => {
    it('should be read only by who administers the project', async () => {
      const { sut, repository } = makeSut();
      expect(await refusal(sut.snapshots(ACTOR, 'alpha'))).toMatchObject({ code: 'project_admin_required' });
      expect(repository.snapshots).not.toHaveBeenCalled();
    });

    it('should answer an id that is not a number as a missing snapshot without a query', async () => {
      const { sut, repository } = makeSut({ admin: true });
      expect(await refusal(sut.snapshot(ACTOR, 'alpha', 'x1'))).toMatchObject({
        code: 'snapshot_not_found',
        status: 404,
      });
      expect(repository.snapshot).not.toHaveBeenCalled();
    });
  });
});
