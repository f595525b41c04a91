import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

import type { HistoryResponse, ItemCommentListWire, ItemCommentWire, ItemDetailWire } from '@app/contracts';
import {
  createProject,
  createTestDatabase,
  DaemonProcess,
  insertItems,
  runSvc,
  startDaemonProcess,
  SVC_BIN,
  svcEnv,
  TestDatabase,
  withClient,
} from '@app/testing';
import { createActor, http, sql, TestActor } from '@app/testing/machine-auth';

// Comments on items (issues 37 and 39): POST/GET /v1/items/:ref/comments, the newest few in GET /v1/items/:ref, the
// record of each on the item's history, `svc items comment` / `svc items show`, and the MCP `comment` tool.
describe('comments on items', () => {
  let db: TestDatabase;
  let daemon: DaemonProcess;
  let base: string;
  let admin: string;
  let bob: TestActor;
  let eve: TestActor;
  let refs: string[] = [];
  let betaRef: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('server', 'comments');
    daemon = await startDaemonProcess({ env: { SVC_DATABASE_URL: db.url } });
    base = daemon.url;
    admin = daemon.token!;
    bob = await createActor(db.url, { name: 'bob', org: 'default' });
    // eve belongs to another organization only: she sees none of default's projects
    eve = await createActor(db.url, { name: 'eve', org: 'other' });
    await withClient(db.url, async (client) => {
      await createProject(client, { id: 'alpha', prefix: 'AL', policy: { wip_cap: 10 } });
      refs = (
        await insertItems(
          client,
          'alpha',
          Array.from({ length: 4 }, (_, i) => ({
            title: `item ${i + 1}`,
            status: 'planned',
            priority: 'high' as const,
          })),
        )
      ).map((c) => c.ref);
      await client.query(
        `INSERT INTO projects (id, name, public_item_prefix, policy, organization_id)
         SELECT 'beta', 'beta', 'BE', '{}'::jsonb, id FROM organizations WHERE slug = 'other'`,
      );
      betaRef = (await insertItems(client, 'beta', [{ title: 'beta item', status: 'planned', priority: 'low' }]))[0]
        .ref;
    });
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await daemon?.stop();
    await db?.drop();
  });

  const post = (token: string, ref: string, body: unknown, headers: Record<string, string> = {}) =>
    http<ItemCommentWire & { code?: string; fields?: unknown }>(base, 'POST', `/v1/items/${ref}/comments`, {
      token,
      body,
      headers,
    });
  const list = (token: string, ref: string, query = '') =>
    http<ItemCommentListWire & { code?: string }>(base, 'GET', `/v1/items/${ref}/comments${query}`, { token });
  const count = async () => Number((await sql<{ n: string }>(db.url, 'SELECT count(*) AS n FROM item_comments'))[0].n);

  describe('the route', () => {
    it('should add a comment (201) naming its author, and list the comments newest first', async () => {
      const ref = refs[0];
      const first = await post(bob.token, ref, { body: 'first look:\n\tthe spec is thin' }, { 'x-svc-client': 'cli' });
      expect(first.status).toBe(201);
      expect(first.body).toEqual({
        id: expect.stringMatching(/^[0-9]+$/),
        item_id: ref,
        author: 'bob',
        session_id: null,
        harness: null,
        path: 'cli',
        body: 'first look:\n\tthe spec is thin',
        created_at: expect.any(String),
      });
      const second = await post(admin, ref, { body: 'agreed' });
      expect([second.status, second.body.author, second.body.path]).toEqual([201, 'admin', 'http']);

      const page = await list(bob.token, ref);
      expect(page.status).toBe(200);
      expect(page.body.comments.map((c) => c.body)).toEqual(['agreed', 'first look:\n\tthe spec is thin']);
      expect(page.body.next_cursor).toBeNull();
    });

    it('should page with limit and cursor, newest first, and carry the newest five and the count on the item', async () => {
      const ref = refs[1];
      for (let i = 1; i <= 7; i++) expect((await post(admin, ref, { body: `note ${i}` })).status).toBe(201);
      const one = await list(admin, ref, '?limit=3');
      expect(one.body.comments.map((c) => c.body)).toEqual(['note 7', 'note 6', 'note 5']);
      expect(one.body.next_cursor).toEqual(one.body.comments[2].id);
      const two = await list(admin, ref, `?limit=3&cursor=${one.body.next_cursor}`);
      expect(two.body.comments.map((c) => c.body)).toEqual(['note 4', 'note 3', 'note 2']);
      const three = await list(admin, ref, `?limit=3&cursor=${two.body.next_cursor}`);
      expect([three.body.comments.map((c) => c.body), three.body.next_cursor]).toEqual([['note 1'], null]);

      const item = await http<ItemDetailWire>(base, 'GET', `/v1/items/${ref}`, { token: admin });
      expect(item.body.comment_count).toBe(7);
      expect(item.body.comments.map((c) => c.body)).toEqual(['note 7', 'note 6', 'note 5', 'note 4', 'note 3']);
      // an item without comments says so
      const bare = await http<ItemDetailWire>(base, 'GET', `/v1/items/${refs[3]}`, { token: admin });
      expect([bare.body.comment_count, bare.body.comments]).toEqual([0, []]);
    });

    it('should record each comment on the item’s history, naming who wrote it', async () => {
      const ref = refs[2];
      await post(bob.token, ref, { body: 'recorded?' }, { 'x-svc-client': 'tui' });
      const history = await http<HistoryResponse>(base, 'GET', `/v1/items/${ref}/history`, { token: admin });
      expect(history.body.changes[0]).toEqual(
        expect.objectContaining({
          actor: 'bob',
          path: 'tui',
          item_id: ref,
          object: 'comment',
          action: 'created',
          after: expect.objectContaining({ body: 'recorded?' }),
        }),
      );
    });

    it('should refuse an empty, blank, missing, oversized or control-character body with 400, adding nothing', async () => {
      const ref = refs[0];
      const before = await count();
      const empty = await post(admin, ref, { body: '' });
      expect([empty.status, empty.body.code]).toEqual([400, 'comment_empty']);
      const blank = await post(admin, ref, { body: ' \n\t ' });
      expect([blank.status, blank.body.code]).toEqual([400, 'comment_empty']);
      const missing = await post(admin, ref, {});
      expect([missing.status, missing.body.code]).toEqual([400, 'validation_failed']);
      const huge = await post(admin, ref, { body: 'x'.repeat(512 * 1024 + 1) });
      expect([huge.status, huge.body.code]).toEqual([400, 'validation_failed']);
      const escape = await post(admin, ref, { body: 'hello \u001b[31mred' });
      expect([escape.status, escape.body.code]).toEqual([400, 'validation_failed']);
      const unknown = await post(admin, ref, { body: 'ok', extra: 1 });
      expect([unknown.status, unknown.body.code]).toEqual([400, 'validation_failed']);
      const badCursor = await list(admin, ref, '?cursor=abc');
      expect([badCursor.status, badCursor.body.code]).toEqual([400, 'validation_failed']);
      expect(await count()).toBe(before);
    });

    it('should answer 404 for an unknown ref and for an item of a project the caller cannot see', async () => {
      const before = await count();
      const unknown = await post(admin, 'AL-999', { body: 'hello' });
      expect([unknown.status, unknown.body.code]).toEqual([404, 'item_not_found']);
      expect((await list(admin, 'AL-999')).status).toBe(404);
      // eve (organization other) cannot see alpha's items, bob (default) cannot see beta's: both answer like a
      // missing item
      const hidden = await post(eve.token, refs[0], { body: 'peek' });
      expect([hidden.status, hidden.body.code]).toEqual([404, 'item_not_found']);
      expect((await list(eve.token, refs[0])).status).toBe(404);
      const otherOrg = await post(bob.token, betaRef, { body: 'peek' });
      expect([otherOrg.status, otherOrg.body.code]).toEqual([404, 'item_not_found']);
      expect(await count()).toBe(before);
      // in her own organization eve comments as anyone does
      expect((await post(eve.token, betaRef, { body: 'mine' })).status).toBe(201);
    });

    it('should let anyone comment on an item another session holds (a comment is not a change of the item)', async () => {
      const ref = refs[3];
      const session = await http<{ session_id: number }>(base, 'POST', '/v1/sessions', {
        token: admin,
        body: { harness: 'claude-code', model: 'opus-4', project: 'alpha' },
      });
      const dispatched = await http(base, 'POST', '/v1/charge/dispatch', {
        token: admin,
        body: { session_id: session.body.session_id, item_id: ref },
      });
      expect(dispatched.body).toEqual(expect.objectContaining({ dispatched: true }));
      // bob may not retitle it…
      const retitle = await http(base, 'PUT', `/v1/items/${ref}/fields/title`, {
        token: bob.token,
        body: { value: 'taken' },
      });
      expect([retitle.status, retitle.body.code]).toEqual([409, 'item_claimed_elsewhere']);
      // …but he may comment on it, and the holder's session hears of it
      const comment = await post(bob.token, ref, { body: 'a question for the agent' });
      expect(comment.status).toBe(201);
      const notices = await http<{ notices: { kind: string; object: string; actor: string }[] }>(
        base,
        'GET',
        `/v1/sessions/${session.body.session_id}/notices`,
        { token: admin },
      );
      expect(notices.body.notices).toEqual(
        expect.arrayContaining([expect.objectContaining({ kind: 'changed', object: 'comment', actor: 'bob' })]),
      );
    });
  });

  describe('svc items comment and svc items show', () => {
    const svc = (args: string[], input?: string) => runSvc(args, { env: svcEnv(daemon), input });

    it('should add a comment from the argument, from stdin and from a file, and show them newest first', async () => {
      const ref = refs[2];
      const added = await svc(['items', 'comment', ref, 'looks good to me']);
      expect([added.code, added.stdout.trim()]).toEqual([
        0,
        expect.stringMatching(new RegExp(`^${ref}: comment \\d+ added$`)),
      ]);
      const piped = await svc(['items', 'comment', ref, '-'], 'from stdin\nsecond line\n');
      expect(piped.code).toBe(0);
      const file = join(mkdtempSync(join(tmpdir(), 'svc-comment-')), 'comment.md');
      writeFileSync(file, 'from a file\n');
      expect((await svc(['items', 'comment', ref, '--file', file])).code).toBe(0);
      const json = await svc(['items', 'comment', ref, 'as json', '--json']);
      expect(JSON.parse(json.stdout)).toEqual(expect.objectContaining({ item_id: ref, author: 'admin', path: 'cli' }));

      const shown = await svc(['items', 'show', ref]);
      expect(shown.code).toBe(0);
      const at = (text: string) => shown.stdout.indexOf(text);
      expect(at('as json')).toBeGreaterThan(0);
      expect(at('as json')).toBeLessThan(at('from a file'));
      expect(at('from a file')).toBeLessThan(at('from stdin'));
      expect(at('from stdin')).toBeLessThan(at('looks good to me'));
      expect(shown.stdout).toContain('  second line');
      expect(shown.stdout).toMatch(/comments: \d+/);
      expect(shown.stdout).toMatch(/admin · (now|\d+s ago)/);
    });

    it('should refuse a comment given twice or not at all, and show stored control characters escaped', async () => {
      const none = await svc(['items', 'comment', refs[2]]);
      expect(none.code).not.toBe(0);
      expect(none.stderr).toContain('give the comment');
      // written past the daemon (a restore, SQL): the terminal still never receives the raw escape
      await sql(
        db.url,
        `INSERT INTO item_comments (item_id, actor_name, path, body)
         SELECT i.id, 'mallory', 'sql', E'evil \\u001b]0;owned\\u0007 text' FROM items i JOIN projects p ON p.id = i.project
          WHERE p.public_item_prefix || '-' || i.project_sequence = $1`,
        [refs[2]],
      );
      const shown = await svc(['items', 'show', refs[2]]);
      expect(shown.stdout).toContain('mallory');
      expect(shown.stdout).not.toContain('\u001b]0;');
    });
  });

  describe('the MCP comment tool', () => {
    async function connect(token: string): Promise<Client> {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [SVC_BIN, 'mcp', '--heartbeat', '1'],
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          ...svcEnv(daemon),
          SVC_TOKEN: token,
          SVC_PROJECT: 'alpha',
        },
        stderr: 'pipe',
      });
      const client = new Client({ name: 'claude-code', version: '1.0.0' });
      await client.connect(transport);
      clients.push(client);
      return client;
    }
    const call = async (client: Client, name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult;

    it('should list the tool with described, strict arguments and write annotations', async () => {
      const client = await connect(admin);
      const { tools } = await client.listTools();
      const tool = tools.find((t) => t.name === 'comment')!;
      expect(tool.annotations).toEqual(expect.objectContaining({ readOnlyHint: false, idempotentHint: false }));
      const properties = tool.inputSchema.properties as Record<string, { description?: string }>;
      expect(Object.keys(properties).sort()).toEqual(['body', 'item']);
      for (const p of Object.values(properties)) expect(p.description).toEqual(expect.any(String));
      expect(JSON.stringify(tool.inputSchema)).not.toContain('$ref');
      const unknown = await call(client, 'comment', { item: refs[0], body: 'x', title: 'no' });
      expect(unknown.isError).toBe(true);
    });

    it('should comment on an item and show the comment in get_item, its author the agent’s session', async () => {
      const client = await connect(bob.token);
      const ref = refs[0];
      const result = await call(client, 'comment', { item: ref, body: 'agent says: tests pass\nready for review' });
      expect(result.isError).toBeFalsy();
      const comment = result.structuredContent as unknown as ItemCommentWire;
      expect(comment).toEqual(
        expect.objectContaining({ item_id: ref, author: 'bob', path: 'mcp', harness: 'claude-code' }),
      );
      expect(comment.session_id).toEqual(expect.any(Number));

      const got = await call(client, 'get_item', { item: ref });
      const item = got.structuredContent as unknown as ItemDetailWire;
      expect(item.comments[0]).toEqual(expect.objectContaining({ id: comment.id, body: comment.body }));
      expect(item.comment_count).toBeGreaterThanOrEqual(3);
      const text = (got.content as { type: string; text: string }[])[0].text;
      expect(text).toContain('bob: agent says: tests pass ready for review');

      const refused = await call(client, 'comment', { item: 'AL-999', body: 'hello' });
      expect(refused.isError).toBe(true);
      expect((refused.content as { text: string }[])[0].text).toContain('item_not_found');
    });
  });
  describe('an import that replaces the project', () => {
    it('should keep the replaced items’ comments in the snapshot (the backlog format carries none)', async () => {
      const doc = await http(base, 'GET', '/v1/export?project=alpha', { token: admin });
      expect(doc.status).toBe(200);
      const replaced = await http<{ snapshot_id: string }>(base, 'POST', '/v1/import?replace=1', {
        token: admin,
        body: doc.body,
      });
      expect(replaced.status).toBe(201);
      const snapshot = await http<{ held: { comments: { item: string; author: string; body: string }[] } }>(
        base,
        'GET',
        `/v1/projects/alpha/snapshots/${replaced.body.snapshot_id}`,
        { token: admin },
      );
      expect(snapshot.body.held.comments).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ item: refs[0], author: 'bob', body: 'first look:\n\tthe spec is thin' }),
          expect.objectContaining({ item: refs[1], author: 'admin', body: 'note 7' }),
        ]),
      );
    });
  });
});
