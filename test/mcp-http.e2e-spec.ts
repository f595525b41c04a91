import { createHash, randomBytes, randomUUID } from 'node:crypto';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { fetch as undiciFetch } from 'undici';

import { createTestDatabase, DaemonProcess, runSvc, startDaemonProcess, TestDatabase, waitFor } from '@app/testing';
import { insertItems, withClient } from '@app/testing/backlog-factory';
import { CaddyProcess, caddyBinary, freePort, startCaddy, UPSTREAM_HEADER } from '@app/testing/caddy';
import { http, sql } from '@app/testing/machine-auth';

import type { SessionResponse } from '@app/contracts';

type Json = Record<string, unknown>;

const SECRET = 'e2e-mcp-http-0123456789abcdef-0123456789abcdef';
const ADMIN = `svc_${randomBytes(32).toString('hex')}`;
const FRONTIER_PAGE_BYTES = 64_000;

// Issue 37 (Deliver 5–7): MCP over HTTP as an agent builder meets it behind the team topology — two daemons on one
// database (and Caddy with the real docker/Caddyfile in front of them), driven by the SDK's own client.
describe('MCP over HTTP: naming, sessions across replicas, honest protocol', () => {
  let db: TestDatabase;
  let a: DaemonProcess;
  let b: DaemonProcess;
  let publicPort: number;
  const env = () => ({
    SVC_DATABASE_URL: db.url,
    SVC_SERVER_SECRET: SECRET,
    SVC_BOOTSTRAP_TOKEN: ADMIN,
    SVC_API_TRUSTED_PROXIES: '127.0.0.1',
    SVC_PUBLIC_URL: `https://127.0.0.1:${publicPort}`,
  });
  const clients: Client[] = [];

  const svc = async (...args: string[]) => {
    const result = await runSvc([...args, '--json'], { env: { SVC_URL: a.url, SVC_TOKEN: ADMIN } });
    if (result.code !== 0) throw new Error(`svc ${args.join(' ')} failed: ${result.stderr}`);
    return JSON.parse(result.stdout) as Json;
  };
  const item = async (project: string, title: string) =>
    String((await svc('items', 'create', '--project', project, '--title', title, '--status', 'planned')).item_id);

  // The SDK's client over Streamable HTTP; `sessionId` joins a session opened elsewhere (no initialize again).
  async function connect(
    base: string,
    options: { path?: string; headers?: Record<string, string>; name?: string; sessionId?: string } = {},
  ): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
    const transport = new StreamableHTTPClientTransport(new URL(options.path ?? '/mcp', base), {
      requestInit: { headers: { authorization: `Bearer ${ADMIN}`, ...options.headers } },
      sessionId: options.sessionId,
    });
    const client = new Client({ name: options.name ?? 'claude-code', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    return { client, transport };
  }
  const call = async (client: Client, name: string, args: Json = {}) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
  async function success<T = Json>(client: Client, name: string, args: Json = {}): Promise<T> {
    const result = await call(client, name, args);
    if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
    return result.structuredContent as T;
  }
  const sessionOf = async (id: number, base = a.url) =>
    (await http<SessionResponse>(base, 'GET', `/v1/sessions/${id}`, { token: ADMIN })).body;
  const rowOf = async (mcpSessionId: string) =>
    (
      await sql<{ executor_session_id: number | null; project: string | null; harness: string | null }>(
        db.url,
        'SELECT executor_session_id, project, harness FROM mcp_http_sessions WHERE session_hash = $1',
        [createHash('sha256').update(mcpSessionId).digest()],
      )
    )[0];

  beforeAll(async () => {
    db = await createTestDatabase('server', 'mcphttp');
    publicPort = await freePort();
    [a, b] = await Promise.all([startDaemonProcess({ env: env() }), startDaemonProcess({ env: env() })]);
    for (const [id, prefix, ...policy] of [
      ['lan', 'LAN', '--lane-rule', 'harness=aider,model=opus*,lane=deep', '--default-lane', 'codex=fast'],
      ['two', 'TWO'],
      ['big', 'BIG'],
    ]) {
      await svc('projects', 'create', id, '--prefix', prefix, ...policy);
    }
  });

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close().catch(() => undefined)));
  });

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await db?.drop();
  });

  it('should route an HTTP client by the project, harness and model it names (query or headers), like stdio', async () => {
    const [byQuery, byHeaders] = await Promise.all([
      connect(a.url, { path: '/mcp?project=lan&harness=aider&model=opus-4', name: 'cursor' }),
      connect(a.url, { headers: { 'x-svc-project': 'lan', 'x-svc-model': 'gpt-5' }, name: 'Codex' }),
    ]);
    const first = await success<{ session_id: number }>(byQuery.client, 'next_work');
    const second = await success<{ session_id: number }>(byHeaders.client, 'next_work');
    expect(await sessionOf(first.session_id)).toMatchObject({
      harness: 'aider',
      model: 'opus-4',
      project: 'lan',
      lane: 'deep',
    });
    expect(await sessionOf(second.session_id)).toMatchObject({
      harness: 'codex',
      model: 'gpt-5',
      project: 'lan',
      lane: 'fast',
    });
    // the project named is every tool's default
    expect(await success(byQuery.client, 'frontier')).toMatchObject({ project: 'lan' });

    // without a project, a call that needs one says how to name it over HTTP (not a flag of a server it cannot start)
    const plain = await connect(a.url, { name: 'cursor' });
    const refused = await call(plain.client, 'frontier');
    expect(refused.isError).toBe(true);
    const text = (refused.content as { text: string }[])[0].text;
    expect(text).toMatch(/^project_required: .*\/mcp\?project=<id>.*X-Svc-Project/);
    expect(text).not.toMatch(/--project/);
  });

  // Issue 37's "done when", over HTTP, one MCP session whose requests alternate between the two daemons.
  it('should do an agent’s whole job over HTTP through two daemons: prompt, list past 100, update, comment, lanes', async () => {
    await svc('projects', 'create', 'walk', '--prefix', 'WLK', '--lane-rule', 'harness=aider,model=opus*,lane=deep');
    const created = await withClient(db.url, (client) =>
      insertItems(
        client,
        'walk',
        Array.from({ length: 120 }, (_, n) => ({ title: n === 0 ? 'Price book: per-call tiers' : `Task ${n + 1}` })),
      ),
    );
    const first = created[0].ref;
    const onA = await connect(a.url, { path: '/mcp?project=walk' });
    const onB = await connect(b.url, { sessionId: onA.transport.sessionId! });

    // the dispatched entrypoint runs as a prompt, rendered by the other daemon
    const usher = await onB.client.getPrompt({ name: 'usher', arguments: { ref: first } });
    const text = (usher.messages[0].content as { text: string }).text;
    expect(text).toContain(`# Usher an item to release: ${first}`);
    expect(text).toContain('Price book: per-call tiers');

    // every item, past 100, a page from each daemon in turn
    const seen = new Set<string>();
    let cursor: string | null = null;
    for (let page = 0; page < 10; page++) {
      const client: Client = page % 2 === 0 ? onA.client : onB.client;
      const listed: { items: { item_id: string }[]; next_cursor: string | null } = await success(client, 'list_items', {
        limit: 50,
        ...(cursor ? { cursor } : {}),
      });
      for (const row of listed.items) seen.add(row.item_id);
      cursor = listed.next_cursor;
      if (!cursor) break;
    }
    expect(seen.size).toBe(120);

    // a change on A and a comment on B, both shown by svc items show
    await success(onA.client, 'update_item', { item: first, title: 'Price book: per-call tiers, in EUR' });
    await success(onB.client, 'comment', { item: first, body: 'tiers agreed with finance' });
    const shown = await svc('items', 'show', first);
    expect(shown).toMatchObject({ title: 'Price book: per-call tiers, in EUR' });
    expect((shown.comments as { body: string }[]).map((c) => c.body)).toContain('tiers agreed with finance');

    // an agent routed to an empty lane is told where the work is
    const idle = await connect(b.url, { path: '/mcp?project=walk&harness=aider&model=opus-4', name: 'aider' });
    const next = await call(idle.client, 'next_work');
    expect((next.content as { text: string }[])[0].text).toMatch(
      /your lane deep has none in walk; \d+ runnable in other lanes/,
    );
  });

  it('should serve a session initialized on one daemon from the other, in the same executor session', async () => {
    const ref = await item('two', 'claimed across replicas');
    const onA = await connect(a.url, { path: '/mcp?project=two' });
    const sessionId = onA.transport.sessionId!;
    const { session_id } = await success<{ session_id: number }>(onA.client, 'next_work');
    expect(await rowOf(sessionId)).toMatchObject({ executor_session_id: session_id, project: 'two' });

    // the same MCP session on daemon B: no initialize, the same executor session, its claim visible on either side
    const onB = await connect(b.url, { sessionId });
    expect((await onB.client.listTools()).tools.length).toBeGreaterThan(10);
    const claimed = await success<{ item_id: string; session_id: number }>(onB.client, 'claim', { item: ref });
    expect(claimed).toMatchObject({ item_id: ref, session_id });
    const onAWork = await success<{ session_id: number; claims: { item_id: string }[] }>(onA.client, 'my_work');
    expect(onAWork).toMatchObject({ session_id, claims: [{ item_id: ref }] });
    expect(b.stderr() + b.stdout()).not.toMatch(/Bad Request|Server not initialized/);

    // ended through B (DELETE): the executor session ends, its claim goes, and A answers 404 for it (MCP spec:
    // the client initializes again)
    await onB.transport.terminateSession();
    await waitFor(async () => (await sessionOf(session_id)).ended_at !== null, { what: 'the session to end' });
    expect(await rowOf(sessionId)).toBeUndefined();
    const gone = await http(a.url, 'POST', '/mcp', {
      token: ADMIN,
      body: { jsonrpc: '2.0', id: 5, method: 'tools/list', params: {} },
      headers: { accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId },
    });
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ error: { code: -32001 } });
  });

  it('should answer 404 for a session id no replica knows, and keep a session through its replica’s restart', async () => {
    const unknown = await http(b.url, 'POST', '/mcp', {
      token: ADMIN,
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
      headers: { accept: 'application/json, text/event-stream', 'mcp-session-id': randomUUID() },
    });
    expect(unknown.status).toBe(404);

    const ref = await item('two', 'held through a restart');
    const onA = await connect(a.url, { path: '/mcp?project=two' });
    const sessionId = onA.transport.sessionId!;
    const claimed = await success<{ session_id: number }>(onA.client, 'claim', { item: ref });
    // A stops (a rolling restart): the session is not ended, its claim stays
    expect(await a.stop()).toBe(0);
    expect((await sessionOf(claimed.session_id, b.url)).ended_at).toBeNull();
    // B serves it on ...
    const onB = await connect(b.url, { sessionId });
    expect(await success(onB.client, 'my_work')).toMatchObject({
      session_id: claimed.session_id,
      claims: [{ item_id: ref }],
    });
    // ... and so does A, restarted on its port, to the client that never noticed
    a = await startDaemonProcess({ env: env(), port: a.port });
    expect(await success(onA.client, 'my_work')).toMatchObject({
      session_id: claimed.session_id,
      claims: [{ item_id: ref }],
    });
    await onA.transport.terminateSession();
    await waitFor(async () => (await sessionOf(claimed.session_id)).ended_at !== null, { what: 'the session to end' });
  });

  it('should send a subscribed session’s notifications from the replica holding its GET stream', async () => {
    const onA = await connect(a.url, { path: '/mcp?project=two' });
    const sessionId = onA.transport.sessionId!;
    await onA.client.subscribeResource({ uri: 'svc://frontier/two' });
    // the client's notification stream (GET /mcp) on B, which never saw the subscription
    const abort = new AbortController();
    const res = await fetch(`${b.url}/mcp`, {
      headers: { authorization: `Bearer ${ADMIN}`, accept: 'text/event-stream', 'mcp-session-id': sessionId },
      signal: abort.signal,
    });
    expect(res.status).toBe(200);
    let received = '';
    const reading = (async () => {
      const decoder = new TextDecoder();
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          received += decoder.decode(chunk, { stream: true });
        }
      } catch {
        // aborted
      }
    })();
    try {
      // a change while B follows the stored subscription reaches the client through B
      await waitFor(
        async () => {
          await item('two', 'seen through B');
          return waitFor(() => received.includes('notifications/resources/updated'), { timeout: 1000 }).catch(
            () => false,
          );
        },
        { what: 'the notification through B', timeout: 20_000 },
      );
      expect(received).toContain('svc://frontier/two');
    } finally {
      abort.abort();
      await reading;
    }
  });

  it('should declare no list_changed it never sends, and page the frontier resource in bounded pages', async () => {
    const { client } = await connect(a.url, { path: '/mcp?project=big' });
    const capabilities = client.getServerCapabilities()!;
    expect(capabilities.tools?.listChanged).toBeFalsy();
    expect(capabilities.prompts?.listChanged).toBeFalsy();
    expect(capabilities.resources).toMatchObject({ subscribe: true });
    expect(capabilities.resources?.listChanged).toBeFalsy();

    // 400 runnable items with long titles: about 3× a page unpaged
    const long = 'x'.repeat(300);
    await withClient(db.url, (pg) =>
      insertItems(
        pg,
        'big',
        Array.from({ length: 400 }, (_, i) => ({ title: `big ${i} ${long}`, status: 'planned' })),
      ),
    );
    const read = async (uri: string) => {
      const text = ((await client.readResource({ uri })).contents[0] as { text: string }).text;
      return { bytes: Buffer.byteLength(text), body: JSON.parse(text) as Json };
    };
    const first = await read('svc://frontier/big');
    expect(first.bytes).toBeLessThanOrEqual(FRONTIER_PAGE_BYTES);
    expect(first.body).toMatchObject({ project: 'big', counts: { runnable: 400 } });
    const seen = new Set((first.body.runnable as { item_id: string }[]).map((i) => i.item_id));
    expect(seen.size).toBeGreaterThan(0);
    expect(seen.size).toBeLessThan(400);
    let next = (first.body.next as Record<string, string | null>).runnable;
    expect(next).toMatch(/^svc:\/\/frontier\/big\?bucket=runnable&cursor=/);
    let pages = 0;
    while (next) {
      const page = await read(next);
      pages += 1;
      expect(page.bytes).toBeLessThanOrEqual(FRONTIER_PAGE_BYTES);
      expect(page.body).toMatchObject({ project: 'big', bucket: 'runnable', total: 400 });
      for (const i of page.body.items as { item_id: string }[]) seen.add(i.item_id);
      next = page.body.next as string | null;
    }
    expect(seen.size).toBe(400);
    expect(pages).toBeGreaterThan(1);
    // a page URI that is not one: -32002
    await expect(client.readResource({ uri: 'svc://frontier/big?bucket=nosuch' })).rejects.toMatchObject({
      code: -32002,
    });
    await expect(
      client.readResource({ uri: 'svc://frontier/big?bucket=runnable&cursor=bm9wZQ' }),
    ).rejects.toMatchObject({ code: -32002 });
  });

  it('should publish RFC 9728 protected-resource metadata and name it in /mcp’s 401', async () => {
    const origin = `https://127.0.0.1:${publicPort}`;
    const meta = await http<Json>(a.url, 'GET', '/.well-known/oauth-protected-resource/mcp');
    expect(meta.status).toBe(200);
    expect(meta.body).toMatchObject({
      resource: `${origin}/mcp`,
      bearer_methods_supported: ['header'],
      svc_credentials: expect.stringContaining(`svc connect ${origin}`),
    });
    const root = await http<Json>(b.url, 'GET', '/.well-known/oauth-protected-resource');
    expect(root.body).toMatchObject({ resource: origin });
    const refused = await http(a.url, 'POST', '/mcp', {
      body: { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} },
      headers: { accept: 'application/json, text/event-stream' },
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
    );
    // other routes keep their plain challenge
    const other = await http(a.url, 'GET', '/v1/whoami');
    expect(other.status).toBe(401);
  });

  // Skipped on a developer machine without caddy; under CI a missing caddy fails the run.
  const withCaddy = caddyBinary() || process.env.CI ? describe : describe.skip;
  withCaddy('through Caddy (docker/Caddyfile) round-robin over the two daemons', () => {
    let caddy: CaddyProcess;
    beforeAll(async () => {
      caddy = await startCaddy({
        upstreams: [a, b].map((d) => `127.0.0.1:${d.port}`),
        port: publicPort,
        upstreamHeader: true,
      });
    });
    afterAll(async () => {
      await caddy?.stop();
    });

    // 120 s: a daemon is stopped and started again behind the proxy, on two cores shared with another test file
    it('should serve one MCP session whichever daemon the proxy picks, and through one daemon’s restart', async () => {
      const ref = await item('two', 'through the proxy');
      const upstreams: string[] = [];
      const dispatcher = caddy.agent();
      const transport = new StreamableHTTPClientTransport(new URL('/mcp?project=two', caddy.url), {
        requestInit: { headers: { authorization: `Bearer ${ADMIN}` } },
        fetch: (async (url: string | URL, init?: RequestInit) => {
          const res = await undiciFetch(url, { ...(init as object), dispatcher } as Parameters<typeof undiciFetch>[1]);
          upstreams.push(String(res.headers.get(UPSTREAM_HEADER)));
          return res;
        }) as unknown as typeof fetch,
      });
      const client = new Client({ name: 'claude-code', version: '1.0.0' });
      await client.connect(transport);
      clients.push(client);
      const claimed = await success<{ session_id: number; item_id: string }>(client, 'claim', { item: ref });
      for (let i = 0; i < 4; i += 1) {
        expect(await success(client, 'my_work')).toMatchObject({
          session_id: claimed.session_id,
          claims: [{ item_id: ref }],
        });
      }
      // both daemons served this one session
      expect(new Set(upstreams.filter((u) => u !== 'null')).size).toBe(2);

      // one daemon stops: once the proxy has noticed (its GETs are retried on the other daemon; a POST on a pooled
      // connection to the stopped one would be a 502 of the proxy's), every request goes to A and the session goes on
      await b.stop();
      let fromA = 0;
      await waitFor(
        async () => {
          const res = await undiciFetch(`${caddy.url}/readyz`, { dispatcher });
          await res.text();
          fromA = res.headers.get(UPSTREAM_HEADER) === `127.0.0.1:${a.port}` ? fromA + 1 : 0;
          return fromA >= 4;
        },
        { what: 'the proxy to send everything to A' },
      );
      for (let i = 0; i < 3; i += 1) {
        expect(await success(client, 'my_work')).toMatchObject({ session_id: claimed.session_id });
      }
      b = await startDaemonProcess({ env: env(), port: b.port });
      await transport.terminateSession();
      await waitFor(async () => (await sessionOf(claimed.session_id)).ended_at !== null, {
        what: 'the session to end',
      });
    }, 120_000);
  });
});
