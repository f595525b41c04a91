import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join, resolve } from 'node:path';

import { Client } from 'pg';
import { Pool, request } from 'undici';

import { CaddyProcess, startCaddy, UPSTREAM_HEADER } from '../../libs/testing/src/caddy';
import { DaemonProcess, startDaemonProcess } from '../../libs/testing/src/daemon-process';

// bench:topology — device-code polls per second through Caddy (HTTPS, docker/Caddyfile) in front of 1, then 3 daemon
// replicas on one PostgreSQL database, every limit enforced. A correctness-under-load figure on a shared 2-core
// machine (load generator, Caddy, daemons and PostgreSQL on the same cores), not a scaling claim: each phase also
// checks that every poll got its right answer and that the budget counters hold exactly the polls answered.
// Loopback only. Bounded: SVC_BENCH_SECONDS (8) and SVC_BENCH_MAX_POLLS (20000) per phase, SVC_BENCH_CONCURRENCY
// (32) requests in flight. Each simulated client is a real TCP peer of Caddy (its own loopback address, 127.10.x.y),
// so the daemons key budgets by the address Caddy reports, as in production.

const ROOT = resolve(__dirname, '..', '..');
const ADMIN_URL = process.env.SVC_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SECONDS = Number(process.env.SVC_BENCH_SECONDS ?? 8);
const MAX_POLLS = Number(process.env.SVC_BENCH_MAX_POLLS ?? 20_000);
const CONCURRENCY = Number(process.env.SVC_BENCH_CONCURRENCY ?? 32);
// 250 clients × 120 polls a minute: more than MAX_POLLS, so no client meets its budget by accident
const CLIENTS = 250;
const CODES = 100;
const RESULTS = join(ROOT, 'bench', 'results', 'topology.json');
const README = join(ROOT, 'bench', 'README.md');

async function query<T>(url: string, text: string, params: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, params)).rows as T[];
  } finally {
    await client.end();
  }
}

interface Phase {
  replicas: number;
  polls: number;
  seconds: number;
  polls_per_second: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  statuses: Record<string, number>;
  // how many polls each replica answered (by the upstream header Caddy adds)
  per_replica: number[];
  // the budget counters (rate_counters, scope machine_auth_poll) of this phase's clients, summed: every poll (the
  // timed ones and one warm-up poll per client) counted once
  budget_hits: number;
  budget_exact: boolean;
  // an approved code polled concurrently by 24 clients through the proxy: one 200, the rest 410
  exactly_once?: { delivered: number; consumed: number; other: number };
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const round = (n: number) => Math.round(n * 100) / 100;

async function pollPhase(
  caddy: CaddyProcess,
  dbUrl: string,
  replicas: DaemonProcess[],
  codes: { device_code: string; machine_id: string }[],
  net: number,
): Promise<Phase> {
  const address = (k: number) => `127.10.${net}.${(k % CLIENTS) + 1}`;
  const pools = Array.from(
    { length: CLIENTS },
    (_, k) =>
      new Pool(caddy.url, { connections: 1, localAddress: address(k), connect: { ca: caddy.rootCa }, pipelining: 1 }),
  );
  const poll = (k: number, i: number) => {
    const code = codes[i % codes.length];
    return pools[k].request({
      method: 'POST',
      path: '/api/machine/authorizations/token',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ device_code: code.device_code, machine_id: code.machine_id, machine_name: 'bench' }),
    });
  };
  // Warm-up, not timed: every client's TLS connection opened and one poll answered (on each replica, the first
  // requests are slower while V8 compiles the path). These polls count in the budgets too.
  let warmUp = 0;
  for (let k = 0; k < CLIENTS; k += 16) {
    await Promise.all(
      pools.slice(k, k + 16).map(async (_, j) => {
        const res = await poll(k + j, k + j);
        await res.body.dump();
        if (res.statusCode !== 202) throw new Error(`warm-up poll answered ${res.statusCode}`);
        warmUp += 1;
      }),
    );
  }
  const upstreams = replicas.map((d) => `127.0.0.1:${d.port}`);
  const perReplica = upstreams.map(() => 0);
  const statuses: Record<string, number> = {};
  const latencies: number[] = [];
  const started = process.hrtime.bigint();
  const deadline = started + BigInt(Math.round(SECONDS * 1e9));
  let issued = 0;
  const worker = async () => {
    while (issued < MAX_POLLS && process.hrtime.bigint() < deadline) {
      const i = issued;
      issued += 1;
      const t0 = process.hrtime.bigint();
      try {
        const res = await poll(i % CLIENTS, i);
        await res.body.dump();
        statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
        const k = upstreams.indexOf(String(res.headers[UPSTREAM_HEADER]));
        if (k >= 0) perReplica[k] += 1;
      } catch {
        statuses.error = (statuses.error ?? 0) + 1;
      }
      latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  await Promise.all(pools.map((p) => p.close()));
  latencies.sort((a, b) => a - b);
  const [{ hits }] = await query<{ hits: string | null }>(
    dbUrl,
    `SELECT sum(hits)::text AS hits FROM rate_counters WHERE scope = 'machine_auth_poll' AND subject LIKE $1`,
    [`127.10.${net}.%`],
  );
  const answered = Object.entries(statuses)
    .filter(([k]) => k !== 'error')
    .reduce((n, [, v]) => n + v, 0);
  return {
    replicas: replicas.length,
    polls: latencies.length,
    seconds: round(seconds),
    polls_per_second: Math.round(latencies.length / seconds),
    p50_ms: round(percentile(latencies, 50)),
    p99_ms: round(percentile(latencies, 99)),
    max_ms: round(latencies[latencies.length - 1] ?? 0),
    statuses,
    per_replica: perReplica,
    budget_hits: Number(hits ?? 0),
    budget_exact: Number(hits ?? 0) === answered + warmUp,
  };
}

// One approved code, 24 concurrent polls from 24 clients through the proxy (so over every replica): one delivery.
async function exactlyOnce(
  caddy: CaddyProcess,
  admin: DaemonProcess,
  net: number,
): Promise<{ delivered: number; consumed: number; other: number }> {
  const machine = { machine_id: `bench-once-${net}`, machine_name: 'bench' };
  const start = await fetch(`${admin.url}/api/machine/authorizations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.99.${net}.1` },
    body: JSON.stringify(machine),
  });
  const started = (await start.json()) as { device_code: string; user_code: string };
  const approve = await fetch(`${admin.url}/v1/machine-authorizations/resolve`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${admin.token}` },
    body: JSON.stringify({ code: started.user_code, action: 'approve' }),
  });
  if (approve.status !== 200) throw new Error(`approval answered ${approve.status}`);
  const statuses = await Promise.all(
    Array.from({ length: 24 }, async (_, k) => {
      const dispatcher = caddy.agent(`127.11.${net}.${k + 1}`);
      const res = await request(`${caddy.url}/api/machine/authorizations/token`, {
        method: 'POST',
        dispatcher,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ device_code: started.device_code, ...machine }),
      });
      await res.body.dump();
      return res.statusCode;
    }),
  );
  return {
    delivered: statuses.filter((s) => s === 200).length,
    consumed: statuses.filter((s) => s === 410).length,
    other: statuses.filter((s) => s !== 200 && s !== 410).length,
  };
}

function writeTable(report: { phases: Phase[]; load_average: { before: number; after: number } }): void {
  const rows = report.phases.map(
    (p) =>
      `| ${p.replicas} | ${p.polls_per_second.toLocaleString('en-US')} | ${p.p50_ms} | ${p.p99_ms} | ${p.polls} in ${p.seconds} s | ${Object.entries(
        p.statuses,
      )
        .map(([k, v]) => `${v} × ${k}`)
        .join(', ')} | ${p.per_replica.join(' / ')} | ${p.budget_exact ? '✓' : '✗'} (${p.budget_hits}) | ${
        p.exactly_once ? `${p.exactly_once.delivered} × 200, ${p.exactly_once.consumed} × 410` : '–'
      } |`,
  );
  const table = [
    '| replicas | polls/s | p50 ms | p99 ms | polls | answers | per replica | budget counters = polls | approved code, 24 concurrent polls |',
    '| -------: | ------: | -----: | -----: | ----- | ------- | ----------- | ----------------------- | ---------------------------------- |',
    ...rows,
  ].join('\n');
  const readme = readFileSync(README, 'utf8');
  const start = '<!-- topology-table:start (written by npm run bench:topology) -->';
  const end = '<!-- topology-table:end -->';
  const a = readme.indexOf(start);
  const b = readme.indexOf(end);
  if (a < 0 || b < 0) return;
  writeFileSync(README, `${readme.slice(0, a + start.length)}\n\n${table}\n\n${readme.slice(b)}`);
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0];
  const name = `svc_bench_topology_${Date.now().toString(36)}`;
  await query(ADMIN_URL, `CREATE DATABASE "${name}"`);
  const parsed = new URL(ADMIN_URL);
  parsed.pathname = `/${name}`;
  const dbUrl = parsed.toString();
  const env = {
    SVC_DATABASE_URL: dbUrl,
    SVC_SERVER_SECRET: randomBytes(32).toString('base64url'),
    SVC_API_TRUSTED_PROXIES: '127.0.0.1',
  };
  const replicas: DaemonProcess[] = [];
  const proxies: CaddyProcess[] = [];
  try {
    replicas.push(await startDaemonProcess({ env }));
    const admin = replicas[0];
    // Pending codes to poll, started straight at the first replica from distinct declared-proxy clients, each in a
    // network of its own (one /24 holds at most 32 open codes).
    const codes: { device_code: string; machine_id: string }[] = [];
    for (let i = 0; i < CODES; i += 1) {
      const machine_id = `bench-${i}`;
      const res = await fetch(`${admin.url}/api/machine/authorizations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.98.${i}.1` },
        body: JSON.stringify({ machine_id, machine_name: 'bench' }),
      });
      if (res.status !== 201) throw new Error(`start answered ${res.status}: ${await res.text()}`);
      codes.push({ device_code: ((await res.json()) as { device_code: string }).device_code, machine_id });
    }
    const phases: Phase[] = [];

    const one = await startCaddy({ upstreams: [`127.0.0.1:${admin.port}`], upstreamHeader: true });
    proxies.push(one);
    phases.push(await pollPhase(one, dbUrl, replicas, codes, 1));
    phases[0].exactly_once = await exactlyOnce(one, admin, 1);
    await one.stop();

    replicas.push(
      ...(await Promise.all([0, 1].map(() => startDaemonProcess({ env: { ...env, SVC_BOOTSTRAP_ADMIN: 'false' } })))),
    );
    const three = await startCaddy({ upstreams: replicas.map((d) => `127.0.0.1:${d.port}`), upstreamHeader: true });
    proxies.push(three);
    phases.push(await pollPhase(three, dbUrl, replicas, codes, 3));
    phases[1].exactly_once = await exactlyOnce(three, admin, 3);

    const report = {
      benchmark: 'topology',
      date: new Date().toISOString(),
      machine: {
        cpus: cpus().length,
        cpu: cpus()[0]?.model,
        memory_gb: Math.round(totalmem() / 2 ** 30),
        node: process.version,
      },
      load_average: { before: loadBefore, after: loadavg()[0] },
      setup: {
        proxy: 'caddy (docker/Caddyfile), HTTPS with its internal CA, round robin, /readyz health checks',
        seconds_max: SECONDS,
        polls_max: MAX_POLLS,
        concurrency: CONCURRENCY,
        clients: CLIENTS,
        pending_codes: CODES,
      },
      phases,
    };
    mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
    writeFileSync(RESULTS, `${JSON.stringify(report, null, 2)}\n`);
    writeTable(report);
    process.stdout.write(`${JSON.stringify(report, null, 2)}\nwritten to ${RESULTS}\n`);
    const wrong = phases.filter(
      (p) =>
        !p.budget_exact ||
        Object.keys(p.statuses).some((s) => s !== '202') ||
        p.exactly_once?.delivered !== 1 ||
        p.exactly_once.other !== 0,
    );
    if (wrong.length > 0) throw new Error(`wrong answers under load: ${JSON.stringify(wrong)}`);
  } finally {
    await Promise.all(proxies.map((p) => p.stop().catch(() => undefined)));
    await Promise.all(replicas.map((d) => d.stop()));
    await query(ADMIN_URL, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
