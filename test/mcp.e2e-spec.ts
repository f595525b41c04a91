import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResult, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

import {
  createTestDatabase,
  DaemonProcess,
  runSvc,
  startDaemonProcess,
  SVC_BIN,
  svcEnv,
  TestDatabase,
  waitFor,
} from '@app/testing';
import { createActor, http } from '@app/testing/machine-auth';

import { openStream } from './daemon-sse';

import type { ClaimsResponse, SessionResponse } from '@app/contracts';

type Json = Record<string, unknown>;

const TOOLS = [
  'add_dependency',
  'add_note',
  'amend_db_claim',
  'claim',
  'comment',
  'create_item',
  'explain',
  'frontier',
  'get_item',
  'list_items',
  'my_work',
  'next_work',
  'release',
  'set_status',
  'update_item',
];

// A declared DB claim the daemon accepts (the shape of test/db-claims.e2e-spec.ts).
const DECLARED_CLAIM = {
  state: 'declared',
  model_name: 'BacklogItem',
  mutation_intent: 'apply',
  migration_modules: ['apps/daemon/src/database/migrations/1700000000000-AddDeployStage.ts'],
  migration_strategy: 'additive_only',
  migration_strategy_justification: 'one nullable column, no table rewrite',
  compatibility_class: 'pre_merge_safe',
  schema_kinds: ['additive'],
  affected_surfaces: [{ table: 'items', columns: ['deploy_stage'] }],
  pre_merge_readers_writers: [
    { path: 'apps/daemon/src/database/migrations/1700000000000-AddDeployStage.ts', role: 'writer' },
  ],
  invariants: ['readers that do not know deploy_stage ignore it'],
  rehearsal_commands: ['npm run typeorm migration:run'],
  residual_risk_notes: 'none known',
};

// Polls until the check passes (never a fixed sleep): the daemon and the server processes work on their own time.
async function eventually<T>(
  check: () => Promise<T | undefined | null | false>,
  what: string,
  ms = 20_000,
): Promise<T> {
  return waitFor(check, { what, timeout: ms });
}

// Issue 29: `svc mcp` driven by the SDK's own client over stdio against a real daemon, and the daemon's /mcp.
describe('svc mcp: the backlog as an MCP server', () => {
  let db: TestDatabase;
  let daemon: DaemonProcess;
  const clients: Client[] = [];

  const svc = (...args: string[]) => runSvc(args, { env: svcEnv(daemon) });
  async function ok<T = Json>(...args: string[]): Promise<T> {
    const result = await svc(...args, '--json');
    if (result.code !== 0) throw new Error(`svc ${args.join(' ')} failed: ${result.stderr}`);
    return JSON.parse(result.stdout) as T;
  }
  const item = async (project: string, title: string, ...extra: string[]) =>
    (await ok<{ item_id: string }>('items', 'create', '--project', project, '--title', title, ...extra)).item_id;

  // A real `node bin/svc.js mcp` process, its project from SVC_PROJECT; the client's name is the harness.
  async function connect(
    project: string,
    name = 'claude-code',
    more: { args?: string[]; env?: Record<string, string> } = {},
  ): Promise<Client> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [SVC_BIN, 'mcp', '--heartbeat', '1', ...(more.args ?? [])],
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        ...svcEnv(daemon),
        SVC_PROJECT: project,
        ...more.env,
      },
      stderr: 'pipe',
    });
    const client = new Client({ name, version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  const call = async (client: Client, name: string, args: Json = {}) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
  async function success<T = Json>(client: Client, name: string, args: Json = {}): Promise<T> {
    const result = await call(client, name, args);
    if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
    return result.structuredContent as T;
  }
  // A refusal: the daemon's body is the last line of the text.
  async function refusal(client: Client, name: string, args: Json = {}): Promise<{ text: string; body: Json }> {
    const result = await call(client, name, args);
    expect(result.isError).toBe(true);
    const text = (result.content as { type: string; text: string }[])[0].text;
    return { text, body: JSON.parse(text.split('\n').pop()!) as Json };
  }

  const claimsOf = async (project: string) =>
    (await http<ClaimsResponse>(daemon.url, 'GET', `/v1/charge/claims?project=${project}`, { token: daemon.token! }))
      .body.claims;

  beforeAll(async () => {
    db = await createTestDatabase('server', 'mcp');
    daemon = await startDaemonProcess({
      env: {
        SVC_DATABASE_URL: db.url,
        // One event stream per client address, and the test's own requests name their address (X-Forwarded-For
        // from 127.0.0.1): the MCP-over-HTTP connections' streams come back over loopback and must still count
        // against their clients' addresses.
        SVC_EVENT_STREAMS_PER_ADDRESS: '1',
        SVC_API_TRUSTED_PROXIES: '127.0.0.1',
        // small MCP caps, reached by the cap tests with their own actors and addresses
        SVC_MCP_SESSIONS_PER_ACTOR: '2',
        SVC_MCP_SESSIONS_PER_ADDRESS: '3',
        SVC_MCP_STREAMS_PER_ADDRESS: '1',
      },
    });
    for (const [id, prefix, ...policy] of [
      ['atl', 'ATL'],
      ['con', 'CON'],
      ['rel', 'REL'],
      ['res', 'RES'],
      ['frn', 'FRN'],
      ['cap', 'CAP', '--wip-cap', '1'],
      ['pmt', 'PMT'],
      ['wrk', 'WRK'],
      ['lan', 'LAN', '--lane-rule', 'harness=aider,model=opus*,lane=deep', '--default-lane', 'codex=fast'],
    ]) {
      await ok('projects', 'create', id, '--prefix', prefix, ...policy);
    }
  });

  afterEach(async () => {
    await Promise.all(
      clients.splice(0).map(async (c) => {
        // an HTTP session stays open on the daemon until it is ended: a test that failed midway must not leave the
        // actor's sessions taken for the tests after it
        const transport = c.transport;
        if (transport instanceof StreamableHTTPClientTransport && transport.sessionId !== undefined) {
          await transport.terminateSession().catch(() => undefined);
        }
        await c.close().catch(() => undefined);
      }),
    );
  });

  afterAll(async () => {
    await daemon?.stop();
    await db?.drop();
  });

  it('should list every tool, each with an input and an output schema', async () => {
    const client = await connect('atl');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
    }
    expect(client.getServerCapabilities()?.resources?.subscribe).toBe(true);
  });

  // Issue 37: the entrypoints next_work, claim and svc charge hand out (`/svc usher PMT-2`) are the server's prompts.
  it("should offer the seed's slash commands as prompts, each rendering its item's work", async () => {
    const blocker = await item('pmt', 'Provision the bucket', '--status', 'planned');
    const shipped = await item('pmt', 'Ship the exporter', '--status', 'implemented', '--priority', 'high');
    const waiting = await item('pmt', 'Wire the exporter', '--status', 'planned');
    await http(daemon.url, 'PUT', `/v1/items/${shipped}/fields/body`, {
      token: daemon.token!,
      body: { value: 'Export the backlog as CSV.' },
    });
    await http(daemon.url, 'PUT', `/v1/items/${shipped}/sections/acceptance`, {
      token: daemon.token!,
      body: { content: 'The file opens in a spreadsheet.' },
    });
    await http(daemon.url, 'POST', `/v1/items/${waiting}/dependencies`, {
      token: daemon.token!,
      body: { blocker },
    });
    const client = await connect('pmt');
    expect(client.getServerCapabilities()?.prompts).toBeDefined();

    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name).sort()).toEqual(['advance', 'conduct', 'polish', 'refine', 'shepherd', 'usher']);
    const usher = prompts.find((p) => p.name === 'usher')!;
    expect(usher.arguments).toEqual([expect.objectContaining({ name: 'ref', required: true })]);
    expect(prompts.find((p) => p.name === 'advance')!.arguments!.map((a) => [a.name, a.required])).toEqual([
      ['ref', true],
      ['phase', false],
    ]);

    // the entrypoint next_work hands out names the prompt
    const next = await success<{ steps: { item_id: string; entrypoint: string }[] }>(client, 'next_work');
    expect(next.steps.find((s) => s.item_id === shipped)?.entrypoint).toBe(`/svc usher ${shipped}`);

    const rendered = await client.getPrompt({ name: 'usher', arguments: { ref: shipped } });
    expect(rendered.messages).toHaveLength(1);
    const text = (rendered.messages[0].content as { type: string; text: string }).text;
    expect(text).toContain(`# Usher an item to release: ${shipped}`);
    expect(text).toContain('Ship the exporter');
    expect(text).toContain('Export the backlog as CSV.\n\n## acceptance\n\nThe file opens in a spreadsheet.');
    // the stages ahead and their gates, the workflow's stages, the steps, the tools and how to report
    expect(text).toContain('- release (usher): dependencies at integration: every hard blocker satisfied');
    expect(text).toContain('- done (skip): dependencies at closure');
    expect(text).toMatch(/Stages of workflow issue: idea, .*implemented, release, done/);
    expect(text).toContain('## Steps');
    expect(text).toContain(`set_status {item: "${shipped}", status: "<stage>"}`);
    expect(text).toContain(`release {item: "${shipped}"}`);

    // conduct names the dependencies gate of implementing and what the item still waits on
    const conduct = await client.getPrompt({ name: 'conduct', arguments: { ref: waiting } });
    const conductText = (conduct.messages[0].content as { text: string }).text;
    expect(conductText).toContain('- implementing (advance): dependencies at activation');
    expect(conductText).toContain(`waits on ${blocker}`);

    const advance = await client.getPrompt({ name: 'advance', arguments: { ref: shipped } });
    expect((advance.messages[0].content as { text: string }).text).toContain('(phase implementation)');

    // an unknown item renders the refusal in words
    const missing = await client.getPrompt({ name: 'refine', arguments: { ref: 'PMT-999' } });
    expect((missing.messages[0].content as { text: string }).text).toMatch(
      /svc could not read PMT-999 \(item_not_found/,
    );
  });

  // Issue 37: the ordinary work of an agent — find items past the frontier's top 100, read one whole, change it.
  it('should list items past 100 by cursor, read an item whole, change it, and say what the session holds', async () => {
    for (let n = 1; n <= 105; n++) {
      const created = await http(daemon.url, 'POST', '/v1/items', {
        token: daemon.token!,
        body: { project: 'wrk', title: n === 104 ? 'Rotate the signing keys' : `Task ${n}`, status: 'planned' },
      });
      expect(created.status).toBe(201);
    }
    const client = await connect('wrk');
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'list_items')?.annotations).toMatchObject({ readOnlyHint: true });
    expect(tools.find((t) => t.name === 'update_item')?.annotations).toMatchObject({ readOnlyHint: false });

    type Page = { total: number; items: { item_id: string }[]; next_cursor: string | null };
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 5; pages++) {
      const page: Page = await success<Page>(client, 'list_items', { limit: 40, ...(cursor ? { cursor } : {}) });
      expect(page.total).toBe(105);
      seen.push(...page.items.map((i) => i.item_id));
      if (!page.next_cursor) break;
      cursor = page.next_cursor;
    }
    expect(seen).toHaveLength(105);
    expect(new Set(seen).size).toBe(105);
    expect(seen[104]).toBe('WRK-105');

    const found = await call(client, 'list_items', { text: 'SIGNING' });
    expect((found.structuredContent as Page).items.map((i) => i.item_id)).toEqual(['WRK-104']);
    // the text block carries the whole result as JSON after its summary
    const text = (found.content as { text: string }[])[0].text;
    expect(JSON.parse(text.split('\n').pop()!)).toMatchObject({ total: 1, items: [{ item_id: 'WRK-104' }] });
    expect((await refusal(client, 'list_items', { cursor: 'nonsense' })).body.code).toBe('invalid_cursor');

    await success(client, 'claim', { item: 'WRK-104' });
    const claimed = await success<Page>(client, 'list_items', { claimed: true });
    expect(claimed.items.map((i) => i.item_id)).toEqual(['WRK-104']);
    const mine = await success<{ claims: { item_id: string; expires_at: string }[] }>(client, 'my_work');
    expect(mine.claims).toEqual([expect.objectContaining({ item_id: 'WRK-104', expires_at: expect.any(String) })]);

    await http(daemon.url, 'POST', '/v1/items/WRK-104/dependencies', {
      token: daemon.token!,
      body: { blocker: 'WRK-1' },
    });
    const updated = await success<{ title: string; priority: string }>(client, 'update_item', {
      item: 'WRK-104',
      title: 'Rotate the signing keys yearly',
      priority: 'high',
      body: 'Keys older than a year are replaced.',
      sections: { acceptance: 'No key older than 365 days.' },
    });
    expect(updated).toMatchObject({ title: 'Rotate the signing keys yearly', priority: 'high' });
    const shown = await ok<{ title: string; priority: string; body: string }>('items', 'show', 'WRK-104');
    expect(shown).toMatchObject({ title: 'Rotate the signing keys yearly', priority: 'high' });
    expect(shown.body).toContain(
      'Keys older than a year are replaced.\n\n## acceptance\n\nNo key older than 365 days.',
    );

    const whole = await success<Json>(client, 'get_item', { item: 'WRK-104' });
    expect(whole.dependencies).toEqual([
      expect.objectContaining({
        direction: 'depends_on',
        other_item: 'WRK-1',
        gate_point: 'activation',
        satisfied: false,
      }),
    ]);
    expect(whole.claim).toMatchObject({ session_id: expect.any(Number), harness: 'claude-code' });
    expect(whole.last_changes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'priority' }),
        expect.objectContaining({ field: 'title' }),
      ]),
    );
    expect((await refusal(client, 'update_item', { item: 'WRK-104' })).body.code).toBe('invalid_arguments');
  });

  // Issue 37: words an agent can act on.
  it('should describe every argument, inline every schema, explain itself and list the stages a move can take', async () => {
    const client = await connect('wrk');
    const { tools } = await client.listTools();
    const undescribed: string[] = [];
    for (const tool of tools) {
      expect(JSON.stringify(tool.inputSchema)).not.toContain('$ref');
      const properties = (tool.inputSchema.properties ?? {}) as Record<string, { description?: string }>;
      for (const [arg, schema] of Object.entries(properties))
        if (!schema.description) undescribed.push(`${tool.name}.${arg}`);
      expect(tool.annotations?.readOnlyHint).toEqual(expect.any(Boolean));
    }
    expect(undescribed).toEqual([]);
    const instructions = client.getInstructions() ?? '';
    for (const word of ['Adapters', 'Entrypoints', 'Claims', 'amend_db_claim', 'item_claimed_elsewhere']) {
      expect(instructions).toContain(word);
    }

    const target = await item('wrk', 'Move me');
    const refused = await refusal(client, 'set_status', { item: target, status: 'shipping' });
    expect(refused.text).toContain('the stages of workflow issue: idea, refining-idea, refined-idea');
    expect(refused.body.stages).toEqual(expect.arrayContaining(['idea', 'implementing', 'done']));
  });

  // Issue 37: an unknown resource is -32002, and only the server's own resources can be subscribed to.
  it("should answer -32002 for an unknown resource and refuse to subscribe to another server's URI", async () => {
    const client = await connect('wrk');
    await expect(client.readResource({ uri: 'svc://frontier/nosuchproject' })).rejects.toMatchObject({ code: -32002 });
    await expect(client.readResource({ uri: 'file:///etc/passwd' })).rejects.toMatchObject({ code: -32002 });
    await expect(client.subscribeResource({ uri: 'file:///etc/passwd' })).rejects.toMatchObject({ code: -32002 });
    expect(
      JSON.parse(((await client.readResource({ uri: 'svc://frontier/wrk' })).contents[0] as { text: string }).text),
    ).toHaveProperty('runnable');
  });

  // Issue 37: with no credential the server still answers initialize; each tool call names svc connect.
  it('should answer initialize without a credential and report the missing one as a tool error', async () => {
    const emptyConfig = mkdtempSync(join(tmpdir(), 'svc-mcp-nocred-'));
    const client = await connect('wrk', 'claude-code', { env: { SVC_TOKEN: '', SVC_CONFIG_DIR: emptyConfig } });
    expect(client.getServerVersion()?.name).toBe('svc');
    const refused = await refusal(client, 'next_work');
    expect(refused.body.code).toBe('not_connected');
    expect(refused.text).toContain('run `svc connect`');
  });

  it('should write nothing but JSON-RPC messages to stdout, and end the session when stdin closes', async () => {
    const messages = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'next_work', arguments: {} } },
    ];
    const child = spawn(process.execPath, [SVC_BIN, 'mcp'], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...svcEnv(daemon), SVC_PROJECT: 'atl' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.stdin.write(`${JSON.stringify(messages[0])}\n`);
    await eventually(() => Promise.resolve(stdout.includes('"id":1')), 'the initialize answer');
    child.stdin.write(`${JSON.stringify(messages[1])}\n${JSON.stringify(messages[2])}\n`);
    await eventually(() => Promise.resolve(stdout.includes('"id":2')), 'the next_work answer');
    child.stdin.end();
    expect(await exited).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as { jsonrpc: string }).jsonrpc)).toEqual(['2.0', '2.0']);
    const answer = JSON.parse(lines[1]) as { result: { structuredContent: { session_id: number } } };
    const session = await http<SessionResponse>(
      daemon.url,
      'GET',
      `/v1/sessions/${answer.result.structuredContent.session_id}`,
      { token: daemon.token! },
    );
    expect(session.body).toMatchObject({ harness: 'raw', ended_at: expect.any(String) });
  });

  it('should run next_work → claim → set_status refused by a gate, allowed once the blocker is done → done', async () => {
    const parser = await item('atl', 'Build the parser', '--status', 'planned', '--priority', 'high');
    const lexer = await item('atl', 'Write the lexer', '--status', 'planned', '--priority', 'low');
    const client = await connect('atl');

    const next = await success<{ steps: { item_id: string; entrypoint: string; why: string; adapter: string }[] }>(
      client,
      'next_work',
    );
    expect(next.steps.map((s) => s.item_id)).toEqual([parser, lexer]);
    expect(next.steps[0]).toMatchObject({ adapter: 'conduct', entrypoint: expect.stringContaining(parser) });
    expect(next.steps[0].why).toContain('priority high');

    const claimed = await success<{ item_id: string; entrypoint: string; session_id: number }>(client, 'claim');
    expect(claimed).toMatchObject({ item_id: parser, entrypoint: next.steps[0].entrypoint });
    expect((await claimsOf('atl')).map((c) => [c.item_id, c.session_id])).toEqual([[parser, claimed.session_id]]);

    // Work reveals a prerequisite: the parser now waits on the lexer, and the gate refuses to start it.
    await success(client, 'add_dependency', { dependent: parser, blocker: lexer, rationale: 'tokens first' });
    const refused = await refusal(client, 'set_status', { item: parser, status: 'implementing' });
    expect(refused.body).toMatchObject({ code: 'blocked_by_dependencies', gate_point: 'activation' });
    expect(refused.body.blockers).toEqual([
      expect.objectContaining({ blocker: lexer, blocker_status: 'planned', need: expect.any(String) }),
    ]);
    expect(refused.text).toMatch(/^blocked_by_dependencies: /);
    expect(refused.text).toContain(`- ${lexer} (planned)`);
    const explained = await success<{ bucket: string; unblock_roots: string[] }>(client, 'explain', { item: parser });
    expect(explained).toMatchObject({ bucket: 'blocked', unblock_roots: [lexer] });

    await success(client, 'set_status', { item: lexer, status: 'done' });
    expect(await success(client, 'set_status', { item: parser, status: 'implementing' })).toMatchObject({
      item_id: parser,
      status: 'implementing',
    });
    expect(await success(client, 'set_status', { item: parser, status: 'done' })).toMatchObject({ status: 'done' });
    expect(await success(client, 'get_item', { item: parser })).toMatchObject({
      status: 'done',
      title: 'Build the parser',
    });

    // release gives a claim back before the session ends
    const third = await success<{ item_id: string }>(client, 'create_item', { title: 'Docs', status: 'planned' });
    await success(client, 'claim', { item: third.item_id });
    expect(await success(client, 'release', { item: third.item_id })).toMatchObject({ released: true });
    expect((await claimsOf('atl')).map((c) => c.item_id)).not.toContain(third.item_id);
    expect(await success(client, 'release', { item: third.item_id })).toMatchObject({ released: false });
  });

  it('should refuse with the daemon’s code when nothing is runnable', async () => {
    const client = await connect('rel');
    const refused = await refusal(client, 'claim', { project: 'rel' });
    expect(refused.body).toMatchObject({ code: 'no_runnable_items' });
    const missing = await refusal(client, 'get_item', { item: 'REL-999' });
    expect(missing.body).toMatchObject({ code: 'item_not_found' });
  });

  it('should never give two concurrent clients the same item', async () => {
    for (let i = 1; i <= 6; i++) await item('con', `task ${i}`, '--status', 'planned');
    const [a, b] = await Promise.all([connect('con', 'claude-code'), connect('con', 'codex')]);
    const results = await Promise.all(
      [a, b, a, b, a, b].map((c) => success<{ item_id: string; session_id: number }>(c, 'claim')),
    );
    const items = results.map((r) => r.item_id);
    expect(new Set(items).size).toBe(6);
    expect(new Set(results.map((r) => r.session_id)).size).toBe(2);
    const held = await claimsOf('con');
    expect(held.map((c) => c.item_id).sort()).toEqual([...items].sort());
  });

  it('should register the session with the client’s harness and release its claims when the client goes away', async () => {
    await item('rel', 'release me', '--status', 'planned');
    const client = await connect('rel', 'Gemini CLI');
    const claimed = await success<{ item_id: string; session_id: number }>(client, 'claim');
    const session = await http<SessionResponse>(daemon.url, 'GET', `/v1/sessions/${claimed.session_id}`, {
      token: daemon.token!,
    });
    expect(session.body).toMatchObject({ harness: 'gemini-cli', model: 'unknown', project: 'rel', ended_at: null });
    expect((await claimsOf('rel')).map((c) => c.item_id)).toEqual([claimed.item_id]);
    // the heartbeat (--heartbeat 1) renews the claim while the client is connected
    const [held] = session.body.claims;
    await eventually(async () => {
      const now = await http<SessionResponse>(daemon.url, 'GET', `/v1/sessions/${claimed.session_id}`, {
        token: daemon.token!,
      });
      const claim = now.body.claims.find((c) => c.item_id === claimed.item_id);
      return claim !== undefined && claim.renewed_at > held.renewed_at && claim.expires_at > held.expires_at;
    }, 'the heartbeat to renew the claim');

    await client.close();
    await eventually(async () => (await claimsOf('rel')).length === 0, 'the claim to be released');
    const ended = await http<SessionResponse>(daemon.url, 'GET', `/v1/sessions/${claimed.session_id}`, {
      token: daemon.token!,
    });
    expect(ended.body.ended_at).not.toBeNull();
  });

  it('should notify a subscribed client when a write from the CLI changes the frontier', async () => {
    const client = await connect('res');
    const updated: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updated.push(n.params.uri);
      return Promise.resolve();
    });
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toContain('svc://frontier/res');
    await client.subscribeResource({ uri: 'svc://frontier/res' });

    const created = await item('res', 'appears live', '--status', 'planned');
    await eventually(() => Promise.resolve(updated.includes('svc://frontier/res')), 'resources/updated');
    const read = await client.readResource({ uri: 'svc://frontier/res' });
    const frontier = JSON.parse((read.contents[0] as { text: string }).text) as { runnable: { item_id: string }[] };
    expect(frontier.runnable.map((i) => i.item_id)).toContain(created);
  });

  it('should answer frontier, add_note and amend_db_claim per their output schemas, and change the daemon’s state', async () => {
    const top = await item('frn', 'Top of the frontier', '--status', 'planned', '--priority', 'high');
    const waits = await item('frn', 'Waits on the top', '--status', 'planned');
    const client = await connect('frn');
    // listTools makes the SDK's client validate every structuredContent against the tool's output schema
    await client.listTools();
    await success(client, 'add_dependency', { dependent: waits, blocker: top });

    const runnable = await success<Json>(client, 'frontier');
    const api = (
      await http<{ runnable: { item_id: string }[]; wip_cap: number; wip_active: number }>(
        daemon.url,
        'GET',
        '/v1/charge/frontier?project=frn',
        { token: daemon.token! },
      )
    ).body;
    expect(runnable).toMatchObject({
      project: 'frn',
      bucket: 'runnable',
      wip_cap: api.wip_cap,
      wip_active: api.wip_active,
      counts: { runnable: 1, blocked: 1, frozen: 0, conduct_eligible: 1 },
      items: [expect.objectContaining({ item_id: top })],
    });
    expect(api.runnable.map((i) => i.item_id)).toEqual([top]);
    const blocked = await success<{ items: { item_id: string; blocked_by: string[] }[] }>(client, 'frontier', {
      bucket: 'blocked',
      limit: 1,
    });
    expect(blocked.items).toEqual([expect.objectContaining({ item_id: waits, blocked_by: [top] })]);

    const note = await success<{ id: number; agent: string; category: string; body: string; context: string }>(
      client,
      'add_note',
      { category: 'friction', body: 'the lexer spec is vague', context: waits },
    );
    expect(note).toMatchObject({ category: 'friction', body: 'the lexer spec is vague', context: waits });
    const { session_id } = await success<{ session_id: number }>(client, 'next_work');
    expect(note.agent).toBe(`claude-code/unknown#${session_id}`);
    const notes = (
      await http<{ entries: { id: number; category: string; body: string }[] }>(
        daemon.url,
        'GET',
        '/v1/records/ouroboros',
        { token: daemon.token! },
      )
    ).body.entries;
    expect(notes.find((e) => e.id === note.id)).toMatchObject({
      category: 'friction',
      body: 'the lexer spec is vague',
    });

    const dbClaim = async (ref: string) => ok<Json>('items', 'get', ref, 'db-claim');
    const none = await success(client, 'amend_db_claim', { item: top, none: true, reason: 'docs only' });
    expect(none).toMatchObject({
      item_id: top,
      reviewed: true,
      reviewed_reason: 'reviewed_negative',
      claim: { state: 'none', reviewed_negative: true, reason: 'docs only' },
    });
    expect(await dbClaim(top)).toEqual(none);
    const declared = await success(client, 'amend_db_claim', { item: waits, claim: DECLARED_CLAIM });
    expect(declared).toMatchObject({
      item_id: waits,
      reviewed: false,
      reviewed_reason: 'declared',
      malformed: false,
      claim: { state: 'declared', model_name: 'BacklogItem', compatibility_class: 'pre_merge_safe' },
    });
    expect(await dbClaim(waits)).toEqual(declared);
    const invalid = await refusal(client, 'amend_db_claim', {
      item: waits,
      claim: { state: 'declared', colour: 'blue' },
    });
    expect(invalid.body).toMatchObject({ code: 'db_claim_unknown_key' });
    expect(await dbClaim(waits)).toEqual(declared);
  });

  it('should refuse a claim past the WIP cap with the daemon’s code', async () => {
    const first = await item('cap', 'first start', '--status', 'planned', '--priority', 'high');
    const second = await item('cap', 'second start', '--status', 'planned');
    const client = await connect('cap');
    expect(await success(client, 'claim')).toMatchObject({ item_id: first, wip_slot: true });
    const refused = await refusal(client, 'claim', { item: second });
    expect(refused.text).toMatch(/^wip_cap_reached: the WIP cap of cap \(1\) is reached/);
    expect(refused.body).toMatchObject({
      code: 'wip_cap_reached',
      decision: { item_id: second, dispatched: false, reason: 'requested_item_unavailable' },
      error: { code: 'wip_cap_reached', wip_cap: 1 },
    });
    expect((await claimsOf('cap')).map((c) => c.item_id)).toEqual([first]);
  });

  // Issue 36: the WIP cap is team policy. A member's agent may ask a lower cap and read with any what-if cap; a claim
  // or schedule above the policy's is refused with the rule's code; an admin's agent may raise it.
  it('should refuse a member’s claim and next_work above the policy’s WIP cap, and let an admin raise it', async () => {
    await ok('projects', 'create', 'pol', '--prefix', 'POL', '--wip-cap', '1');
    const first = await item('pol', 'first start', '--status', 'planned', '--priority', 'high');
    const second = await item('pol', 'second start', '--status', 'planned');
    const mia = await createActor(db.url, { name: 'mia', org: 'default' });
    const member = await connect('pol', 'claude-code', { env: { SVC_TOKEN: mia.token } });
    expect(await success(member, 'claim', { item: first })).toMatchObject({ item_id: first, wip_slot: true });
    expect((await refusal(member, 'claim', { item: second })).body).toMatchObject({ code: 'wip_cap_reached' });
    for (const [tool, args] of [
      ['claim', { item: second, wip_cap: 1000 }],
      ['next_work', { wip_cap: 1000 }],
    ] as const) {
      const refused = await refusal(member, tool, args);
      expect(refused.text).toMatch(/^wip_cap_override_forbidden: the WIP cap of pol is 1 by its project policy/);
      expect(refused.body).toMatchObject({
        code: 'wip_cap_override_forbidden',
        project: 'pol',
        policy_wip_cap: 1,
        asked_wip_cap: 1000,
        organization: 'default',
      });
    }
    expect(await success(member, 'next_work', { wip_cap: 0 })).toMatchObject({ projects: [{ wip_cap: 0 }] });
    expect(await success(member, 'frontier', { wip_cap: 1000 })).toMatchObject({ project: 'pol', wip_cap: 1000 });
    expect(await success(member, 'explain', { item: second, wip_cap: 1000 })).toMatchObject({ wip_cap: 1000 });
    expect((await claimsOf('pol')).map((c) => c.item_id)).toEqual([first]);

    const admin = await connect('pol');
    expect(await success(admin, 'claim', { item: second, wip_cap: 1000 })).toMatchObject({ item_id: second });
    expect((await claimsOf('pol')).map((c) => c.item_id).sort()).toEqual([first, second].sort());
  });

  it('should register the session with --harness/--model or SVC_MODEL, in the lane the project routes it to', async () => {
    const sessionOf = async (client: Client) => {
      const { session_id } = await success<{ session_id: number }>(client, 'next_work');
      return (await http<SessionResponse>(daemon.url, 'GET', `/v1/sessions/${session_id}`, { token: daemon.token! }))
        .body;
    };
    const [flags, env] = await Promise.all([
      connect('lan', 'cursor', { args: ['--harness', 'aider', '--model', 'opus-4'] }),
      connect('lan', 'Codex', { env: { SVC_MODEL: 'gpt-5' } }),
    ]);
    expect(await sessionOf(flags)).toMatchObject({ harness: 'aider', model: 'opus-4', project: 'lan', lane: 'deep' });
    expect(await sessionOf(env)).toMatchObject({ harness: 'codex', model: 'gpt-5', project: 'lan', lane: 'fast' });
  });

  describe('over HTTP (POST/GET/DELETE /mcp on the daemon)', () => {
    it('should answer 401 without a token', async () => {
      const res = await http(daemon.url, 'POST', '/mcp', {
        body: { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} },
        headers: { accept: 'application/json, text/event-stream' },
      });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: expect.any(String) });
    });

    it('should count each connection’s live stream against its client’s address, not the daemon’s loopback', async () => {
      // This daemon allows one stream per address. Each connection's stream comes back over loopback; counted there,
      // the second connection's stream would be refused (429) and its client never told of the change.
      const addresses = ['198.51.100.7', '198.51.100.8'];
      const connections = await Promise.all(
        addresses.map(async (ip) => {
          const transport = new StreamableHTTPClientTransport(new URL('/mcp', daemon.url), {
            requestInit: { headers: { authorization: `Bearer ${daemon.token}`, 'x-forwarded-for': ip } },
          });
          const client = new Client({ name: 'cursor', version: '1.0.0' });
          const updated: string[] = [];
          client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
            updated.push(n.params.uri);
            return Promise.resolve();
          });
          await client.connect(transport);
          clients.push(client);
          await client.subscribeResource({ uri: 'svc://frontier/res' });
          return { transport, updated };
        }),
      );
      // A change made while a connection's stream is still being set up may reach it before it follows the
      // project; what this test is after is that both streams work at once, so the project keeps changing (every
      // ~2 s) until both are told.
      let changes = 0;
      let last = 0;
      // patient: a notice waits for the oldest writing transaction on the whole PostgreSQL server (the horizon,
      // docs/frontier-read-path.md), and in CI every test file's database shares one server
      await eventually(
        async () => {
          if (connections.every((c) => c.updated.includes('svc://frontier/res'))) return true;
          if (Date.now() - last > 2000) {
            last = Date.now();
            changes += 1;
            await item('res', `seen by both (${changes})`, '--status', 'planned');
          }
          return false;
        },
        'both clients to be told',
        100_000,
      );
      // ... and each one counts against its client's address: that client has no second stream
      const direct = await openStream(daemon.url, daemon.token!, { headers: { 'x-forwarded-for': addresses[0] } });
      await direct.close();
      expect(direct.status).toBe(429);
      // a value a client makes up for the daemon's own header is ignored (counted by the real address)
      const forged = await openStream(daemon.url, daemon.token!, {
        headers: { 'x-forwarded-for': addresses[1], 'x-svc-stream-origin': 'made-up' },
      });
      await forged.close();
      expect(forged.status).toBe(429);
      await Promise.all(connections.map((c) => c.transport.terminateSession()));
    }, 150_000);

    it('should serve the same tools with the caller’s bearer token, and hide a connection from another caller', async () => {
      await item('atl', 'over http', '--status', 'planned');
      const transport = new StreamableHTTPClientTransport(new URL('/mcp', daemon.url), {
        requestInit: { headers: { authorization: `Bearer ${daemon.token}` } },
      });
      const client = new Client({ name: 'cursor', version: '1.0.0' });
      await client.connect(transport);
      clients.push(client);
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(TOOLS);
      const next = await success<{ session_id: number; steps: { item_id: string }[] }>(client, 'next_work', {
        project: 'atl',
      });
      expect(next.steps.length).toBeGreaterThan(0);
      const session = await http<SessionResponse>(daemon.url, 'GET', `/v1/sessions/${next.session_id}`, {
        token: daemon.token!,
      });
      expect(session.body).toMatchObject({ harness: 'cursor', ended_at: null });

      // Another person presenting this connection's id gets what a missing connection gets.
      const otto = await createActor(db.url, { name: 'otto-mcp' });
      const stolen = await http(daemon.url, 'POST', '/mcp', {
        token: otto.token,
        body: { jsonrpc: '2.0', id: 9, method: 'tools/list', params: {} },
        headers: { accept: 'application/json, text/event-stream', 'mcp-session-id': transport.sessionId! },
      });
      expect(stolen.status).toBe(404);

      // DELETE ends the connection, and with it the executor session.
      await transport.terminateSession();
      await eventually(
        async () =>
          (await http<SessionResponse>(daemon.url, 'GET', `/v1/sessions/${next.session_id}`, { token: daemon.token! }))
            .body.ended_at !== null,
        'the session to end',
      );
    });

    // Raw MCP-over-HTTP requests, each from a client address of its own (X-Forwarded-For from a trusted proxy).
    const MCP_ACCEPT = 'application/json, text/event-stream';
    const INITIALIZE = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    };
    async function initialize(token: string, ip: string, headers: Record<string, string> = {}) {
      const res = await http(daemon.url, 'POST', '/mcp', {
        token,
        clientIp: ip,
        body: INITIALIZE,
        headers: { accept: MCP_ACCEPT, ...headers },
      });
      return { ...res, sessionId: res.headers.get('mcp-session-id') };
    }
    const end = (token: string, ip: string, sessionId: string) =>
      http(daemon.url, 'DELETE', '/mcp', { token, clientIp: ip, headers: { 'mcp-session-id': sessionId } });
    async function getStream(token: string, ip: string, sessionId: string) {
      const abort = new AbortController();
      const res = await fetch(`${daemon.url}/mcp`, {
        headers: {
          authorization: `Bearer ${token}`,
          'x-forwarded-for': ip,
          accept: 'text/event-stream',
          'mcp-session-id': sessionId,
        },
        signal: abort.signal,
      });
      const body = res.status === 200 ? null : ((await res.json()) as Json);
      return { status: res.status, retryAfter: res.headers.get('retry-after'), body, close: () => abort.abort() };
    }

    it('should cap MCP sessions per actor with 429 and Retry-After, and free the slot when one ends', async () => {
      const ada = await createActor(db.url, { name: 'ada-mcp-cap' });
      const opened = [await initialize(ada.token, '203.0.113.1'), await initialize(ada.token, '203.0.113.2')];
      expect(opened.map((o) => o.status)).toEqual([200, 200]);
      const third = await initialize(ada.token, '203.0.113.3');
      expect(third.status).toBe(429);
      expect(third.headers.get('retry-after')).toBe('30');
      expect(third.body).toMatchObject({ code: 'mcp_session_limit_reached', limit: 2 });
      expect(third.body.message).toMatch(/at most 2 MCP sessions .* for this actor/);
      expect(third.sessionId).toBeNull();
      // ending one (DELETE /mcp) frees its slot
      expect((await end(ada.token, '203.0.113.1', opened[0].sessionId!)).status).toBe(200);
      const again = await initialize(ada.token, '203.0.113.3');
      expect(again.status).toBe(200);
      await end(ada.token, '203.0.113.2', opened[1].sessionId!);
      await end(ada.token, '203.0.113.3', again.sessionId!);
    });

    it('should cap MCP sessions per client address across actors', async () => {
      const ip = '203.0.113.20';
      const bo = await createActor(db.url, { name: 'bo-mcp-cap' });
      const cy = await createActor(db.url, { name: 'cy-mcp-cap' });
      const opened = [await initialize(bo.token, ip), await initialize(bo.token, ip), await initialize(cy.token, ip)];
      expect(opened.map((o) => o.status)).toEqual([200, 200, 200]);
      const fourth = await initialize(cy.token, ip);
      expect(fourth.status).toBe(429);
      expect(fourth.headers.get('retry-after')).toBe('30');
      expect(fourth.body).toMatchObject({ code: 'mcp_session_limit_reached', limit: 3 });
      expect(fourth.body.message).toMatch(/for this client address/);
      // another address is served
      const elsewhere = await initialize(cy.token, '203.0.113.21');
      expect(elsewhere.status).toBe(200);
      await Promise.all(opened.map((o, i) => end(i < 2 ? bo.token : cy.token, ip, o.sessionId!)));
      await end(cy.token, '203.0.113.21', elsewhere.sessionId!);
    });

    it('should cap GET /mcp streams per client address with 429 and Retry-After', async () => {
      const ip = '203.0.113.30';
      const di = await createActor(db.url, { name: 'di-mcp-cap' });
      const [one, two] = [await initialize(di.token, ip), await initialize(di.token, ip)];
      const first = await getStream(di.token, ip, one.sessionId!);
      expect(first.status).toBe(200);
      const second = await getStream(di.token, ip, two.sessionId!);
      expect(second.status).toBe(429);
      expect(second.retryAfter).toBe('30');
      expect(second.body).toMatchObject({ code: 'mcp_stream_limit_reached', limit: 1 });
      // the first stream closes: its slot comes free
      first.close();
      const later = await eventually(async () => {
        const attempt = await getStream(di.token, ip, two.sessionId!);
        if (attempt.status === 200) return attempt;
        return null;
      }, 'the stream slot to come free');
      later.close();
      await end(di.token, ip, one.sessionId!);
      await end(di.token, ip, two.sessionId!);
    });

    it('should refuse a browser page of another origin with 403, and serve the server’s own origin', async () => {
      const eve = await createActor(db.url, { name: 'eve-mcp-origin' });
      const foreign = await initialize(eve.token, '203.0.113.40', { origin: 'http://attacker.example' });
      expect(foreign.status).toBe(403);
      expect(foreign.body).toMatchObject({ code: 'mcp_origin_refused' });
      expect(foreign.sessionId).toBeNull();
      // a rebinding page reaches the daemon under its own name, on the daemon's port
      const rebound = await initialize(eve.token, '203.0.113.40', {
        origin: `http://rebind.example:${new URL(daemon.url).port}`,
      });
      expect(rebound.status).toBe(403);
      const own = await initialize(eve.token, '203.0.113.40', { origin: daemon.url });
      expect(own.status).toBe(200);
      await end(eve.token, '203.0.113.40', own.sessionId!);
      // a foreign origin cannot use an open connection either
      const sneaky = await http(daemon.url, 'DELETE', '/mcp', {
        token: eve.token,
        clientIp: '203.0.113.40',
        headers: { origin: 'http://attacker.example', 'mcp-session-id': own.sessionId! },
      });
      expect(sneaky.status).toBe(403);
    });

    it('should refuse a tool argument the tool does not take, naming the ones it takes, and create nothing', async () => {
      const transport = new StreamableHTTPClientTransport(new URL('/mcp', daemon.url), {
        requestInit: { headers: { authorization: `Bearer ${daemon.token}`, 'x-forwarded-for': '203.0.113.50' } },
      });
      const client = new Client({ name: 'cursor', version: '1.0.0' });
      await client.connect(transport);
      clients.push(client);
      const result = await call(client, 'create_item', {
        project: 'atl',
        title: 'described wrongly',
        description: 'this is not an argument of create_item',
      });
      expect(result.isError).toBe(true);
      const text = (result.content as { text: string }[])[0].text;
      expect(text).toMatch(/unknown argument description/);
      expect(text).toMatch(/create_item takes only title, project, priority, status, workflow, body, spec/);
      const listed = await http<{ items: { title: string }[] }>(daemon.url, 'GET', '/v1/items?project=atl', {
        token: daemon.token!,
      });
      expect(listed.body.items.map((i) => i.title)).not.toContain('described wrongly');
      // a right call on the same connection works; then the connection ends, and its executor session with it
      const next = await success<{ session_id: number }>(client, 'next_work', { project: 'atl' });
      await transport.terminateSession();
      await eventually(
        async () =>
          (await http<SessionResponse>(daemon.url, 'GET', `/v1/sessions/${next.session_id}`, { token: daemon.token! }))
            .body.ended_at !== null,
        'the session to end',
      );
    });
  });
});
