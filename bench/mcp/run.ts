import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

import { EmbeddedServer } from '../../libs/database/src';
import { createProject, insertEdges, insertItems, withClient } from '../../libs/testing/src/backlog-factory';
import { SVC_BIN, startDaemonProcess } from '../../libs/testing/src/daemon-process';
import { generateBacklog } from '../frontier/generate';

// `npm run bench:mcp [-- --no-build]` (issue 29): the round trip an agent pays for next_work and claim through a real `svc mcp`
// process (SDK client over stdio → svc mcp → HTTP → daemon → PostgreSQL) on the frontier bench's 10k backlog
// (mulberry32 seed 42), beside the same daemon calls made directly over HTTP (what the MCP layer adds).
// Issue 37: the agent loop (next_work → claim → get_item → comment → set_status ×2 → next_work) for two agents at
// once at 10k and 100k items: calls, bytes of tool output (what the model reads) and daemon round trips per loop.

const REPO = resolve(__dirname, '..', '..');
const README = join(REPO, 'bench', 'README.md');
const RESULTS = join(REPO, 'bench', 'results', 'mcp.json');
const PROJECT = 'bench';
const ITEMS = 10_000;
const RUNS = 15;
// The agent loop (issue 37): two agents at once, each LOOPS times, on backlogs of these sizes (--sizes 10000,100000,
// --loops N; --loop-only skips the figures above and keeps the last ones in the results file).
const argValue = (name: string) => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
};
const LOOP_SIZES = (argValue('--sizes') ?? '10000,100000').split(',').map(Number);
const LOOPS = Number(argValue('--loops') ?? 4);
const AGENTS = 2;
// What the agent loop calls, in order (issue 37 deliver 8); comment is skipped, and said so, on a server without it.
const LOOP = ['next_work', 'claim', 'get_item', 'comment', 'set_status', 'set_status', 'next_work'] as const;
const LOOP_STAGES = ['implementing', 'reviewing-implementation'];

const note = (line: string) => process.stderr.write(`bench:mcp: ${line}\n`);
const round = (n: number) => Math.round(n * 10) / 10;
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return round(sorted[Math.floor(sorted.length / 2)]);
};
const p95 = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return round(sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)]);
};

async function timed<T>(work: () => Promise<T>): Promise<[number, T]> {
  const started = process.hrtime.bigint();
  const value = await work();
  return [Number(process.hrtime.bigint() - started) / 1e6, value];
}

type Daemon = Awaited<ReturnType<typeof startDaemonProcess>>;

// A fresh database with the generated backlog (frontier bench generator, seed 42) and a daemon on it.
async function loadedDaemon(server: EmbeddedServer, items: number): Promise<{ daemon: Daemon; edges: number }> {
  const database = `bench_mcp_${items}_${Date.now().toString(36)}`;
  await server.createDatabase(database);
  const url = server.connection.url(database);
  const daemon = await startDaemonProcess({
    env: { SVC_DATABASE_URL: url, SVC_LOG_LEVEL: 'warn' },
    timeoutMs: 120_000,
  });
  const backlog = generateBacklog(items, 42);
  await withClient(url, async (client) => {
    // A cap above the backlog's own WIP: every claim below takes a fresh item.
    await createProject(client, { id: PROJECT, prefix: 'BN', policy: { wip_cap: 5000 } });
    const created = await insertItems(client, PROJECT, backlog.items);
    await insertEdges(
      client,
      backlog.edges.map((e) => ({
        blocker: created[e.blocker].id,
        dependent: created[e.dependent].id,
        satisfaction: e.satisfaction,
      })),
    );
    await client.query('VACUUM ANALYZE items');
    await client.query('VACUUM ANALYZE item_dependencies');
  });
  note(`loaded ${items} items and ${backlog.edges.length} edges`);
  return { daemon, edges: backlog.edges.length };
}

// A real `svc mcp` process for one agent, its SDK client connected.
async function connectAgent(daemon: Daemon, name: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SVC_BIN, 'mcp'],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      SVC_URL: daemon.url,
      SVC_TOKEN: daemon.token ?? '',
      SVC_CONFIG_DIR: daemon.configDir,
      SVC_PROJECT: PROJECT,
    },
    stderr: 'ignore',
  });
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(transport);
  return client;
}

async function main(): Promise<void> {
  if (!process.argv.includes('--no-build')) {
    note('building dist (npm run build:fast)');
    execFileSync('npm', ['run', '-s', 'build:fast'], { cwd: REPO, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  const loopOnly = process.argv.includes('--loop-only');
  const loadBefore = round(loadavg()[0]);
  const home = mkdtempSync(join(tmpdir(), 'svc-bench-mcp-'));
  const server = new EmbeddedServer({ home, log: note });
  await server.start();
  try {
    const previous = existsSync(RESULTS) ? (JSON.parse(readFileSync(RESULTS, 'utf8')) as Record<string, unknown>) : {};
    let result: Record<string, unknown> = previous;
    if (!loopOnly) {
      const { daemon, edges } = await loadedDaemon(server, ITEMS);
      try {
        result = { ...(await roundTrips(daemon, edges)), load_average: [loadBefore, round(loadavg()[0])] };
        writeReadme(result as unknown as Parameters<typeof writeReadme>[0]);
      } finally {
        await daemon.stop();
      }
    }
    const loops: LoopResult[] = [];
    for (const items of LOOP_SIZES) {
      const { daemon } = await loadedDaemon(server, items);
      try {
        loops.push(await agentLoop(daemon, items));
      } finally {
        await daemon.stop();
      }
    }
    result = { ...result, agent_loop: loops };
    writeFileSync(RESULTS, `${JSON.stringify(result, null, 2)}\n`);
    writeLoopReadme(loops);
    process.stdout.write(`${JSON.stringify(loops.map(({ runs_ms: _r, ...rest }) => rest))}\n`);
  } finally {
    await server.stop();
    rmSync(home, { recursive: true, force: true });
  }
}

// Issue 29's figures: next_work and claim through svc mcp beside the same daemon calls over HTTP.
async function roundTrips(daemon: Daemon, edges: number): Promise<Record<string, unknown>> {
  const [connectMs, client] = await timed(() => connectAgent(daemon, 'bench'));
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
    return result.structuredContent as Record<string, unknown>;
  };
  const headers = { authorization: `Bearer ${daemon.token}` };
  const direct = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${daemon.url}${path}`, { ...init, headers: { ...headers, ...(init.headers ?? {}) } });
    const body = (await res.json()) as Record<string, unknown>;
    if (res.status >= 400) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
    return body;
  };
  // warm-up: the first schedule loads the project into the daemon's memo
  const first = await call('next_work');
  const sessionId = first.session_id as number;
  for (let i = 0; i < 3; i++) await call('next_work');

  const nextWork: number[] = [];
  for (let i = 0; i < RUNS; i++) nextWork.push((await timed(() => call('next_work')))[0]);
  const scheduleDirect: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    scheduleDirect.push(
      (await timed(() => direct(`/v1/charge/schedule?project=${PROJECT}&session_id=${sessionId}`)))[0],
    );
  }
  const claims: number[] = [];
  const claimed = new Set<string>();
  for (let i = 0; i < RUNS; i++) {
    const [ms, body] = await timed(() => call('claim'));
    claims.push(ms);
    claimed.add(String(body.item_id));
  }
  if (claimed.size !== RUNS) throw new Error(`claims repeated an item: ${[...claimed].join(', ')}`);
  // the direct form of one claim: read the schedule, dispatch its top step (what the claim tool does)
  const dispatchDirect: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const [ms] = await timed(async () => {
      const schedule = await direct(`/v1/charge/schedule?project=${PROJECT}&session_id=${sessionId}`);
      const step = (schedule.steps as { item_id: string; claimed_by_session: boolean }[]).find(
        (s) => !s.claimed_by_session,
      );
      await direct('/v1/charge/dispatch', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ session_id: sessionId, item_id: step!.item_id }),
      });
    });
    dispatchDirect.push(ms);
  }
  await client.close();

  return {
    items: ITEMS,
    edges,
    runs: RUNS,
    connect_ms: round(connectMs),
    next_work_ms: median(nextWork),
    next_work_p95_ms: p95(nextWork),
    schedule_http_ms: median(scheduleDirect),
    claim_ms: median(claims),
    claim_p95_ms: p95(claims),
    schedule_and_dispatch_http_ms: median(dispatchDirect),
    runs_ms: { next_work: nextWork.map(round), claim: claims.map(round) },
  };
}

const START = '<!-- mcp:start -->';
const END = '<!-- mcp:end -->';

function writeReadme(r: {
  items: number;
  connect_ms: number;
  next_work_ms: number;
  next_work_p95_ms: number;
  schedule_http_ms: number;
  claim_ms: number;
  claim_p95_ms: number;
  schedule_and_dispatch_http_ms: number;
  load_average: number[];
}): void {
  const text = readFileSync(README, 'utf8');
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  if (start < 0 || end < start) {
    note('bench/README.md has no mcp markers; table not written');
    return;
  }
  const table = [
    '| items | connect + initialize | next_work (p50 / p95) | same schedule over HTTP | claim (p50 / p95) | schedule + dispatch over HTTP | load average |',
    '|---:|---:|---:|---:|---:|---:|---:|',
    `| ${r.items} | ${r.connect_ms} ms | ${r.next_work_ms} / ${r.next_work_p95_ms} ms | ${r.schedule_http_ms} ms | ${r.claim_ms} / ${r.claim_p95_ms} ms | ${r.schedule_and_dispatch_http_ms} ms | ${r.load_average[0]} → ${r.load_average[1]} |`,
  ].join('\n');
  writeFileSync(README, `${text.slice(0, start + START.length)}\n${table}\n${text.slice(end)}`);
  execFileSync('npx', ['prettier', '--write', '--log-level', 'warn', README], { cwd: REPO, stdio: 'inherit' });
}

interface LoopResult {
  items: number;
  agents: number;
  loops: number;
  calls_per_loop: number;
  comment: 'called' | 'skipped: the server has no comment tool';
  // what the model reads: the text blocks of the seven answers (each ends with the result's compact JSON)
  text_bytes_per_loop: { median: number; max: number };
  // the whole tools/call result (text and structuredContent), as on the wire
  result_bytes_per_loop: { median: number; max: number };
  // text bytes per call, median over the loops
  text_bytes_by_call: Record<string, number>;
  daemon_requests_per_loop: number;
  loop_ms: { median: number; p95: number };
  call_ms: Record<string, { median: number; p95: number }>;
  refusals: Record<string, number>;
  load_average: number[];
  runs_ms: number[];
}

// The daemon's own count of HTTP requests it answered (its /metrics histogram), /metrics itself left out.
async function daemonRequests(daemon: Daemon): Promise<number> {
  const res = await fetch(`${daemon.url}/metrics`, { headers: { authorization: `Bearer ${daemon.token}` } });
  const text = await res.text();
  let total = 0;
  for (const line of text.split('\n')) {
    const m = /^svc_http_request_duration_seconds_count\{([^}]*)\} (\d+)/.exec(line);
    if (m && !m[1].includes('route="/metrics"')) total += Number(m[2]);
  }
  return total;
}

const bytes = (value: unknown) => Buffer.byteLength(typeof value === 'string' ? value : JSON.stringify(value));
const textOf = (result: CallToolResult) =>
  (result.content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('\n');

// Issue 37 deliver 8: two agents, each its own `svc mcp` process and executor session, run the loop at once.
async function agentLoop(daemon: Daemon, items: number): Promise<LoopResult> {
  const loadBefore = round(loadavg()[0]);
  const agents = await Promise.all(
    Array.from({ length: AGENTS }, (_, i) => connectAgent(daemon, `bench-agent-${i + 1}`)),
  );
  const tools = new Set((await agents[0].listTools()).tools.map((t) => t.name));
  const withComment = tools.has('comment');
  if (!withComment) note('the server has no comment tool (not merged yet): the loop skips it');
  // warm-up: each session registered, the project's graph in the daemon's memo
  for (const agent of agents) await agent.callTool({ name: 'next_work', arguments: {} });

  const textBytes: number[] = [];
  const resultBytes: number[] = [];
  const loopMs: number[] = [];
  const byCall: Record<string, number[]> = {};
  const callMs: Record<string, number[]> = {};
  const refusals: Record<string, number> = {};
  const requestsBefore = await daemonRequests(daemon);

  const run = async (agent: Client, index: number) => {
    for (let loop = 0; loop < LOOPS; loop++) {
      let text = 0;
      let whole = 0;
      let item: string | null = null;
      let stage = 0;
      const started = process.hrtime.bigint();
      for (const [position, name] of LOOP.entries()) {
        if (name === 'comment' && !withComment) continue;
        const args: Record<string, unknown> =
          name === 'get_item'
            ? { item }
            : name === 'comment'
              ? { item, body: `bench agent ${index + 1}, loop ${loop + 1}: picked this up; moving it to implementing.` }
              : name === 'set_status'
                ? { item, status: LOOP_STAGES[stage++] }
                : {};
        const [ms, result] = await timed(
          async () => (await agent.callTool({ name, arguments: args })) as CallToolResult,
        );
        const key = name === 'next_work' && position > 0 ? 'next_work (again)' : name;
        (callMs[key] ??= []).push(ms);
        const t = bytes(textOf(result));
        (byCall[key] ??= []).push(t);
        text += t;
        whole += bytes(result);
        if (result.isError) refusals[key] = (refusals[key] ?? 0) + 1;
        if (name === 'claim') {
          if (result.isError) throw new Error(`claim refused: ${textOf(result)}`);
          item = (result.structuredContent as { item_id: string }).item_id;
        }
      }
      loopMs.push(Number(process.hrtime.bigint() - started) / 1e6);
      textBytes.push(text);
      resultBytes.push(whole);
    }
  };
  await Promise.all(agents.map((agent, i) => run(agent, i)));
  const requests = (await daemonRequests(daemon)) - requestsBefore;
  await Promise.all(agents.map((a) => a.close()));

  const loops = AGENTS * LOOPS;
  return {
    items,
    agents: AGENTS,
    loops: LOOPS,
    calls_per_loop: withComment ? LOOP.length : LOOP.length - 1,
    comment: withComment ? 'called' : 'skipped: the server has no comment tool',
    text_bytes_per_loop: { median: median(textBytes), max: Math.max(...textBytes) },
    result_bytes_per_loop: { median: median(resultBytes), max: Math.max(...resultBytes) },
    text_bytes_by_call: Object.fromEntries(Object.entries(byCall).map(([k, v]) => [k, median(v)])),
    // the daemon's requests during the loops (the sessions' heartbeats included), per loop
    daemon_requests_per_loop: round(requests / loops),
    loop_ms: { median: median(loopMs), p95: p95(loopMs) },
    call_ms: Object.fromEntries(Object.entries(callMs).map(([k, v]) => [k, { median: median(v), p95: p95(v) }])),
    refusals,
    load_average: [loadBefore, round(loadavg()[0])],
    runs_ms: loopMs.map(round),
  };
}

const LOOP_START = '<!-- mcp-loop:start -->';
const LOOP_END = '<!-- mcp-loop:end -->';

function writeLoopReadme(results: LoopResult[]): void {
  const text = readFileSync(README, 'utf8');
  const start = text.indexOf(LOOP_START);
  const end = text.indexOf(LOOP_END);
  if (start < 0 || end < start) {
    note('bench/README.md has no mcp-loop markers; table not written');
    return;
  }
  const calls = ['next_work', 'claim', 'get_item', 'comment', 'set_status', 'next_work (again)'];
  const table = [
    '| items | agents × loops | calls / loop | text bytes / loop (p50 / max) | whole result bytes / loop | text bytes by call (p50) | daemon requests / loop | loop (p50 / p95) | next_work · claim · get_item · set_status (p50) | load average |',
    '|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|',
    ...results.map((r) => {
      const by = calls
        .filter((c) => r.text_bytes_by_call[c] !== undefined)
        .map((c) => `${c} ${r.text_bytes_by_call[c]}`)
        .join(' · ');
      const ms = (c: string) => r.call_ms[c]?.median ?? '-';
      return `| ${r.items} | ${r.agents} × ${r.loops} | ${r.calls_per_loop}${r.comment === 'called' ? '' : ' (no comment)'} | ${r.text_bytes_per_loop.median} / ${r.text_bytes_per_loop.max} | ${r.result_bytes_per_loop.median} | ${by} | ${r.daemon_requests_per_loop} | ${r.loop_ms.median} / ${r.loop_ms.p95} ms | ${ms('next_work')} · ${ms('claim')} · ${ms('get_item')} · ${ms('set_status')} ms | ${r.load_average[0]} → ${r.load_average[1]} |`;
    }),
  ].join('\n');
  writeFileSync(README, `${text.slice(0, start + LOOP_START.length)}\n${table}\n${text.slice(end)}`);
  execFileSync('npx', ['prettier', '--write', '--log-level', 'warn', README], { cwd: REPO, stdio: 'inherit' });
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
