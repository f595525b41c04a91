import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

const REPO = resolve(__dirname, '..', '..');
const README = join(REPO, 'bench', 'README.md');
const RESULTS = join(REPO, 'bench', 'results', 'mcp.json');
const PROJECT = 'bench';
const ITEMS = 10_000;
const RUNS = 15;

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

async function main(): Promise<void> {
  if (!process.argv.includes('--no-build')) {
    note('building dist (npm run build:fast)');
    execFileSync('npm', ['run', '-s', 'build:fast'], { cwd: REPO, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  const loadBefore = round(loadavg()[0]);
  const home = mkdtempSync(join(tmpdir(), 'svc-bench-mcp-'));
  const server = new EmbeddedServer({ home, log: note });
  await server.start();
  try {
    const database = `bench_mcp_${Date.now().toString(36)}`;
    await server.createDatabase(database);
    const url = server.connection.url(database);
    const daemon = await startDaemonProcess({
      env: { SVC_DATABASE_URL: url, SVC_LOG_LEVEL: 'warn' },
      timeoutMs: 120_000,
    });
    try {
      const backlog = generateBacklog(ITEMS, 42);
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
      note(`loaded ${ITEMS} items and ${backlog.edges.length} edges`);

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
      const client = new Client({ name: 'bench', version: '1.0.0' });
      const [connectMs] = await timed(() => client.connect(transport));
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

      const result = {
        items: ITEMS,
        edges: backlog.edges.length,
        runs: RUNS,
        connect_ms: round(connectMs),
        next_work_ms: median(nextWork),
        next_work_p95_ms: p95(nextWork),
        schedule_http_ms: median(scheduleDirect),
        claim_ms: median(claims),
        claim_p95_ms: p95(claims),
        schedule_and_dispatch_http_ms: median(dispatchDirect),
        load_average: [loadBefore, round(loadavg()[0])],
        runs_ms: { next_work: nextWork.map(round), claim: claims.map(round) },
      };
      writeFileSync(RESULTS, `${JSON.stringify(result, null, 2)}\n`);
      writeReadme(result);
      process.stdout.write(`${JSON.stringify(result)}\n`);
    } finally {
      await daemon.stop();
    }
  } finally {
    await server.stop();
    rmSync(home, { recursive: true, force: true });
  }
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

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
