import { testActor } from '../auth/test-actor';
import { DomainError } from '../common/domain-error';
import { refusal } from '../common/test-refusal';
import { AppConfig } from '../config/app-config';
import { ProjectAccessService } from '../projects/project-access.service';
import { itemNotFound } from '../refs/refs.errors';
import { ChangeRecordRow } from './dto/history.dto';
import { HistoryRepository, SessionNoticeRow } from './history.repository';
import { HistoryService } from './history.service';

const MEMBER = testActor();
const SERVER_ADMIN = testActor({ id: 1, name: 'root', isAdmin: true });
const ITEM = { id: 7, ref: 'PRJ-7', project: 'prj' };
const SESSION_START = new Date('2026-11-28T09:00:00Z');

const change = (id: string): ChangeRecordRow =>
  ({
    id,
    at: new Date('2026-11-28T10:00:00Z'),
    actor_name: 'bob',
    credential_kind: null,
    credential_id: null,
    session_id: null,
    harness: null,
    path: 'http',
    forced: false,
    project: 'prj',
    item_ref: 'PRJ-7',
    object: 'item',
    object_ref: 'PRJ-7',
    action: 'update',
    field: 'title',
    before: 'a',
    after: 'b',
  }) as ChangeRecordRow;

function makeSut(retentionDays = 0) {
  const repository = {
    page: jest.fn(async (): Promise<ChangeRecordRow[]> => []),
    session: jest.fn(async (): Promise<{ id: number; actor_id: number | null; created_at: Date } | null> => ({
      id: 12,
      actor_id: MEMBER.id,
      created_at: SESSION_START,
    })),
    notices: jest.fn(async (): Promise<SessionNoticeRow[]> => []),
    lapsedClaims: jest.fn(async () => [] as { item_ref: string; expires_at: Date }[]),
    adminOrganizations: jest.fn(async () => [{ organization_id: 4 }]),
    prune: jest.fn(async () => 0),
  };
  const access = {
    resolveItem: jest.fn(async () => ITEM),
    assertProject: jest.fn(async () => undefined),
    visibleProjects: jest.fn(async () => ['prj']),
  };
  const config = { historyRetentionDays: retentionDays } as AppConfig;
  const sut = new HistoryService(
    repository as unknown as HistoryRepository,
    access as unknown as ProjectAccessService,
    config,
  );
  return { sut, repository, access };
}

describe(HistoryService.name, () => {
  describe('ofItem', () => {
    it('should answer an item the caller cannot see like a missing one and read nothing', async () => {
      const { sut, repository, access } = makeSut();
      access.resolveItem.mockRejectedValueOnce(itemNotFound('PRJ-7'));
      const err = await refusal(sut.ofItem(MEMBER, 'PRJ-7', {}));
      expect(err).toMatchObject({ code: 'item_not_found', status: 404 });
      expect(repository.page).not.toHaveBeenCalled();
    });

    it('should page by one extra row and hand the last shown id as next_before', async () => {
      const { sut, repository } = makeSut();
      repository.page.mockResolvedValueOnce([change('9'), change('8'), change('7')]);
      const page = await sut.ofItem(MEMBER, 'PRJ-7', { limit: 2, before: '10' });
      expect(repository.page).toHaveBeenCalledWith({
        projects: null,
        organizations: null,
        itemId: ITEM.id,
        before: '10',
        limit: 2,
      });
      expect(page.item_id).toBe('PRJ-7');
      expect(page.changes.map((c) => c.id)).toEqual(['9', '8']);
      expect(page.next_before).toBe('8');
    });
  });

  describe('list', () => {
    it('should confine a member to the projects it sees and the organizations it administers', async () => {
      const { sut, repository } = makeSut();
      await sut.list(MEMBER, { actor: 'bob' });
      expect(repository.page).toHaveBeenCalledWith(
        expect.objectContaining({ projects: ['prj'], organizations: [4], actor: 'bob' }),
      );
    });

    it('should not confine a server admin', async () => {
      const { sut, repository } = makeSut();
      await sut.list(SERVER_ADMIN, {});
      expect(repository.page).toHaveBeenCalledWith(expect.objectContaining({ projects: null, organizations: null }));
      expect(repository.adminOrganizations).not.toHaveBeenCalled();
    });

    it('should refuse a project the caller cannot see and read nothing', async () => {
      const { sut, repository, access } = makeSut();
      access.assertProject.mockRejectedValueOnce(new DomainError('project_not_found', 'no project x', 404));
      const err = await refusal(sut.list(MEMBER, { project: 'x' }));
      expect(err).toMatchObject({ code: 'project_not_found', status: 404 });
      expect(repository.page).not.toHaveBeenCalled();
    });
  });

  describe('notices', () => {
    it('should answer a session that does not exist with 404 session_not_found', async () => {
      const { sut, repository } = makeSut();
      repository.session.mockResolvedValueOnce(null);
      const err = await refusal(sut.notices(MEMBER, 12, {}));
      expect(err).toMatchObject({ code: 'session_not_found', status: 404 });
      expect(repository.notices).not.toHaveBeenCalled();
    });

    it('should answer another actor’s session like a missing one', async () => {
      const { sut, repository } = makeSut();
      repository.session.mockResolvedValueOnce({ id: 12, actor_id: 99, created_at: SESSION_START });
      const err = await refusal(sut.notices(MEMBER, 12, {}));
      expect(err).toMatchObject({ code: 'session_not_found', status: 404, message: 'no executor session 12 of yours' });
      expect(repository.notices).not.toHaveBeenCalled();
    });

    it('should let a server admin read any session’s notices', async () => {
      const { sut, repository } = makeSut();
      repository.session.mockResolvedValueOnce({ id: 12, actor_id: 99, created_at: SESSION_START });
      await sut.notices(SERVER_ADMIN, 12, { after: '5' });
      expect(repository.notices).toHaveBeenCalledWith(12, SESSION_START, '5');
    });

    it('should carry the lapsed claims and the last id seen, or the cursor when nothing is new', async () => {
      const { sut, repository } = makeSut();
      repository.lapsedClaims.mockResolvedValueOnce([
        { item_ref: 'PRJ-7', expires_at: new Date('2026-11-28T11:00:00Z') },
      ]);
      const quiet = await sut.notices(MEMBER, 12, { after: '5' });
      expect(quiet).toEqual({
        session_id: 12,
        notices: [],
        lapsed_claims: [{ item_id: 'PRJ-7', expired_at: '2026-11-28T11:00:00.000Z' }],
        last_id: '5',
      });
      repository.notices.mockResolvedValueOnce([{ ...change('6'), notice: 'changed' }]);
      const busy = await sut.notices(MEMBER, 12, { after: '5' });
      expect(busy.notices).toEqual([expect.objectContaining({ kind: 'changed', id: '6' })]);
      expect(busy.last_id).toBe('6');
    });
  });

  describe('prune', () => {
    it('should delete nothing when retention is off', async () => {
      const { sut, repository } = makeSut(0);
      await expect(sut.prune()).resolves.toBe(0);
      expect(repository.prune).not.toHaveBeenCalled();
    });

    it('should delete in batches until a batch comes back short', async () => {
      const { sut, repository } = makeSut(30);
      repository.prune.mockResolvedValueOnce(10_000).mockResolvedValueOnce(10_000).mockResolvedValueOnce(3);
      await expect(sut.prune()).resolves.toBe(20_003);
      expect(repository.prune).toHaveBeenCalledTimes(3);
      expect(repository.prune).toHaveBeenCalledWith(30, 10_000);
    });
  });
});
