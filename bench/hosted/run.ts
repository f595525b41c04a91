import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';

import { EmbeddedServer } from '../../libs/database/src';
import { SvcApi, SvcClient, SvcHttpError } from '../../libs/client/src';
import { createProject, insertEdges, insertItems, withClient } from '../../libs/testing/src/backlog-factory';
import { DaemonProcess, startDaemonProcess } from '../../libs/testing/src/daemon-process';
import { followEvents } from '../event-stream';
import { generateBacklog, mulberry32 } from '../frontier/generate';
import { cpuMeter, round, statusMb } from '../live/proc';

// bench:hosted (issue 38, the hosted shape): many projects on one daemon, a stream following each of some of them, and
// writers spread over them. --projects projects of --items items each (the frontier bench's generator, seed 1000 + the
// project's number), --streams SSE streams each `?project=P&frontier=P` on a different project, --writers closed-loop
// writers alternating priority and title writes on open items, each write on a followed project but --unwatched of
// them (a share) on the others. After a warm-up (one frontier read of every followed project, then --warm-up seconds
// of writes), for --seconds: writes/s, the notice latency (from a write's answer to the first `event: frontier` of its
// project after the write's own item notice), the daemon's RSS (peak over the run, VmHWM) and the graph loads from
// scratch and evictions during the measured phase (/metrics: svc_frontier_graph_refresh_duration_seconds_count
// {outcome="load"}, svc_frontier_graph_evictions_total).
//
//   npm run bench:hosted                                         1,000 × 1,000 items, 200 streams, 8 writers, 30 s
//   npm run bench:hosted -- --projects 100 --items 1000 --streams 50 --seconds 15 --label small
//   npm run bench:hosted -- --home /tmp/hosted-db                seeds once, later runs of the same shape reuse it
//
// Results are appended to bench/results/hosted.json; the run's row is added to the table in bench/README.md.

const ROOT = resolve(__dirname, '..', '..');
const RESULTS = join(ROOT, 'bench', 'results', 'hosted.json');
const README = join(ROOT, 'bench', 'README.md');
const DATABASE = 'bench_hosted';
const POOL_PER_PROJECT = 40;
const PRIORITIES = ['high', 'medium', 'low'] as const;
const TERMINAL = new Set(['done', 'cancelled', 'stopped', 'failed']);

const pct = (xs: number[], p: number) =>
  xs.length === 0 ? NaN : [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)];
const note = (line: string) => process.stderr.write(`[bench:hosted] ${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const cleanups = new Set<() => unknown>();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    note(`${signal}: stopping the daemon and the database`);
    void (async () => {
      for (const cleanup of [...cleanups].reverse())
        await Promise.resolve()
          .then(cleanup)
          .catch(() => undefined);
      process.exit(130);
    })();
  });
}

interface Options {
  projects: number;
  items: number;
  streams: number;
  writers: number;
  seconds: number;
  warmUp: number;
  unwatched: number;
  home: string | null;
  label: string;
}

interface Project {
  id: string;
  watched: boolean;
  // open items and their current priority
  pool: { ref: string; priority: string }[];
  cursor: number;
}

const projectId = (p: number) => `h${p}`;
const prefixOf = (p: number) => `H${p}`;

// One multi-row INSERT of items and one of edges per project, a few projects at a time.
async function seed(url: string, options: Options): Promise<void> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, () =>
      withClient(url, async (client) => {
        for (let p = next++; p < options.projects; p = next++) {
          const { items, edges } = generateBacklog(options.items, 1000 + p);
          await createProject(client, { id: projectId(p), prefix: prefixOf(p), policy: { wip_cap: 30 } });
          const created = await insertItems(client, projectId(p), items);
          await insertEdges(
            client,
            edges.map((e) => ({
              blocker: created[e.blocker].id,
              dependent: created[e.dependent].id,
              satisfaction: e.satisfaction,
            })),
          );
          if (p % 100 === 99) note(`seeded ${p + 1} projects (${round((performance.now() - started) / 1000)} s)`);
        }
      }),
    ),
  );
  await withClient(url, async (client) => {
    await client.query('VACUUM ANALYZE items');
    await client.query('VACUUM ANALYZE item_dependencies');
  });
  note(`seeded ${options.projects} × ${options.items} items in ${round((performance.now() - started) / 1000)} s`);
}

// The open items of each project as the generator made them (refs are the project's sequence numbers).
function projectsOf(options: Options): Project[] {
  return Array.from({ length: options.projects }, (_, p) => {
    const { items } = generateBacklog(options.items, 1000 + p);
    const pool: Project['pool'] = [];
    items.forEach((item, i) => {
      if (pool.length < POOL_PER_PROJECT && !TERMINAL.has(item.status!))
        pool.push({ ref: `${prefixOf(p)}-${i + 1}`, priority: item.priority! });
    });
    return { id: projectId(p), watched: p < options.streams, pool, cursor: 0 };
  });
}

// One stream, `?project=P&frontier=P`: the project's item notices (by ref) and its frontier notices.
class Follower {
  private readonly controller = new AbortController();
  private readonly early = new Map<string, number[]>();
  private pending: { ref: string; ack: number | null; seen: number | null }[] = [];
  frontierNotices = 0;
  private lastFrontier = -Infinity;

  constructor(
    private readonly url: string,
    private readonly token: string,
    readonly project: string,
    private readonly latencies: number[],
  ) {}

  async open(): Promise<void> {
    const query = `project=${this.project}&frontier=${this.project}`;
    await followEvents(this.url, this.token, query, this.controller.signal, (t, d) => this.onMessage(t, d));
  }

  private onMessage(type: string, data: Record<string, unknown>): void {
    const now = performance.now();
    if (type === 'frontier') {
      this.frontierNotices++;
      this.lastFrontier = now;
      const left: typeof this.pending = [];
      for (const w of this.pending) {
        if (w.seen !== null && w.ack !== null) this.latencies.push(Math.max(0, now - w.ack));
        else left.push(w);
      }
      this.pending = left;
      return;
    }
    if (type === 'item' && typeof data.item_id === 'string') {
      const w = this.pending.find((p) => p.ref === data.item_id && p.seen === null);
      if (w) w.seen = now;
      else (this.early.get(data.item_id) ?? this.early.set(data.item_id, []).get(data.item_id)!).push(now);
    }
  }

  // A write sent: the function to call at its answer (true) or its refusal (false).
  track(ref: string): (answered: boolean) => void {
    const w = { ref, ack: null as number | null, seen: null as number | null };
    this.pending.push(w);
    return (answered) => {
      if (!answered) {
        this.pending = this.pending.filter((p) => p !== w);
        return;
      }
      w.ack = performance.now();
      const early = this.early.get(ref);
      if (w.seen === null && early && early.length > 0) w.seen = early.shift()!;
      // its item notice and a frontier notice after it both came before its answer: told before it was answered
      if (w.seen !== null && this.lastFrontier > w.seen) {
        this.latencies.push(0);
        this.pending = this.pending.filter((p) => p !== w);
      }
    };
  }

  get unseen(): number {
    return this.pending.filter((w) => w.ack !== null).length;
  }

  reset(): void {
    this.pending = [];
    this.early.clear();
    this.frontierNotices = 0;
  }

  close(): void {
    this.controller.abort();
  }
}

// The counters of /metrics the run reads (a server admin's token).
async function graphCounters(url: string, token: string): Promise<{ loads: number; evictions: number }> {
  const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  const text = await res.text();
  const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? 0);
  return {
    loads: value(/^svc_frontier_graph_refresh_duration_seconds_count\{outcome="load"\} (\S+)$/m),
    evictions: value(/^svc_frontier_graph_evictions_total (\S+)$/m),
  };
}

export interface HostedResult {
  projects: number;
  items: number;
  streams: number;
  writers: number;
  unwatched_share: number;
  seconds: number;
  writes: number;
  writes_per_s: number;
  write_p50_ms: number;
  write_p99_ms: number;
  refused: number;
  errors: number;
  notice_p50_ms: number;
  notice_p99_ms: number;
  notices_measured: number;
  unseen: number;
  graph_loads: number;
  graph_evictions: number;
  daemon_cpu_pct: number;
  daemon_rss_mb: number;
  daemon_rss_peak_mb: number;
  error_samples: string[];
  load_average: [number, number];
}

async function writeLoop(
  api: SvcApi,
  projects: Project[],
  followers: Map<string, Follower>,
  options: Options,
  writer: number,
  end: number,
  tally: { all: number[]; refused: number; errors: number; samples: string[] },
): Promise<void> {
  const random = mulberry32(7 + writer);
  const watched = projects.filter((p) => p.watched);
  const others = projects.filter((p) => !p.watched);
  let count = 0;
  while (performance.now() < end) {
    const from = others.length > 0 && random() < options.unwatched ? others : watched;
    const project = from[Math.floor(random() * from.length)];
    const item = project.pool[project.cursor++ % project.pool.length];
    const answered = followers.get(project.id)?.track(item.ref);
    const t0 = performance.now();
    try {
      if (count++ % 2 === 0) {
        const to = PRIORITIES[(PRIORITIES.indexOf(item.priority as (typeof PRIORITIES)[number]) + 1) % 3];
        await api.setItemField(item.ref, 'priority', { value: to });
        item.priority = to;
      } else {
        await api.setItemField(item.ref, 'title', { value: `Hosted bench w${writer} #${count}` });
      }
      tally.all.push(performance.now() - t0);
      answered?.(true);
    } catch (err) {
      answered?.(false);
      if (err instanceof SvcHttpError && err.status < 500) tally.refused++;
      else tally.errors++;
      if (tally.samples.length < 5) tally.samples.push(`${item.ref}: ${(err as Error).message}`.slice(0, 300));
    }
  }
}

async function measure(
  daemon: DaemonProcess,
  token: string,
  projects: Project[],
  options: Options,
): Promise<HostedResult> {
  const api = new SvcApi(new SvcClient(daemon.url, token));
  const latencies: number[] = [];
  const followers = new Map<string, Follower>();
  for (const project of projects.filter((p) => p.watched)) {
    const follower = new Follower(daemon.url, token, project.id, latencies);
    await follower.open();
    followers.set(project.id, follower);
  }
  note(`${followers.size} streams open`);
  try {
    // the first read of each followed project loads it, as a client opening it would
    const read0 = performance.now();
    for (const id of followers.keys()) await api.frontier({ project: id });
    note(`read ${followers.size} frontiers in ${round((performance.now() - read0) / 1000)} s`);
    const warm = { all: [], refused: 0, errors: 0, samples: [] };
    const warmEnd = performance.now() + options.warmUp * 1000;
    await Promise.all(
      Array.from({ length: options.writers }, (_, w) => writeLoop(api, projects, followers, options, w, warmEnd, warm)),
    );
    await sleep(1000);
    for (const f of followers.values()) f.reset();
    latencies.length = 0;

    const pid = daemon.child.pid!;
    const before = await graphCounters(daemon.url, token);
    const loadBefore = round(loadavg()[0]);
    const cpu = cpuMeter(pid);
    let rss = 0;
    const sampler = setInterval(() => (rss = Math.max(rss, statusMb(pid, 'VmRSS'))), 250);
    const tally = { all: [] as number[], refused: 0, errors: 0, samples: [] as string[] };
    const started = performance.now();
    const end = started + options.seconds * 1000;
    await Promise.all(
      Array.from({ length: options.writers }, (_, w) =>
        writeLoop(api, projects, followers, options, w + 100, end, tally),
      ),
    );
    const elapsed = (performance.now() - started) / 1000;
    const daemonCpu = cpu();
    // the notices of the last writes
    const drainEnd = performance.now() + 5000;
    const unseen = () => [...followers.values()].reduce((n, f) => n + f.unseen, 0);
    while (unseen() > 0 && performance.now() < drainEnd) await sleep(20);
    clearInterval(sampler);
    const after = await graphCounters(daemon.url, token);
    const result: HostedResult = {
      projects: options.projects,
      items: options.items,
      streams: followers.size,
      writers: options.writers,
      unwatched_share: options.unwatched,
      seconds: round(elapsed),
      writes: tally.all.length,
      writes_per_s: round(tally.all.length / elapsed),
      write_p50_ms: round(pct(tally.all, 50)),
      write_p99_ms: round(pct(tally.all, 99)),
      refused: tally.refused,
      errors: tally.errors,
      notice_p50_ms: round(pct(latencies, 50)),
      notice_p99_ms: round(pct(latencies, 99)),
      notices_measured: latencies.length,
      unseen: unseen(),
      graph_loads: after.loads - before.loads,
      graph_evictions: after.evictions - before.evictions,
      daemon_cpu_pct: daemonCpu,
      daemon_rss_mb: rss,
      daemon_rss_peak_mb: statusMb(pid, 'VmHWM'),
      error_samples: tally.samples,
      load_average: [loadBefore, round(loadavg()[0])],
    };
    note(
      `${result.projects}×${result.items}, ${result.streams} streams, ${result.writers} writers: ` +
        `${result.writes_per_s} writes/s (p50 ${result.write_p50_ms} p99 ${result.write_p99_ms} ms), ` +
        `notice p50 ${result.notice_p50_ms} p99 ${result.notice_p99_ms} ms (${result.notices_measured}, ` +
        `${result.unseen} unseen), ${result.graph_loads} loads, ${result.graph_evictions} evictions, ` +
        `cpu ${result.daemon_cpu_pct} %, rss ${result.daemon_rss_mb} MB (peak ${result.daemon_rss_peak_mb}), ` +
        `${result.refused} refused, ${result.errors} errors`,
    );
    return result;
  } finally {
    for (const f of followers.values()) f.close();
  }
}

async function stopWithin(daemon: DaemonProcess, ms = 20_000): Promise<void> {
  const timer = setTimeout(() => void daemon.kill(), ms);
  try {
    await daemon.stop();
  } catch {
    // gone already
  } finally {
    clearTimeout(timer);
  }
}

// The run's row in bench/README.md's table, between the hosted-table markers (rows of earlier runs stay).
function addRow(label: string, r: HostedResult): void {
  const end = '<!-- hosted-table:end -->';
  const readme = readFileSync(README, 'utf8');
  const at = readme.indexOf(end);
  if (at < 0) return;
  const row =
    `| ${new Date().toISOString().slice(0, 10)} | ${label} | ${r.projects} × ${r.items} | ${r.streams} | ${r.writers} | ` +
    `${r.writes_per_s} | ${r.notice_p50_ms} | ${r.notice_p99_ms} | ${r.graph_loads} | ${r.graph_evictions} | ` +
    `${r.daemon_rss_peak_mb} | ${r.daemon_cpu_pct} |`;
  writeFileSync(README, `${readme.slice(0, at).trimEnd()}\n${row}\n\n${readme.slice(at)}`);
}

function flag(args: string[], name: string, fallback: string): string {
  const at = args.indexOf(name);
  return at >= 0 && args[at + 1] !== undefined ? args[at + 1] : fallback;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const options: Options = {
    projects: Number(flag(args, '--projects', '1000')),
    items: Number(flag(args, '--items', '1000')),
    streams: Number(flag(args, '--streams', '200')),
    writers: Number(flag(args, '--writers', '8')),
    seconds: Number(flag(args, '--seconds', '30')),
    warmUp: Number(flag(args, '--warm-up', '5')),
    unwatched: Number(flag(args, '--unwatched', '0.1')),
    home: args.includes('--home') ? resolve(flag(args, '--home', '')) : null,
    label: flag(args, '--label', ''),
  };
  if (options.streams > options.projects) throw new Error('--streams is at most --projects');
  const home = options.home ?? mkdtempSync(join(tmpdir(), 'svc-bench-hosted-db-'));
  mkdirSync(home, { recursive: true });
  const server = new EmbeddedServer({ home, log: note });
  const stopServer = () => server.stop();
  const removeHome = () => (options.home ? undefined : rmSync(home, { recursive: true, force: true }));
  cleanups.add(removeHome);
  cleanups.add(stopServer);
  await server.start();
  let result: HostedResult;
  try {
    // a kept home remembers its shape and credentials: the same shape is not seeded again
    const marker = join(home, 'bench-hosted.json');
    const shape = `${options.projects}x${options.items}`;
    const kept = existsSync(marker)
      ? (JSON.parse(readFileSync(marker, 'utf8')) as { shape: string; secret: string; token: string })
      : null;
    const reuse = kept?.shape === shape;
    if (kept && !reuse) throw new Error(`${home} holds ${kept.shape}, not ${shape}: use another --home`);
    await server.ensureDatabase(DATABASE);
    const url = server.connection.url(DATABASE);
    const env = {
      SVC_DATABASE_URL: url,
      SVC_LOG_LEVEL: 'warn',
      SVC_SERVER_SECRET: kept?.secret ?? randomBytes(32).toString('hex'),
      SVC_BOOTSTRAP_TOKEN: kept?.token ?? `svc_${randomBytes(32).toString('hex')}`,
      SVC_EVENT_STREAMS_PER_ACTOR: '10000',
      SVC_EVENT_STREAMS_PER_ADDRESS: '10000',
      ...(process.env.SVC_FRONTIER_CACHE_BUDGET
        ? { SVC_FRONTIER_CACHE_BUDGET: process.env.SVC_FRONTIER_CACHE_BUDGET }
        : {}),
    };
    const daemon = await startDaemonProcess({ env, timeoutMs: 120_000 });
    const stopDaemon = () => stopWithin(daemon);
    cleanups.add(stopDaemon);
    try {
      if (!reuse) {
        await seed(url, options);
        if (options.home)
          writeFileSync(
            marker,
            JSON.stringify({ shape, secret: env.SVC_SERVER_SECRET, token: env.SVC_BOOTSTRAP_TOKEN }),
          );
      }
      result = await measure(daemon, env.SVC_BOOTSTRAP_TOKEN, projectsOf(options), options);
    } finally {
      await stopDaemon();
      cleanups.delete(stopDaemon);
    }
  } finally {
    await server.stop();
    cleanups.delete(stopServer);
    removeHome();
    cleanups.delete(removeHome);
  }
  const runs = existsSync(RESULTS)
    ? ((JSON.parse(readFileSync(RESULTS, 'utf8')) as { runs?: unknown[] }).runs ?? [])
    : [];
  runs.push({ date: new Date().toISOString(), label: options.label, options, result });
  writeFileSync(RESULTS, `${JSON.stringify({ runs }, null, 2)}\n`);
  addRow(options.label, result);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

void main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
