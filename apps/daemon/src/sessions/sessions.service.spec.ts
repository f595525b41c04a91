import { AuthenticatedActor } from '../auth/actor';
import { testActor } from '../auth/test-actor';
import { DomainError } from '../common/domain-error';
import { refusal } from '../common/test-refusal';
import { AppConfig } from '../config/app-config';
import { FrontierService } from '../frontier/read-path/frontier.service';
import { ProjectAccessService } from '../projects/project-access.service';
import { itemNotFound } from '../refs/refs.service';
import { SessionRow } from './dto/sessions.dto';
import { SessionsRepository } from './sessions.repository';
import { SessionsService } from './sessions.service';

const ACTOR = testActor();
const ADMIN = testActor({ id: 1, name: 'root', isAdmin: true });
const AT = new Date('2026-11-28T10:00:00Z');

function session(over: Partial<SessionRow> = {}): SessionRow {
  return {
    id: 11,
    actor_id: 3,
    project: null,
    harness: 'claude-code',
    model: 'opus-4',
    lane: 'primary',
    label: null,
    created_at: AT,
    last_seen_at: AT,
    ended_at: null,
    ...over,
  } as SessionRow;
}

function makeSut(row: SessionRow | null = session()) {
  const repository = {
    create: jest.fn(async (input: { lane: string; project: string | null }) => session(input)),
    find: jest.fn(async (_id: number) => row),
    list: jest.fn(async (_filter: Parameters<SessionsRepository['list']>[0]) => [] as SessionRow[]),
    liveClaimsOf: jest.fn(async () => []),
    liveClaims: jest.fn(async () => []),
    heartbeat: jest.fn(async () => []),
    release: jest.fn(async () => true),
    end: jest.fn(async () => session({ ended_at: AT })),
  };
  const frontier = { resolveProject: jest.fn(async (_a: AuthenticatedActor, id: string) => ({ id, policy: {} })) };
  const access = { resolveItem: jest.fn(async () => ({ id: 7, ref: 'ATL-7', project: 'atl' })) };
  const config = { claimTtlSeconds: 900, sessionRouting: null } as unknown as AppConfig;
  const sut = new SessionsService(
    repository as unknown as SessionsRepository,
    frontier as unknown as FrontierService,
    access as unknown as ProjectAccessService,
    config,
  );
  return { sut, repository, frontier, access };
}

describe(SessionsService.name, () => {
  describe('owned', () => {
    it('should answer session_not_found for a session that does not exist', async () => {
      const { sut } = makeSut(null);
      expect(await refusal(sut.owned(ACTOR, 11))).toMatchObject({ code: 'session_not_found', status: 404 });
    });

    it('should hide another actor’s session as not found', async () => {
      const { sut } = makeSut(session({ actor_id: 4 }));
      const err = await refusal(sut.owned(ACTOR, 11));
      expect(err).toMatchObject({ code: 'session_not_found', status: 404, extra: { session_id: 11 } });
    });

    it('should let an unconfined server admin act on any session', async () => {
      const { sut } = makeSut(session({ actor_id: 4 }));
      expect((await sut.owned(ADMIN, 11)).id).toBe(11);
    });

    it('should refuse an ended session when a live one is needed, and accept it otherwise', async () => {
      const { sut } = makeSut(session({ ended_at: AT }));
      expect(await refusal(sut.owned(ACTOR, 11))).toMatchObject({ code: 'session_ended', status: 409 });
      expect((await sut.owned(ACTOR, 11, { live: false })).id).toBe(11);
    });
  });

  describe('register', () => {
    it('should resolve the lane from the project’s own lane keys over its stored session_routing', async () => {
      const { sut, frontier, repository } = makeSut();
      frontier.resolveProject.mockResolvedValue({
        id: 'atl',
        policy: {
          session_routing: { 'executor_default_lane_claude-code': 'stored' },
          'executor_default_lane_claude-code': 'own',
        },
      });
      const response = await sut.register(ACTOR, { harness: 'claude-code', model: 'opus-4', project: 'atl' });
      expect(repository.create).toHaveBeenCalledWith(expect.objectContaining({ project: 'atl', actorId: 3 }));
      expect(repository.create.mock.calls[0][0].lane).toBe(response.lane);
      expect(response.lane).toBe('own');
    });

    it('should register in the default lane without a project or routing', async () => {
      const { sut, frontier, repository } = makeSut();
      const response = await sut.register(ACTOR, { harness: 'claude-code', model: 'opus-4' });
      expect(frontier.resolveProject).not.toHaveBeenCalled();
      expect(repository.create).toHaveBeenCalledWith(
        expect.objectContaining({ project: null, lane: 'primary', label: null }),
      );
      expect(response).toMatchObject({ lane: 'primary', lane_source: 'default' });
    });

    it('should create nothing for a project the caller cannot see', async () => {
      const { sut, frontier, repository } = makeSut();
      frontier.resolveProject.mockRejectedValue(new DomainError('project_not_found', 'no project', 404));
      const err = await refusal(sut.register(ACTOR, { harness: 'claude-code', model: 'opus-4', project: 'x' }));
      expect(err).toMatchObject({ code: 'project_not_found', status: 404 });
      expect(repository.create).not.toHaveBeenCalled();
    });
  });

  describe('list', () => {
    it('should list only the caller’s sessions, live by default', async () => {
      const { sut, repository } = makeSut();
      await sut.list(ACTOR, {});
      expect(repository.list).toHaveBeenCalledWith(expect.objectContaining({ actorId: 3, state: 'live' }));
    });

    it('should list everyone’s for an unconfined server admin', async () => {
      const { sut, repository } = makeSut();
      await sut.list(ADMIN, { state: 'all' });
      expect(repository.list).toHaveBeenCalledWith(expect.objectContaining({ actorId: null, state: 'all' }));
    });
  });

  describe('heartbeat', () => {
    it('should renew the claims for the configured TTL', async () => {
      const { sut, repository } = makeSut();
      expect(await sut.heartbeat(ACTOR, 11)).toEqual({ session_id: 11, renewed: [] });
      expect(repository.heartbeat).toHaveBeenCalledWith(11, 900);
    });

    it('should renew nothing for an ended session', async () => {
      const { sut, repository } = makeSut(session({ ended_at: AT }));
      expect(await refusal(sut.heartbeat(ACTOR, 11))).toMatchObject({ code: 'session_ended' });
      expect(repository.heartbeat).not.toHaveBeenCalled();
    });
  });

  describe('release', () => {
    it('should give back the session’s claim on the item', async () => {
      const { sut, repository } = makeSut();
      expect(await sut.release(ACTOR, 11, 'ATL-7')).toEqual({ session_id: 11, item_id: 'ATL-7', released: true });
      expect(repository.release).toHaveBeenCalledWith(11, 7);
    });

    it('should delete nothing for an item the caller cannot see', async () => {
      const { sut, repository, access } = makeSut();
      access.resolveItem.mockRejectedValue(itemNotFound('ATL-7'));
      expect(await refusal(sut.release(ACTOR, 11, 'ATL-7'))).toMatchObject({ code: 'item_not_found', status: 404 });
      expect(repository.release).not.toHaveBeenCalled();
    });

    it('should delete nothing from another actor’s session', async () => {
      const { sut, repository } = makeSut(session({ actor_id: 4 }));
      expect(await refusal(sut.release(ACTOR, 11, 'ATL-7'))).toMatchObject({ code: 'session_not_found' });
      expect(repository.release).not.toHaveBeenCalled();
    });
  });

  describe('end', () => {
    it('should end an already ended session again (idempotent) and end nobody else’s', async () => {
      const { sut, repository } = makeSut(session({ ended_at: AT }));
      await sut.end(ACTOR, 11);
      expect(repository.end).toHaveBeenCalledWith(11);
      const other = makeSut(session({ actor_id: 4 }));
      expect(await refusal(other.sut.end(ACTOR, 11))).toMatchObject({ code: 'session_not_found' });
      expect(other.repository.end).not.toHaveBeenCalled();
    });
  });
});
