// npm run bench:faults — the daemon under faults, with figures (issue 10): database outages under load (a stop and a
// crash of PostgreSQL), the embedded server killed under a running daemon, and a long fuzz run of every route.
// Writes bench/results/faults.json. Environment: SVC_BENCH_OUTAGE_MS (default 3000), SVC_BENCH_FUZZ_RUNS (20000),
// SVC_BENCH_FUZZ_TIME_MS (180000), SVC_BENCH_FUZZ_SEED.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from 'pg';

import { AppModule } from '../../apps/daemon/src/app.module';
import { parseConfig } from '../../apps/daemon/src/config/config';
import { createProject, insertItems } from '../../libs/testing/src/backlog-factory';
import { startDaemonProcess } from '../../libs/testing/src/daemon-process';
import { OutageFigures, runOutage, startPrivateCluster } from '../../libs/testing/src/faults';
import { waitFor } from '../../libs/testing/src/wait-for';
import { discoverRoutes, Fuzzer, fuzzRoutes } from '../../libs/testing/src/fuzz';

const ROOT = resolve(__dirname, '..', '..');
const OUTAGE_MS = Number(process.env.SVC_BENCH_OUTAGE_MS ?? 3000);
const FUZZ_RUNS = Number(process.env.SVC_BENCH_FUZZ_RUNS ?? 20000);
const FUZZ_TIME_MS = Number(process.env.SVC_BENCH_FUZZ_TIME_MS ?? 180000);
const SECRET = 'bench-faults-0123456789abcdef0123456789abcdef';

const log = (message: string) => process.stderr.write(`bench:faults: ${message}\n`);

async function outages(): Promise<OutageFigures[]> {
  const cluster = await startPrivateCluster('bench-outage');
  const daemon = await startDaemonProcess({
    env: { SVC_DATABASE_URL: cluster.url, SVC_SERVER_SECRET: SECRET, SVC_API_TRUSTED_PROXIES: '127.0.0.1,::1' },
  });
  try {
    const pg = new Client({ connectionString: cluster.url });
    await pg.connect();
    await createProject(pg, { id: 'shop', prefix: 'SHOP' });
    await insertItems(pg, 'shop', [{ title: 'one' }, { title: 'two', status: 'implementing' }]);
    await pg.end();
    const machine = { machine_id: 'bench-outage', machine_name: 'bench outage' };
    const started = await fetch(`${daemon.url}/api/machine/authorizations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.18.250.1' },
      body: JSON.stringify(machine),
    });
    const { device_code } = (await started.json()) as { device_code: string };
    const target = { url: daemon.url, token: daemon.token!, project: 'shop', poll: { device_code, ...machine } };
    const figures: OutageFigures[] = [];
    for (const outage of ['stop', 'crash'] as const) {
      log(`database ${outage} under load (${OUTAGE_MS} ms)`);
      const { figures: f } = await runOutage(cluster, target, cluster.url, {
        outage,
        outageMs: OUTAGE_MS,
        warmupMs: 2000,
      });
      figures.push(f);
      log(`  ${JSON.stringify({ ...f, examples: f.examples.length })}`);
    }
    return figures;
  } finally {
    await daemon.stop();
    await cluster.stop();
  }
}

// The daemon on its embedded server; the server is SIGKILLed; how long until /readyz answers 200 again.
async function embeddedRestart(): Promise<{ restart_ms: number; ready_again_ms: number; logged: boolean }> {
  const home = mkdtempSync(join(tmpdir(), 'svc-bench-embedded-'));
  const daemon = await startDaemonProcess({ env: { SVC_HOME: home } });
  try {
    const pid = Number(readFileSync(join(home, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
    const killed = Date.now();
    process.kill(pid, 'SIGKILL');
    await waitFor(
      async () => {
        const res = await fetch(`${daemon.url}/readyz`).catch(() => null);
        // Until the watchdog notices, the daemon may still answer 200 from a pool that has not tried the database.
        return res?.status === 200 && /restarted in/.test(daemon.stderr());
      },
      { what: 'readiness after the embedded server was killed' },
    );
    const readyAgain = Date.now() - killed;
    const match = /embedded database server restarted in (\d+) ms/.exec(daemon.stderr());
    return { restart_ms: match ? Number(match[1]) : -1, ready_again_ms: readyAgain, logged: match !== null };
  } finally {
    await daemon.stop();
  }
}

async function fuzz() {
  const cluster = await startPrivateCluster('bench-fuzz');
  const daemon = await startDaemonProcess({
    env: { SVC_DATABASE_URL: cluster.url, SVC_API_TRUSTED_PROXIES: '127.0.0.1,::1' },
  });
  const pg = new Client({ connectionString: cluster.url });
  await pg.connect();
  try {
    await createProject(pg, { id: 'shop', prefix: 'SHOP' });
    await insertItems(pg, 'shop', [{ title: 'one' }, { title: 'two', status: 'implementing' }, { workflow: 'epic' }]);
    const routes = discoverRoutes(AppModule.forRoot(parseConfig({ SVC_HOME: '/nonexistent' }), 'postgres://unused'));
    const fuzzer = new Fuzzer({ url: daemon.url, token: daemon.token!, databaseUrl: cluster.url }, routes);
    await fuzzer.open();
    const seed = process.env.SVC_BENCH_FUZZ_SEED ? Number(process.env.SVC_BENCH_FUZZ_SEED) : 20261123;
    log(`fuzzing ${routes.length} routes: up to ${FUZZ_RUNS} cases or ${FUZZ_TIME_MS} ms (seed ${seed})`);
    const started = Date.now();
    const run = await fuzzRoutes(fuzzer, { numRuns: FUZZ_RUNS, timeLimitMs: FUZZ_TIME_MS, seed, concurrency: 4 });
    await fuzzer.close();
    const { failures, ...stats } = fuzzer.stats;
    return {
      ...run,
      ...stats,
      wall_ms: Date.now() - started,
      cases_per_s: Math.round((stats.cases / ((Date.now() - started) / 1000)) * 10) / 10,
      failures: failures.length,
      failure_examples: failures.slice(0, 10),
    };
  } finally {
    await pg.end();
    await daemon.stop();
    await cluster.stop();
  }
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0];
  const outageFigures = await outages();
  log('embedded server killed under a running daemon');
  const embedded = await embeddedRestart();
  log(`  ${JSON.stringify(embedded)}`);
  const fuzzFigures = await fuzz();
  log(`  ${JSON.stringify({ ...fuzzFigures, failure_examples: fuzzFigures.failure_examples.length })}`);
  const result = {
    generated_at: new Date().toISOString(),
    machine: {
      cpus: cpus().length,
      model: cpus()[0]?.model,
      node: process.version,
      load_before: loadBefore,
      load_after: loadavg()[0],
    },
    outages: outageFigures,
    embedded_server_killed: embedded,
    fuzz: fuzzFigures,
  };
  const file = join(ROOT, 'bench', 'results', 'faults.json');
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  log(`figures written to ${file}`);
  const broken =
    outageFigures.some((f) => f.status_500 > 0 || f.unexpected_during_outage > 0 || f.writes_lost > 0) ||
    fuzzFigures.failures > 0 ||
    !embedded.logged;
  process.exit(broken ? 1 : 0);
}

main().catch((err: unknown) => {
  log(`failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exit(1);
});
