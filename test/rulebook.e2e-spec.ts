import { join } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

import type { ChangeRecordWire, HistoryResponse, SessionNoticesResponse } from '@app/contracts';
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
  waitFor,
  withClient,
} from '@app/testing';
import { createActor, http, sql, TestActor } from '@app/testing/machine-auth';

// Issue 36: one rulebook for every write, and a record of each. A claim means "mine": doing the work on a claimed
// item (a status move, an edit, a resolve, a DB-claim amendment) is the holder's; triage stays open and reaches
// the holder as a notice; an admin may force; a finished item gives its claim back; every change is recorded with
// who made it and through which path.
describe('the rulebook: claims with teeth, and the record of every write', () => {
  let db: TestDatabase;
  let daemon: DaemonProcess;
  let base: string;
  let admin: string;
  let bob: TestActor;
  let carol: TestActor;
  const clients: Client[] = [];
  let refs: string[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('server', 'rulebook');
    daemon = await startDaemonProcess({ env: { SVC_DATABASE_URL: db.url } });
    base = daemon.url;
    admin = daemon.token!;
    await withClient(db.url, async (client) => {
      await createProject(client, { id: 'alpha', prefix: 'AL', policy: { wip_cap: 10 } });
      const created = await insertItems(
        client,
        'alpha',
        Array.from({ length: 8 }, (_, i) => ({ title: `item ${i + 1}`, status: 'planned', priority: 'high' as const })),
      );
      refs = created.map((c) => c.ref);
    });
    bob = await createActor(db.url, { name: 'bob', org: 'default' });
    carol = await createActor(db.url, { name: 'carol', org: 'default', role: 'admin' });
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await daemon?.stop();
    await db?.drop();
  });

  async function session(token: string, harness = 'claude-code'): Promise<number> {
    const res = await http<{ session_id: number }>(base, 'POST', '/v1/sessions', {
      token,
      body: { harness, model: 'opus-4', project: 'alpha' },
    });
    expect(res.status).toBe(201);
    return res.body.session_id;
  }

  async function claim(token: string, sessionId: number, ref: string): Promise<void> {
    const res = await http(base, 'POST', '/v1/charge/dispatch', {
      token,
      body: { session_id: sessionId, item_id: ref },
    });
    expect([res.status, res.body]).toEqual([200, expect.objectContaining({ dispatched: true })]);
  }

  const as = (token: string, sessionId: number | null, client = 'http') => ({
    token,
    headers: { 'x-svc-client': client, ...(sessionId !== null ? { 'x-svc-session': String(sessionId) } : {}) },
  });

  const item = async (ref: string) =>
    (await http<{ title: string; status: string; priority: string }>(base, 'GET', `/v1/items/${ref}`, { token: admin }))
      .body;

  const holderOf = async (ref: string) =>
    (
      await sql<{ session_id: number }>(
        db.url,
        `SELECT c.session_id FROM item_claims c JOIN items i ON i.id = c.item_id
          WHERE 'AL-' || i.project_sequence = $1`,
        [ref],
      )
    )[0]?.session_id ?? null;

  const notices = async (token: string, sessionId: number) =>
    (await http<SessionNoticesResponse>(base, 'GET', `/v1/sessions/${sessionId}/notices`, { token })).body;

  const history = async (ref: string) =>
    (await http<HistoryResponse>(base, 'GET', `/v1/items/${ref}/history`, { token: admin })).body.changes;

  describe('claims', () => {
    it('should refuse another agent moving, retitling, editing, resolving or amending an item another holds', async () => {
      const ref = refs[0];
      const a = await session(admin);
      await claim(admin, a, ref);
      const b = await session(bob.token, 'codex');
      const writes: [string, string, unknown][] = [
        ['POST', `/v1/items/${ref}/status`, { status: 'implementing' }],
        ['PUT', `/v1/items/${ref}/fields/title`, { value: 'taken over' }],
        ['PUT', `/v1/items/${ref}/fields/body`, { value: 'rewritten' }],
        ['PUT', `/v1/items/${ref}/sections/notes`, { content: 'mine now' }],
        ['POST', `/v1/items/${ref}/resolve`, { resolution: 'wontfix' }],
        ['POST', `/v1/items/${ref}/db-claim/negative`, { reason: 'no schema change' }],
      ];
      for (const [method, path, body] of writes) {
        const res = await http(base, method, path, { ...as(bob.token, b), body });
        expect([method, path, res.status, res.body.code]).toEqual([method, path, 409, 'item_claimed_elsewhere']);
        expect(res.body.holder).toEqual({
          actor: 'admin',
          session_id: a,
          harness: 'claude-code',
          expires_at: expect.any(String),
        });
        expect(res.body.message).toContain(`session ${a}`);
      }
      expect(await item(ref)).toEqual(expect.objectContaining({ title: 'item 1', status: 'planned' }));
      expect(await holderOf(ref)).toBe(a);
    });

    it('should refuse a second session of the same actor, and let the holder and its person do the work', async () => {
      const ref = refs[1];
      const a = await session(admin);
      await claim(admin, a, ref);
      const other = await session(admin, 'codex');
      const refused = await http(base, 'PUT', `/v1/items/${ref}/fields/title`, {
        ...as(admin, other),
        body: { value: 'second agent' },
      });
      expect([refused.status, refused.body.code]).toEqual([409, 'item_claimed_elsewhere']);
      const holder = await http(base, 'POST', `/v1/items/${ref}/status`, {
        ...as(admin, a),
        body: { status: 'implementing' },
      });
      expect(holder.status).toBe(200);
      // the same actor outside any session (a person at the command line)
      const person = await runSvc(['items', 'update', ref, 'title', 'renamed by its person'], { env: svcEnv(daemon) });
      expect(person.code).toBe(0);
      expect(await item(ref)).toEqual(
        expect.objectContaining({ title: 'renamed by its person', status: 'implementing' }),
      );
    });

    it('should let triage through and tell the holder, in its notices', async () => {
      const ref = refs[2];
      const a = await session(admin);
      await claim(admin, a, ref);
      const b = await session(bob.token, 'codex');
      const raised = await http(base, 'PUT', `/v1/items/${ref}/fields/priority`, {
        ...as(bob.token, b),
        body: { value: 'low' },
      });
      expect(raised.status).toBe(200);
      const blocked = await http(base, 'POST', `/v1/items/${ref}/block`, {
        ...as(bob.token, b),
        body: { reason: 'x' },
      });
      expect(blocked.status).toBe(200);
      const heard = await notices(admin, a);
      const changes = heard.notices.filter((n) => n.kind === 'changed' && n.item_id === ref);
      expect(changes.map((n) => [n.actor, n.session_id, n.field, n.before, n.after])).toEqual([
        ['bob', b, 'priority', 'high', 'low'],
        ['bob', b, 'blocked', 0, 1],
        ['bob', b, 'blocked_reason', null, 'x'],
      ]);
      // the next call with last_id hears nothing new
      const again = (
        await http<SessionNoticesResponse>(base, 'GET', `/v1/sessions/${a}/notices?after=${heard.last_id}`, {
          token: admin,
        })
      ).body;
      expect(again.notices).toEqual([]);
    });

    it('should let a project admin force the work (recorded, the claim released and its holder told), and no one else', async () => {
      const ref = refs[3];
      const a = await session(admin);
      await claim(admin, a, ref);
      const member = await http(base, 'POST', `/v1/items/${ref}/status`, {
        ...as(bob.token, null),
        body: { status: 'implementing', force: true },
      });
      expect([member.status, member.body.code]).toEqual([403, 'force_not_allowed']);
      expect(await holderOf(ref)).toBe(a);
      const forced = await http(base, 'POST', `/v1/items/${ref}/status`, {
        ...as(carol.token, null, 'cli'),
        body: { status: 'implementing', force: true },
      });
      expect(forced.status).toBe(200);
      expect(await holderOf(ref)).toBeNull();
      const recorded = await history(ref);
      expect(recorded.find((c) => c.field === 'status')).toEqual(
        expect.objectContaining({
          actor: 'carol',
          path: 'cli',
          forced: true,
          before: 'planned',
          after: 'implementing',
        }),
      );
      const heard = await notices(admin, a);
      expect(heard.notices.filter((n) => n.kind === 'claim_lost').map((n) => [n.item_id, n.actor, n.forced])).toEqual([
        [ref, 'carol', true],
      ]);
    });

    it('should refuse a late write by a holder whose lease lapsed and was taken over, and tell it so', async () => {
      const ref = refs[4];
      const a = await session(admin);
      await claim(admin, a, ref);
      await sql(
        db.url,
        `UPDATE item_claims SET expires_at = now() - interval '1 second'
          WHERE item_id = (SELECT id FROM items WHERE project = 'alpha' AND 'AL-' || project_sequence = $1)`,
        [ref],
      );
      const b = await session(bob.token, 'codex');
      await claim(bob.token, b, ref);
      const late = await http(base, 'POST', `/v1/items/${ref}/status`, {
        ...as(admin, a),
        body: { status: 'implementing' },
      });
      expect([late.status, late.body.code, (late.body.holder as { session_id: number }).session_id]).toEqual([
        409,
        'item_claimed_elsewhere',
        b,
      ]);
      expect((await item(ref)).status).toBe('planned');
      const heard = await notices(admin, a);
      expect(
        heard.notices.filter((n) => n.kind === 'claim_lost').map((n) => [n.item_id, n.actor, n.session_id]),
      ).toEqual([[ref, 'bob', b]]);
    });

    it('should give back the claim (and its WIP slot) when the item reaches a terminal stage', async () => {
      const ref = refs[5];
      const a = await session(admin);
      await claim(admin, a, ref);
      const done = await http(base, 'POST', `/v1/items/${ref}/resolve`, {
        ...as(admin, a),
        body: { resolution: 'wontfix' },
      });
      expect(done.status).toBe(200);
      expect(await holderOf(ref)).toBeNull();
      const recorded = await history(ref);
      expect(recorded.find((c) => c.object === 'claim' && c.action === 'released')).toEqual(
        expect.objectContaining({ actor: 'admin', session_id: a }),
      );
      expect(recorded.find((c) => c.field === 'status')).toEqual(expect.objectContaining({ after: 'cancelled' }));
    });

    it('should refuse a session header that is not the caller’s own', async () => {
      const a = await session(admin);
      const res = await http(base, 'PUT', `/v1/items/${refs[6]}/fields/priority`, {
        ...as(bob.token, a),
        body: { value: 'low' },
      });
      expect([res.status, res.body.code]).toEqual([404, 'session_not_found']);
      expect((await item(refs[6])).priority).toBe('high');
    });
  });

  describe('MCP', () => {
    let lastTransport: StdioClientTransport | null = null;

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
      lastTransport = transport;
      return client;
    }

    it('should leave no claim when a claim call is cancelled', async () => {
      const client = await connect(bob.token);
      const claimsOn = async (ref: string) =>
        Number(
          (
            await sql<{ n: string }>(
              db.url,
              `SELECT count(*) AS n FROM item_claims c JOIN items i ON i.id = c.item_id
                WHERE 'AL-' || i.project_sequence = $1 AND c.expires_at > now()`,
              [ref],
            )
          )[0].n,
        );
      expect(await claimsOn(refs[7])).toBe(0);
      for (const ms of [5, 30, 80]) {
        const controller = new AbortController();
        const call = client.callTool({ name: 'claim', arguments: { item: refs[7] } }, undefined, {
          signal: controller.signal,
        });
        setTimeout(() => controller.abort(), ms);
        // a call answered before its abort is a claim the client was told of: it gives it back itself
        const answered = await call.then(
          () => true,
          () => false,
        );
        if (answered) await client.callTool({ name: 'release', arguments: { item: refs[7] } });
        // the server finishes a cancelled call on its own, and gives back what it claimed (a cancellation that
        // crossed the answer on the wire is handled when it arrives)
        await waitFor(async () => (await claimsOn(refs[7])) === 0, {
          what: `no claim left by the call cancelled at ${ms} ms`,
          timeout: 10_000,
        });
      }
      // A cancellation that crosses the answer on the wire: the claim was made and answered, then the client's
      // notifications/cancelled for that request arrives; the claim is given back all the same.
      const transport = lastTransport!;
      client.onerror = () => undefined; // the answer to our hand-made request id is unknown to the SDK client
      await transport.send({
        jsonrpc: '2.0',
        id: 'crossed-1',
        method: 'tools/call',
        params: { name: 'claim', arguments: { item: refs[7] } },
      });
      await waitFor(async () => (await claimsOn(refs[7])) === 1, { what: 'the claim answered', timeout: 10_000 });
      await client.notification({ method: 'notifications/cancelled', params: { requestId: 'crossed-1' } });
      await waitFor(async () => (await claimsOn(refs[7])) === 0, {
        what: 'the claim given back after a cancellation that crossed its answer',
        timeout: 10_000,
      });
      // and the item was not simply out of reach: an uncancelled claim takes it
      const claimed = (await client.callTool({ name: 'claim', arguments: { item: refs[7] } })) as CallToolResult;
      expect(claimed.isError).toBeFalsy();
      expect(await claimsOn(refs[7])).toBe(1);
      const released = (await client.callTool({ name: 'release', arguments: { item: refs[7] } })) as CallToolResult;
      expect(released.isError).toBeFalsy();
    });

    it('should record an MCP write with its session and harness, and tell the agent of a claim it lost', async () => {
      const client = await connect(bob.token);
      const claimed = (await client.callTool({ name: 'claim', arguments: { item: refs[6] } })) as CallToolResult;
      expect(claimed.isError).toBeFalsy();
      const moved = (await client.callTool({
        name: 'set_status',
        arguments: { item: refs[6], status: 'implementing' },
      })) as CallToolResult;
      expect(moved.isError).toBeFalsy();
      const recorded = await history(refs[6]);
      const status = recorded.find((c) => c.field === 'status') as ChangeRecordWire;
      expect(status).toEqual(
        expect.objectContaining({ actor: 'bob', path: 'mcp', harness: 'claude-code', before: 'planned' }),
      );
      expect(status.session_id).toEqual(expect.any(Number));
      // an admin takes it over: the agent hears of it in its next result
      const forced = await http(base, 'POST', `/v1/items/${refs[6]}/status`, {
        token: carol.token,
        body: { status: 'reviewing-implementation', force: true },
      });
      expect(forced.status).toBe(200);
      const next = (await client.callTool({ name: 'get_item', arguments: { item: refs[6] } })) as CallToolResult;
      const text = next.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
      expect(text).toContain(`claim lost: ${refs[6]} was released by carol's forced write`);
    });
  });

  describe('history', () => {
    it('should name who made each change and through which path: the command line, the TUI, MCP', async () => {
      const ref = refs[2];
      expect((await runSvc(['items', 'update', ref, 'priority', 'medium'], { env: svcEnv(daemon) })).code).toBe(0);
      const tui = await http(base, 'POST', `/v1/items/${ref}/freeze`, { ...as(admin, null, 'tui') });
      expect(tui.status).toBe(200);
      const listed = await runSvc(['items', 'history', ref, '--json'], { env: svcEnv(daemon) });
      expect(listed.code).toBe(0);
      const body = JSON.parse(listed.stdout) as HistoryResponse;
      expect(body.item_id).toBe(ref);
      const rows = body.changes.map((c) => [c.actor, c.path, c.field, c.before, c.after]);
      expect(rows).toEqual(
        expect.arrayContaining([
          ['admin', 'tui', 'frozen', 0, 1],
          ['admin', 'cli', 'priority', 'low', 'medium'],
          ['bob', 'http', 'priority', 'high', 'low'],
        ]),
      );
      // newest first
      expect(body.changes[0].field).toBe('frozen');
      const table = await runSvc(['items', 'history', ref], { env: { ...svcEnv(daemon), COLUMNS: '160' } });
      expect(table.stdout).toContain('priority: low → medium');
      expect(table.stdout).toMatch(/admin\s+cli/);
    });

    it('should name a writer whose name holds quotes, backslashes and a semicolon exactly as it is', async () => {
      const name = `d'arcy \\"; SELECT 1; -- ✓`;
      const dana = await createActor(db.url, { name, org: 'default' });
      const ref = refs[3];
      const res = await http(base, 'PUT', `/v1/items/${ref}/fields/priority`, {
        ...as(dana.token, null),
        body: { value: 'low' },
      });
      expect(res.status).toBe(200);
      const changed = (await history(ref)).find((c) => c.field === 'priority');
      expect(changed).toEqual(expect.objectContaining({ actor: name, path: 'http', before: 'high', after: 'low' }));
    });

    it('should name an import as the path of the changes it made', async () => {
      const demo = join(__dirname, '..', 'examples', 'demo-backlog.json');
      const imported = await runSvc(['import', demo], { env: svcEnv(daemon) });
      expect(imported.code).toBe(0);
      const listed = await runSvc(['items', 'history', 'ATL-6', '--json'], { env: svcEnv(daemon) });
      expect(listed.code).toBe(0);
      const created = (JSON.parse(listed.stdout) as HistoryResponse).changes.find((c) => c.action === 'created');
      expect(created).toEqual(expect.objectContaining({ actor: 'admin', path: 'import', object: 'item' }));
    });

    it('should show the project audit log to its members and hide other organizations’ changes', async () => {
      await sql(db.url, `INSERT INTO organizations (slug, name) VALUES ('other', 'other')`);
      await withClient(db.url, async (client) => {
        await createProject(client, { id: 'zeta', prefix: 'ZE' });
        await client.query(
          `UPDATE projects SET organization_id = (SELECT id FROM organizations WHERE slug = 'other') WHERE id = 'zeta'`,
        );
        await insertItems(client, 'zeta', [{ title: 'secret', status: 'planned' }]);
      });
      const log = await http<HistoryResponse>(base, 'GET', '/v1/history?limit=500', { token: bob.token });
      expect(log.status).toBe(200);
      expect(log.body.changes.length).toBeGreaterThan(0);
      expect(log.body.changes.filter((c) => c.project === 'zeta')).toEqual([]);
      const hidden = await http(base, 'GET', '/v1/items/ZE-1/history', { token: bob.token });
      expect([hidden.status, hidden.body.code]).toEqual([404, 'item_not_found']);
    });
  });
});
