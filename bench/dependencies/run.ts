import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import { EmbeddedServer } from '../../libs/database/src';
import { createProject, insertEdges, insertItems, withClient } from '../../libs/testing/src/backlog-factory';
import { SvcApi, SvcClient, SvcHttpError } from '../../libs/client/src';
import { startDaemonProcess } from '../../libs/testing/src/daemon-process';
import { generateBacklog } from '../frontier/generate';
import { cpuMeter, round } from '../live/proc';

// bench/dependencies (issue 38, "a dependency in milliseconds"): the built daemon on the frontier bench's generated
// backlog (seed 42), closed-loop writers over HTTP (SvcApi, as the CLI sends them) doing mixed writes: add a
// dependency (between two items of the top of the frontier, in either direction, so some close a cycle and are
// refused), remove one it added, priority, block/unblock, a new item; one event stream following the project's
// frontier notices (the daemon computes the frontier after every write, as for a TUI). Prints the latency of each
// kind of write (p50/p99, refusals included: a refused cycle costs the check too) and the throughput.
// npm run bench:dependencies -- [--items 100000] [--writers 8] [--seconds 20] [--no-follower] [--home <dir>]

const PROJECT = 'bench';
const POOL = 400;
// the bench database's administrator (a throwaway database on 127.0.0.1)
const TOKEN = `svc_${'b3nch_D3ps-'.repeat(3)}`;
const note = (line: string) => process.stderr.write(`[bench:dependencies] ${line}\n`);
const pct = (xs: number[], p: number) =>
  xs.length === 0 ? NaN : [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)];

type Op = 'dependency-add' | 'dependency-remove' | 'priority' | 'block' | 'unblock' | 'create';
const CYCLE: Op[] = ['dependency-add', 'priority', 'dependency-remove', 'block', 'dependency-add', 'create', 'unblock'];

function arg(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
}

// A stream following the project's frontier notices; counts them.
function follow(url: string, token: string): { stop: () => void; notices: () => number } {
  const abort = new AbortController();
  let notices = 0;
  void (async () => {
    const response = await fetch(`${url}/v1/events/stream?frontier=${PROJECT}`, {
      headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
      signal: abort.signal,
    });
    const decoder = new TextDecoder();
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      notices += (decoder.decode(chunk, { stream: true }).match(/^event: frontier$/gm) ?? []).length;
    }
  })().catch(() => undefined);
  return { stop: () => abort.abort(), notices: () => notices };
}

async function main(): Promise<void> {
  const n = arg('items', 100_000);
  const writers = arg('writers', 8);
  const seconds = arg('seconds', 20);
  const follower = !process.argv.includes('--no-follower');
  // --home <dir>: the embedded server's data directory, kept between runs with the loaded backlog as a template
  // database (loading 100k items takes minutes on a busy machine; each run starts from a copy of the same backlog)
  const homeAt = process.argv.indexOf('--home');
  const home = homeAt >= 0 ? process.argv[homeAt + 1] : mkdtempSync(join(tmpdir(), 'svc-bench-deps-db-'));
  const server = new EmbeddedServer({ home, log: note });
  await server.start();
  const template = `bench_deps_template_${n}`;
  const admin = server.connection.url('postgres');
  try {
    const loaded = await withClient(admin, async (client) => {
      const rows = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [template]);
      return rows.rowCount === 1;
    });
    if (!loaded) await load(server, template, n);
    const database = `bench_deps_${n}_${Date.now().toString(36)}`;
    await withClient(admin, (client) => client.query(`CREATE DATABASE ${database} TEMPLATE ${template}`));
    const url = server.connection.url(database);
    const daemon = await startDaemonProcess({
      env: { SVC_DATABASE_URL: url, SVC_LOG_LEVEL: 'warn' },
      nodeArgs: (process.env.SVC_BENCH_DAEMON_NODE_ARGS ?? '').split(' ').filter(Boolean),
      timeoutMs: 120_000,
    });
    try {
      const api = new SvcApi(new SvcClient(daemon.url, TOKEN));
      const read = await api.frontier({ project: PROJECT });
      if (read.notModified) throw new Error('unexpected 304');
      const pool = [...read.body.runnable, ...read.body.blocked].slice(0, POOL).map((i) => i.item_id);
      // one add and its removal before the clock starts: the daemon's first add in an organization loads its graph
      const warm = await api.addDependency(pool[1], { blocker: pool[0], gate_point: 'activation' }).catch(() => null);
      if (warm?.created) await api.removeDependency(pool[1], pool[0], { gate_point: 'activation' });
      const stream = follower ? follow(daemon.url, TOKEN) : null;
      const latency: Record<string, number[]> = {};
      const counts: Record<string, { done: number; refused: number; errors: number }> = {};
      const refusals: Record<string, number> = {};
      const errorSamples: string[] = [];
      let seed = 1;
      const random = () => {
        seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
        return seed / 2 ** 31;
      };
      const any = () => pool[Math.floor(random() * pool.length)];
      const cpu = cpuMeter(daemon.child.pid!);
      const loadBefore = round(loadavg()[0]);
      const started = performance.now();
      const end = started + seconds * 1000;
      await Promise.all(
        Array.from({ length: writers }, async (_, w) => {
          const added: [string, string][] = [];
          const blocked: string[] = [];
          let k = w;
          while (performance.now() < end) {
            const op = CYCLE[k++ % CYCLE.length];
            const t0 = performance.now();
            try {
              switch (op) {
                case 'dependency-add': {
                  const [dependent, blocker] = [any(), any()];
                  if (dependent === blocker) continue;
                  const r = await api.addDependency(dependent, { blocker, gate_point: 'activation' });
                  if (r.created) added.push([dependent, blocker]);
                  break;
                }
                case 'dependency-remove': {
                  const edge = added.shift();
                  if (!edge) continue;
                  await api.removeDependency(edge[0], edge[1], { gate_point: 'activation' });
                  break;
                }
                case 'priority':
                  await api.setItemField(any(), 'priority', { value: random() < 0.5 ? 'high' : 'low' });
                  break;
                case 'block': {
                  const ref = pool[(w + k * writers) % pool.length];
                  await api.blockItem(ref, { reason: 'bench' });
                  blocked.push(ref);
                  break;
                }
                case 'unblock': {
                  const ref = blocked.shift();
                  if (!ref) continue;
                  await api.itemAction(ref, 'unblock');
                  break;
                }
                case 'create':
                  await api.createItem({ project: PROJECT, title: `bench ${w}.${k}`, priority: 'medium' });
                  break;
              }
              (counts[op] ??= { done: 0, refused: 0, errors: 0 }).done++;
            } catch (err) {
              const refused = err instanceof SvcHttpError && err.status < 500;
              (counts[op] ??= { done: 0, refused: 0, errors: 0 })[refused ? 'refused' : 'errors']++;
              if (refused) refusals[`${op}:${err.body.code}`] = (refusals[`${op}:${err.body.code}`] ?? 0) + 1;
              else if (errorSamples.length < 5) errorSamples.push(`${op}: ${(err as Error).message}`.slice(0, 300));
            }
            (latency[op] ??= []).push(performance.now() - t0);
          }
        }),
      );
      const elapsed = (performance.now() - started) / 1000;
      const daemonCpu = cpu();
      stream?.stop();
      const all = Object.values(latency).flat();
      const byKind = Object.fromEntries(
        Object.entries(latency).map(([op, xs]) => [
          op,
          { n: xs.length, p50_ms: round(pct(xs, 50)), p99_ms: round(pct(xs, 99)), ...counts[op] },
        ]),
      );
      const result = {
        items: n,
        writers,
        seconds,
        follower,
        writes_per_s: round(all.length / elapsed),
        p50_ms: round(pct(all, 50)),
        p99_ms: round(pct(all, 99)),
        daemon_cpu_pct: round(daemonCpu),
        frontier_notices: stream?.notices() ?? 0,
        load_average: [loadBefore, round(loadavg()[0])],
        by_kind: byKind,
        refusals,
        error_samples: errorSamples,
      };
      process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    } finally {
      await daemon.stop();
      await withClient(admin, (client) => client.query(`DROP DATABASE IF EXISTS ${database}`));
    }
  } finally {
    await server.stop();
    if (homeAt < 0) rmSync(home, { recursive: true, force: true });
  }
}

// The generated backlog into a new database the daemon migrated (the daemon stopped after: a template database takes
// no connections while it is copied).
async function load(server: EmbeddedServer, database: string, n: number): Promise<void> {
  await server.createDatabase(database);
  const url = server.connection.url(database);
  // the administrator's token made with a known value: the copies' daemons find their administrator made
  const daemon = await startDaemonProcess({
    env: { SVC_DATABASE_URL: url, SVC_LOG_LEVEL: 'warn', SVC_BOOTSTRAP_TOKEN: TOKEN },
    timeoutMs: 120_000,
  });
  await daemon.stop();
  const { items, edges } = generateBacklog(n, 42);
  await withClient(url, async (client) => {
    await createProject(client, { id: PROJECT, prefix: 'BN', policy: { wip_cap: 30 } });
    const created = await insertItems(client, PROJECT, items);
    await insertEdges(
      client,
      edges.map((e) => ({
        blocker: created[e.blocker].id,
        dependent: created[e.dependent].id,
        satisfaction: e.satisfaction,
      })),
    );
    await client.query('VACUUM ANALYZE items');
    await client.query('VACUUM ANALYZE item_dependencies');
  });
  note(`${n}: ${items.length} items, ${edges.length} edges loaded into ${database}`);
}

void main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
