import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join, resolve } from 'node:path';

import { Client } from 'pg';

import { LoadResult, RequestSpec, runLoad } from './load';

// bench:machine-auth — start and poll throughput/latency against real daemon processes on one PostgreSQL server,
// with every limit enforced. Distinct clients come through X-Forwarded-For from the declared proxy 127.0.0.1.
// Options (env): SVC_BENCH_NODE_ARGS (e.g. --cpu-prof for the daemons), SVC_BENCH_DATABASE_URL (admin URL), SVC_BENCH_REPLICAS (1), SVC_BENCH_SECONDS (10),
// SVC_BENCH_CONCURRENCY (64), SVC_BENCH_POOL (20 connections per daemon).

const ROOT = resolve(__dirname, '..', '..', '..');
// The daemon of the same build as this script (dist/ normally).
const DAEMON = join(__dirname, '..', '..', 'apps', 'daemon', 'src', 'main.js');
const ADMIN_URL = process.env.SVC_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REPLICAS = Number(process.env.SVC_BENCH_REPLICAS ?? 1);
const SECONDS = Number(process.env.SVC_BENCH_SECONDS ?? 10);
const CONCURRENCY = Number(process.env.SVC_BENCH_CONCURRENCY ?? 64);
const POOL = process.env.SVC_BENCH_POOL ?? '20';
const RESULTS = join(ROOT, 'bench', 'results', 'machine-auth.json');

async function admin(sql: string): Promise<void> {
  const client = new Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

function startDaemon(env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const nodeArgs = (process.env.SVC_BENCH_NODE_ARGS ?? '').split(' ').filter((a) => a.length > 0);
  const child = spawn(process.execPath, [...nodeArgs, DAEMON], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  return new Promise((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`daemon did not start:\n${err}`)), 30000);
    child.stderr!.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(err);
      if (match) {
        clearTimeout(timer);
        res({ url: match[1], child });
      }
    });
    child.once('exit', (code) => rej(new Error(`daemon exited ${code}:\n${err}`)));
  });
}

// 10.0.0.0/8 gives ~16M distinct client addresses, so no client meets its own budget by accident; consecutive
// clients fall in different /24s, so none meets its network's share of the code pool either.
const ip = (n: number) => `10.${n & 0xff}.${(n >> 8) & 0xff}.${(n >> 16) & 0xff}`;

async function main(): Promise<void> {
  const loadBefore = loadavg()[0];
  const name = `svc_bench_mauth_${Date.now().toString(36)}`;
  await admin(`CREATE DATABASE "${name}"`);
  const dbUrl = withDatabase(ADMIN_URL, name);
  const env = {
    SVC_DATABASE_URL: dbUrl,
    SVC_PORT: '0',
    SVC_HOST: '127.0.0.1',
    SVC_LOG_LEVEL: 'warn',
    SVC_SERVER_SECRET: randomBytes(32).toString('base64url'),
    SVC_API_TRUSTED_PROXIES: '127.0.0.1',
    SVC_CONFIG_DIR: join(ROOT, 'dist', 'bench-config'),
    SVC_DB_POOL_SIZE: POOL,
  };
  const daemons: { url: string; child: ChildProcess }[] = [];
  try {
    daemons.push(await startDaemon(env));
    for (let i = 1; i < REPLICAS; i += 1) daemons.push(await startDaemon({ ...env, SVC_BOOTSTRAP_ADMIN: 'false' }));
    const url = daemons[0].url;
    const phases: Record<string, LoadResult> = {};
    const jsonHeaders = (client: number) => ({ 'content-type': 'application/json', 'x-forwarded-for': ip(client) });

    // Start: one start per client address; codes past the 128 server-wide capacity are refused (403).
    const starts: { device_code: string }[] = [];
    const startSpec = (i: number): RequestSpec => ({
      method: 'POST',
      path: '/api/machine/authorizations',
      headers: jsonHeaders(1_000_000 + i),
      body: JSON.stringify({ machine_id: `bench-${i}`, machine_name: `bench machine ${i}` }),
    });
    const seedClient = new Pool128(url);
    for (let i = 0; i < 120; i += 1) starts.push(await seedClient.start(startSpec(i)));
    phases.start_within_capacity = await runLoad(url, (i) => startSpec(200 + i), { concurrency: 8, total: 8 });
    phases.start_at_capacity = await runLoad(daemons[daemons.length - 1].url, (i) => startSpec(10_000 + i), {
      concurrency: CONCURRENCY,
      seconds: Math.max(3, SECONDS / 2),
    });

    // Poll: pending codes polled from many client addresses (each well under 120 per minute): 202 at full speed.
    const pollSpec = (i: number): RequestSpec => ({
      method: 'POST',
      path: '/api/machine/authorizations/token',
      headers: jsonHeaders(2_000_000 + i),
      body: JSON.stringify({
        device_code: starts[i % starts.length].device_code,
        machine_id: `bench-${i % starts.length}`,
        machine_name: `bench machine ${i % starts.length}`,
      }),
    });
    const perDaemon = Math.max(1, Math.floor(CONCURRENCY / daemons.length));
    const pollRuns = await Promise.all(
      daemons.map((d, k) =>
        runLoad(d.url, (i) => pollSpec(i * daemons.length + k), { concurrency: perDaemon, seconds: SECONDS }),
      ),
    );
    phases.poll = mergeRuns(pollRuns);

    // Poll over budget: a few clients hammering; everything past 120 per client and minute is a 429.
    phases.poll_rate_limited = await runLoad(url, (i) => pollSpec(i % 16), { concurrency: CONCURRENCY, seconds: 3 });

    const report = {
      benchmark: 'machine-auth',
      date: new Date().toISOString(),
      machine: {
        cpus: cpus().length,
        cpu: cpus()[0]?.model,
        memory_gb: Math.round(totalmem() / 2 ** 30),
        node: process.version,
      },
      // Other work on the same machine skews the figures; the 1-minute load average shows how much.
      load_average: { before: loadBefore, after: loadavg()[0] },
      setup: {
        replicas: daemons.length,
        concurrency: CONCURRENCY,
        seconds: SECONDS,
        db_pool_per_daemon: Number(POOL),
        log_level: 'warn',
      },
      phases,
    };
    mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
    writeFileSync(RESULTS, `${JSON.stringify(report, null, 2)}\n`);
    process.stdout.write(`${JSON.stringify(report, null, 2)}\nwritten to ${RESULTS}\n`);
  } finally {
    for (const d of daemons) d.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 1000));
    await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  }
}

function mergeRuns(runs: LoadResult[]): LoadResult {
  const statuses: Record<string, number> = {};
  for (const run of runs) for (const [k, v] of Object.entries(run.statuses)) statuses[k] = (statuses[k] ?? 0) + v;
  const requests = runs.reduce((n, r) => n + r.requests, 0);
  const seconds = Math.max(...runs.map((r) => r.seconds));
  return {
    requests,
    seconds,
    rps: Math.round(requests / seconds),
    // Per-process percentiles combined conservatively (the worst of the processes).
    p50_ms: Math.max(...runs.map((r) => r.p50_ms)),
    p99_ms: Math.max(...runs.map((r) => r.p99_ms)),
    max_ms: Math.max(...runs.map((r) => r.max_ms)),
    statuses,
  };
}

class Pool128 {
  constructor(private readonly url: string) {}

  async start(spec: RequestSpec): Promise<{ device_code: string }> {
    const res = await fetch(`${this.url}${spec.path}`, { method: spec.method, headers: spec.headers, body: spec.body });
    if (res.status !== 201) throw new Error(`start answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as { device_code: string };
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
