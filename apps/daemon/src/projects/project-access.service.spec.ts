import { AccessService } from '../auth/access.service';
import { testActor } from '../auth/test-actor';
import { refusal } from '../common/test-refusal';
import { RefsService, ResolvedRef } from '../refs/refs.service';
import { ProjectAccessService } from './project-access.service';

const MEMBER = testActor();
const SERVER_ADMIN = testActor({ id: 1, name: 'root', isAdmin: true });

const item = (ref: string, project: string): ResolvedRef => ({ id: 7, ref, project }) as ResolvedRef;

function makeSut(accessible: string[] = ['alpha']) {
  const access = {
    accessibleProjects: jest.fn(async () => accessible.map((id) => ({ id, public_item_prefix: id.toUpperCase() }))),
  };
  const refs = {
    resolve: jest.fn(async (ref: string) => item(ref, 'alpha')),
    resolveAll: jest.fn(
      async (list: readonly string[]) => new Map(list.map((r) => [r, item(r, r.startsWith('B') ? 'beta' : 'alpha')])),
    ),
  };
  const sut = new ProjectAccessService(access as unknown as AccessService, refs as unknown as RefsService);
  return { sut, access, refs };
}

describe(ProjectAccessService.name, () => {
  describe('visibleProjects', () => {
    it('should answer null (every project) for an unconfined server admin without asking', async () => {
      const { sut, access } = makeSut();
      expect(await sut.visibleProjects(SERVER_ADMIN)).toBeNull();
      expect(access.accessibleProjects).not.toHaveBeenCalled();
    });

    it("should list the caller's accessible projects and their prefixes", async () => {
      const { sut } = makeSut(['alpha', 'beta']);
      expect(await sut.visibleProjects(MEMBER)).toEqual(['alpha', 'beta']);
      expect(await sut.visiblePrefixes(MEMBER)).toEqual(['ALPHA', 'BETA']);
    });
  });

  describe('canSee', () => {
    it('should see only when every project is visible', async () => {
      const { sut } = makeSut(['alpha']);
      expect(await sut.canSee(MEMBER, ['alpha'])).toBe(true);
      expect(await sut.canSee(MEMBER, ['alpha', 'beta'])).toBe(false);
      expect(await sut.canSee(SERVER_ADMIN, ['beta'])).toBe(true);
    });
  });

  describe('assertProject', () => {
    it('should answer a project the caller cannot see like a missing one', async () => {
      const { sut } = makeSut(['alpha']);
      await expect(sut.assertProject(MEMBER, 'alpha')).resolves.toBeUndefined();
      expect(await refusal(sut.assertProject(MEMBER, 'beta'))).toMatchObject({
        code: 'project_not_found',
        status: 404,
      });
    });

    it('should refuse a missing project to the server admin too', async () => {
      const { sut, access } = makeSut(['alpha']);
      expect(await refusal(sut.assertProject(SERVER_ADMIN, 'nope'))).toMatchObject({ code: 'project_not_found' });
      expect(access.accessibleProjects).toHaveBeenCalledWith(SERVER_ADMIN);
    });
  });

  describe('resolveItem', () => {
    it('should answer an item of an invisible project like a missing item', async () => {
      const { sut } = makeSut(['beta']);
      expect(await refusal(sut.resolveItem(MEMBER, 'ALPHA-1'))).toMatchObject({ code: 'item_not_found', status: 404 });
    });

    it('should resolve a visible item', async () => {
      const { sut } = makeSut(['alpha']);
      expect(await sut.resolveItem(MEMBER, 'ALPHA-1')).toMatchObject({ ref: 'ALPHA-1', project: 'alpha' });
    });
  });

  describe('resolveItems', () => {
    it('should refuse naming every hidden ref', async () => {
      const { sut } = makeSut(['alpha']);
      const err = await refusal(sut.resolveItems(MEMBER, ['ALPHA-1', 'BETA-1', 'BETA-2']));
      expect(err.status).toBe(404);
      expect(JSON.stringify(err.extra)).toContain('BETA-2');
      expect(JSON.stringify(err.extra)).not.toContain('ALPHA-1');
    });

    it('should resolve every ref for the server admin', async () => {
      const { sut } = makeSut([]);
      expect([...(await sut.resolveItems(SERVER_ADMIN, ['ALPHA-1', 'BETA-1'])).keys()]).toEqual(['ALPHA-1', 'BETA-1']);
    });
  });
});
