import type { EntityManager } from 'typeorm';

import { testActor } from '../auth/test-actor';
import { refusal } from '../common/test-refusal';
import { runInWrite, WriterRecord } from '../database/write-context';
import { EventsService } from '../events/events.service';
import { ProjectAccessService } from '../projects/project-access.service';
import { itemNotFound } from '../refs/refs.errors';
import { CommentsRepository } from './comments.repository';
import { CommentsService } from './comments.service';
import { CommentRow } from './dto/comments.dto';

const ACTOR = testActor();
const ITEM = { id: 7, ref: 'PRJ-7', project: 'prj' };
const MANAGER = {} as EntityManager;

const comment = (id: string, body = 'a note'): CommentRow => ({
  id,
  item_id: ITEM.id,
  actor_name: 'alice',
  session_id: null,
  harness: null,
  path: 'http',
  body,
  created_at: new Date('2026-11-28T10:00:00Z'),
});

function makeSut() {
  const repository = {
    transaction: jest.fn(async <T>(work: (manager: EntityManager) => Promise<T>) => work(MANAGER)),
    insert: jest.fn(async (_m: EntityManager, _id: number, writer: WriterRecord, body: string) => ({
      ...comment('41', body),
      actor_name: writer.actor_name,
      session_id: writer.session_id,
      harness: writer.harness,
      path: writer.path,
    })),
    page: jest.fn(async (): Promise<CommentRow[]> => []),
  };
  const access = { resolveItem: jest.fn(async () => ITEM) };
  const events = { record: jest.fn(async () => ({ id: '1', created_at: new Date() })) };
  const sut = new CommentsService(
    repository as unknown as CommentsRepository,
    access as unknown as ProjectAccessService,
    events as unknown as EventsService,
  );
  return { sut, repository, access, events };
}

describe(CommentsService.name, () => {
  describe('add', () => {
    it.each([[''], ['   '], ['\n\t ']])(
      'should refuse a body of only white space (%j) with 400 comment_empty and write nothing',
      async (body) => {
        const { sut, repository, access, events } = makeSut();
        const err = await refusal(sut.add(ACTOR, 'PRJ-7', { body }));
        expect(err).toMatchObject({ code: 'comment_empty', status: 400 });
        expect(access.resolveItem).not.toHaveBeenCalled();
        expect(repository.insert).not.toHaveBeenCalled();
        expect(events.record).not.toHaveBeenCalled();
      },
    );

    it('should answer an item the caller cannot see like a missing one and write nothing', async () => {
      const { sut, repository, access, events } = makeSut();
      access.resolveItem.mockRejectedValueOnce(itemNotFound('PRJ-7'));
      const err = await refusal(sut.add(ACTOR, 'PRJ-7', { body: 'hello' }));
      expect(err).toMatchObject({ code: 'item_not_found', status: 404 });
      expect(repository.insert).not.toHaveBeenCalled();
      expect(events.record).not.toHaveBeenCalled();
    });

    it('should write the comment and its event in one transaction, as the request’s writer', async () => {
      const { sut, repository, events } = makeSut();
      const writer: WriterRecord = {
        actor_id: 3,
        actor_name: 'alice',
        credential_kind: 'api_token',
        credential_id: 1,
        session_id: 12,
        harness: 'claude-code',
        path: 'mcp',
        forced: false,
      };
      const wire = await runInWrite({ writer, mutation: true, passed: new Set() }, () =>
        sut.add(ACTOR, 'PRJ-7', { body: 'hello' }),
      );
      expect(repository.insert).toHaveBeenCalledWith(MANAGER, ITEM.id, writer, 'hello');
      expect(events.record).toHaveBeenCalledWith(
        expect.objectContaining({
          name: 'ItemCommented',
          project: 'prj',
          itemRef: 'PRJ-7',
          actorId: 3,
          sessionId: 12,
          payload: { comment_id: '41', author: 'alice', path: 'mcp' },
        }),
        MANAGER,
      );
      expect(wire).toMatchObject({ id: '41', item_id: 'PRJ-7', session_id: 12, harness: 'claude-code', body: 'hello' });
    });

    it('should name the caller as the writer outside a request’s write context', async () => {
      const { sut, repository } = makeSut();
      await sut.add(ACTOR, 'PRJ-7', { body: 'hello' });
      expect(repository.insert).toHaveBeenCalledWith(
        MANAGER,
        ITEM.id,
        expect.objectContaining({ actor_id: 3, actor_name: 'alice', session_id: null, path: 'http', forced: false }),
        'hello',
      );
    });
  });

  describe('list', () => {
    it('should page by one extra row and hand the last shown id as the cursor', async () => {
      const { sut, repository } = makeSut();
      repository.page.mockResolvedValueOnce([comment('5'), comment('4'), comment('3')]);
      const page = await sut.list(ACTOR, 'PRJ-7', { limit: 2, cursor: '6' });
      expect(repository.page).toHaveBeenCalledWith(ITEM.id, '6', 2);
      expect(page.comments.map((c) => c.id)).toEqual(['5', '4']);
      expect(page.next_cursor).toBe('4');
    });

    it('should end the pages when no extra row comes back', async () => {
      const { sut, repository } = makeSut();
      repository.page.mockResolvedValueOnce([comment('2'), comment('1')]);
      const page = await sut.list(ACTOR, 'PRJ-7', {});
      expect(repository.page).toHaveBeenCalledWith(ITEM.id, null, expect.any(Number));
      expect(page).toMatchObject({ item_id: 'PRJ-7', next_cursor: null });
    });
  });

  describe('recentOf', () => {
    it("should answer the newest few its item's read took, with the whole count and the times as instants", () => {
      const { sut } = makeSut();
      const json = (id: string) => ({ ...comment(id), created_at: '2026-11-28T10:00:00.123Z' });
      const recent = sut.recentOf('PRJ-7', [json('2'), json('1')], 9);
      expect(recent.comment_count).toBe(9);
      expect(recent.comments.map((c) => [c.id, c.item_id, c.created_at])).toEqual([
        ['2', 'PRJ-7', '2026-11-28T10:00:00.123Z'],
        ['1', 'PRJ-7', '2026-11-28T10:00:00.123Z'],
      ]);
    });
  });
});
