import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';

import { Client } from 'pg';

import { EmbeddedServer } from '../../libs/database/src';
import { SvcApi, SvcClient, SvcHttpError } from '../../libs/client/src';
import { createProject, insertEdges, insertItems, withClient } from '../../libs/testing/src/backlog-factory';
import { DaemonProcess, startDaemonProcess } from '../../libs/testing/src/daemon-process';
import { followEvents } from '../event-stream';
import { generateBacklog } from '../frontier/generate';
import { cpuMeter, round } from '../live/proc';
import { refSeq } from '../live/mixed-plan';

// bench:writes (issue 38): closed-loop writers against the built daemon on the frontier bench's generated backlog
// (seed 42), one event stream following the project's frontier notices (`?frontier=bench`), beside `pgbench` on the
// same (embedded PostgreSQL 17) server. Per phase (1, 8, 32 writers × priority writes, mixed writes): writes/s, p50/p99
// per kind of write, refusals (4xx) and errors (5xx, no answer), the daemon's CPU and the follower's notice latency:
// from a write's answer to the first `event: frontier` the stream received after the write's own item notice (so
// the notice was computed after the change was heard). Mixed writes cycle title, priority, block/unblock, a new
// dependency (added, then removed) and a new item; each writer works on its own items from the top of the frontier.
//
//   npm run bench:writes                       10k items, 10 s per phase
//   npm run bench:writes -- --sizes 10000,100000 --seconds 20 --writers 1,8,32 --kinds priority,mixed --label x
//   SVC_BENCH_DAEMON_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" npm run bench:writes -- --kinds priority
//   SVC_BENCH_DAEMON_ENV="SVC_DB_POOL_SIZE=20" npm run bench:writes        the daemons' settings to compare
//
//   npm run bench:writes -- --sizes 100000 --replicas 1,3   the phases again with the writes spread over three replicas
//   npm run bench:writes -- --sizes 100000 --replicas 2 --follow first     one follower in all, on the first replica
//
// With --replicas 1,3 the phases run first on one daemon, then on three on the same database: writer w sends to
// replica w mod 3, and every replica has its follower, each waiting for every write's notice (whichever replica
// answered it). The backlog is loaded before the daemons start, so each boots as a restarted server does (loading
// its busiest graphs). Results are appended to bench/results/writes.json (one entry per run, with its --label).

const ROOT = resolve(__dirname, '..', '..');
const RESULTS = join(ROOT, 'bench', 'results', 'writes.json');
const README = join(ROOT, 'bench', 'README.md');
const PROJECT = 'bench';
const POOL_PER_WRITER = 40;
const PRIORITIES = ['high', 'medium', 'low'] as const;

const run = promisify(execFile);
const pct = (xs: number[], p: number) =>
  xs.length === 0 ? NaN : [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)];
const note = (line: string) => process.stderr.write(`[bench:writes] ${line}\n`);
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

type Kind = 'title' | 'priority' | 'block' | 'unblock' | 'dependency-add' | 'dependency-remove' | 'create';
type Op =
  | { kind: 'title' | 'block' | 'unblock'; ref: string }
  | { kind: 'priority'; ref: string; to: string }
  | { kind: 'dependency-add' | 'dependency-remove'; dependent: string; blocker: string }
  | { kind: 'create'; title: string; priority: string };

interface PoolItem {
  ref: string;
  priority: string;
}

// One writer's next write. Priority: its items in turn, each to the next priority. Mixed: title, priority,
// block/unblock (its blocked item unblocked the next time), a dependency (added between two of its items, newer
// depends on older, so never a cycle; removed the next time), a new item (which joins its pool).
class Writer {
  private count = 0;
  private cursor = 0;
  private blocked: string | null = null;
  private edge: { dependent: string; blocker: string } | null = null;
  private created = 0;
  constructor(
    private readonly id: number,
    private readonly pool: PoolItem[],
    private readonly mixed: boolean,
  ) {}

  private take(): PoolItem {
    return this.pool[this.cursor++ % this.pool.length];
  }

  next(): Op {
    const kind = this.mixed
      ? (['title', 'priority', 'block', 'dependency', 'create'] as const)[this.count++ % 5]
      : 'priority';
    switch (kind) {
      case 'title':
        return { kind, ref: this.take().ref };
      case 'priority': {
        const item = this.take();
        const to = PRIORITIES[(PRIORITIES.indexOf(item.priority as (typeof PRIORITIES)[number]) + 1) % 3];
        item.priority = to;
        return { kind, ref: item.ref, to };
      }
      case 'block':
        return this.blocked ? { kind: 'unblock', ref: this.blocked } : { kind: 'block', ref: this.take().ref };
      case 'dependency': {
        if (this.edge) return { kind: 'dependency-remove', ...this.edge };
        const a = this.take();
        let b = this.take();
        if (b.ref === a.ref) b = this.take();
        const [dependent, blocker] = refSeq(a.ref) > refSeq(b.ref) ? [a, b] : [b, a];
        return { kind: 'dependency-add', dependent: dependent.ref, blocker: blocker.ref };
      }
      case 'create':
        return { kind, title: `Writes bench w${this.id} #${++this.created}`, priority: PRIORITIES[this.created % 3] };
    }
  }

  settle(op: Op, done: boolean, created?: PoolItem): void {
    if (op.kind === 'block' && done) this.blocked = op.ref;
    if (op.kind === 'unblock') this.blocked = null;
    if (op.kind === 'dependency-add' && done) this.edge = { dependent: op.dependent, blocker: op.blocker };
    if (op.kind === 'dependency-remove') this.edge = null;
    if (created) this.pool.push(created);
  }

  // What undoes the writer's block and dependency still standing, so that the next phase's writers, given the same
  // items, start from none: an edge already there is not inserted again (ON CONFLICT DO NOTHING) nor announced, and
  // the follower waited for its notice in vain (runs before 2026-11-29 that ran a phase after another of mixed writes
  // counted such writes as `unseen`).
  leftovers(): Op[] {
    return [
      ...(this.blocked ? [{ kind: 'unblock' as const, ref: this.blocked }] : []),
      ...(this.edge ? [{ kind: 'dependency-remove' as const, ...this.edge }] : []),
    ];
  }
}

// What the stream's notices are matched by: the ref its item (or, for a dependency, its dependent's) notice names.
function noticeRef(op: Op): string | null {
  if (op.kind === 'create') return null; // known from the answer
  if ('dependent' in op) return op.dependent;
  return op.ref;
}

let serial = 0;
async function send(api: SvcApi, op: Op): Promise<PoolItem | undefined> {
  switch (op.kind) {
    case 'title':
      await api.setItemField(op.ref, 'title', { value: `Writes bench title ${++serial}` });
      return undefined;
    case 'priority':
      await api.setItemField(op.ref, 'priority', { value: op.to });
      return undefined;
    case 'block':
      await api.blockItem(op.ref, { reason: 'writes bench' });
      return undefined;
    case 'unblock':
      await api.itemAction(op.ref, 'unblock');
      return undefined;
    case 'dependency-add':
      await api.addDependency(op.dependent, {
        blocker: op.blocker,
        gate_point: 'activation',
        satisfaction: 'status:done',
        source: 'operator',
      });
      return undefined;
    case 'dependency-remove':
      await api.removeDependency(op.dependent, op.blocker, { gate_point: 'activation' });
      return undefined;
    case 'create': {
      const item = await api.createItem({ project: PROJECT, title: op.title, priority: op.priority });
      return { ref: item.item_id, priority: item.priority };
    }
  }
}

// The follower: one SSE stream, `?frontier=bench`. Item and dependency notices (by ref) and frontier notices, with
// their arrival times.
class Follower {
  private readonly controller = new AbortController();
  // per ref, arrival times of its item/dependency notices not yet matched to a write
  private readonly itemNotices = new Map<string, number[]>();
  private pending: { ref: string | null; sent: number; ack: number | null; seen: number | null }[] = [];
  readonly latencies: number[] = [];
  frontierNotices = 0;
  private lastFrontier = -Infinity;
  done: Promise<void> = Promise.resolve();

  constructor(
    private readonly url: string,
    private readonly token: string,
  ) {}

  async open(): Promise<void> {
    const { done } = await followEvents(this.url, this.token, `frontier=${PROJECT}`, this.controller.signal, (t, d) =>
      this.onMessage(t, d),
    );
    this.done = done;
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
    if ((type === 'item' || type === 'dependency') && typeof data.item_id === 'string') {
      const ref = data.item_id;
      const w = this.pending.find((p) => p.ref === ref && p.seen === null && p.sent < now);
      if (w) w.seen = now;
      else {
        const list = this.itemNotices.get(ref) ?? [];
        list.push(now);
        this.itemNotices.set(ref, list);
      }
    }
  }

  // A write sent: returns the function to call at its answer (with the new item's ref for a creation).
  track(ref: string | null): (createdRef?: string) => void {
    const w = { ref, sent: performance.now(), ack: null as number | null, seen: null as number | null };
    this.pending.push(w);
    return (createdRef?: string) => {
      w.ack = performance.now();
      if (createdRef) w.ref = createdRef;
      // its notice came before its answer
      const early = w.ref ? this.itemNotices.get(w.ref) : undefined;
      if (w.seen === null && early && early.length > 0) w.seen = early.shift()!;
      // its item notice and a frontier notice after it both came before its answer: told before it was answered
      if (w.seen !== null && this.lastFrontier > w.seen) {
        this.latencies.push(0);
        this.pending = this.pending.filter((p) => p !== w);
      }
    };
  }

  // Writes refused or failed are not waited for.
  forget(): void {
    this.pending = this.pending.filter((w) => w.ack !== null);
  }

  // Writes answered whose notice never came (after the drain).
  get unseen(): number {
    return this.pending.filter((w) => w.ack !== null).length;
  }

  reset(): void {
    this.pending = [];
    this.itemNotices.clear();
    this.latencies.length = 0;
    this.frontierNotices = 0;
  }

  close(): void {
    this.controller.abort();
  }
}

// What the daemon's database sessions are doing, sampled every 20 ms over a phase (pg_stat_activity): counts of
// state:wait_event for its sessions that are inside a statement or a transaction. Where a write's time goes on the
// database side: ClientRead (waiting for the daemon), WALSync/WALWrite (commits), Lock:advisory, LWLock:NotifyQueue...
class WaitSampler {
  readonly counts: Record<string, number> = {};
  private timer: NodeJS.Timeout | null = null;
  private client: Client | null = null;
  constructor(
    private readonly url: string,
    private readonly database: string,
  ) {}
  async start(): Promise<void> {
    this.client = new Client({ connectionString: this.url });
    await this.client.connect();
    const tick = async () => {
      try {
        const { rows } = await this.client!.query<{ k: string; n: string }>(
          `SELECT state || ':' || coalesce(wait_event_type || ':' || wait_event, 'cpu') AS k, count(*) AS n
             FROM pg_stat_activity
            WHERE datname = $1 AND pid <> pg_backend_pid() AND state IN ('active', 'idle in transaction')
              AND application_name <> 'svc-daemon-listen'
            GROUP BY 1`,
          [this.database],
        );
        for (const r of rows) this.counts[r.k] = (this.counts[r.k] ?? 0) + Number(r.n);
      } catch {
        // stopping
      }
      if (this.client) this.timer = setTimeout(() => void tick(), 20);
    };
    void tick();
  }
  async stop(): Promise<Record<string, number>> {
    if (this.timer) clearTimeout(this.timer);
    const client = this.client;
    this.client = null;
    await client?.end();
    return Object.fromEntries(Object.entries(this.counts).sort((a, b) => b[1] - a[1]));
  }
}

export interface PhaseResult {
  items: number;
  // daemons on the database, each sent the writes of every replicas-th writer (1 before replica phases existed)
  replicas?: number;
  // writes answered by each replica
  per_replica?: number[];
  // follower streams (one per replica, or one on the first with --follow first)
  followers?: number;
  kind: 'priority' | 'mixed';
  writers: number;
  seconds: number;
  writes: number;
  writes_per_s: number;
  refused: number;
  errors: number;
  p50_ms: number;
  p99_ms: number;
  by_kind: Record<string, { n: number; p50_ms: number; p99_ms: number }>;
  // summed over the replicas
  daemon_cpu_pct: number;
  // every follower's (one per replica) notice latencies together
  notice_p50_ms: number;
  notice_p99_ms: number;
  notices: number;
  unseen: number;
  error_samples: string[];
  // pg_stat_activity samples of the daemon's sessions (WaitSampler)
  db_waits: Record<string, number>;
  load_average: [number, number];
  // set after the last phase of a size: the kept answer byte for byte a cold daemon's (keptAgainstCold)
  kept_equals_cold?: boolean;
}

async function phase(
  replicas: { api: SvcApi; pid: number }[],
  followers: Follower[],
  pools: PoolItem[][],
  n: number,
  kind: 'priority' | 'mixed',
  writers: number,
  seconds: number,
  db: { url: string; database: string },
): Promise<PhaseResult> {
  const sampler = new WaitSampler(db.url, db.database);
  await sampler.start();
  const loadBefore = round(loadavg()[0]);
  const ws = Array.from({ length: writers }, (_, w) => new Writer(w, pools[w], kind === 'mixed'));
  const latency = new Map<Kind, number[]>();
  const all: number[] = [];
  let refused = 0;
  let errors = 0;
  const samples: string[] = [];
  const perReplica = replicas.map(() => 0);
  for (const f of followers) f.reset();
  const cpus = replicas.map((r) => cpuMeter(r.pid));
  const started = performance.now();
  const end = started + seconds * 1000;
  await Promise.all(
    ws.map(async (writer, w) => {
      const at = w % replicas.length;
      const { api } = replicas[at];
      while (performance.now() < end) {
        const op = writer.next();
        const answered = followers.map((f) => f.track(noticeRef(op)));
        const t0 = performance.now();
        try {
          const created = await send(api, op);
          const ms = performance.now() - t0;
          for (const a of answered) a(created?.ref);
          perReplica[at]++;
          all.push(ms);
          (latency.get(op.kind) ?? latency.set(op.kind, []).get(op.kind)!).push(ms);
          writer.settle(op, true, created);
        } catch (err) {
          writer.settle(op, false);
          for (const f of followers) f.forget();
          if (err instanceof SvcHttpError && err.status < 500) refused++;
          else {
            errors++;
            if (samples.length < 5) samples.push(`${op.kind}: ${(err as Error).message}`.slice(0, 300));
          }
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const daemonCpu = round(cpus.reduce((sum, cpu) => sum + cpu(), 0));
  const waits = await sampler.stop();
  // the notices of the last writes
  const unseen = () => followers.reduce((sum, f) => sum + f.unseen, 0);
  const drainEnd = performance.now() + 3000;
  while (unseen() > 0 && performance.now() < drainEnd) await sleep(20);
  const latencies = followers.flatMap((f) => f.latencies);
  const notices = followers.reduce((sum, f) => sum + f.frontierNotices, 0);
  const unseenAfterDrain = unseen();
  // not timed, after the drain and the counts (their notices match no write of the phase); a refusal here only
  // leaves the next phase what this one left
  await Promise.all(
    ws.map(async (writer, w) => {
      for (const op of writer.leftovers()) await send(replicas[w % replicas.length].api, op).catch(() => undefined);
    }),
  );
  const byKind: PhaseResult['by_kind'] = {};
  for (const [k, xs] of latency) byKind[k] = { n: xs.length, p50_ms: round(pct(xs, 50)), p99_ms: round(pct(xs, 99)) };
  const result: PhaseResult = {
    items: n,
    replicas: replicas.length,
    per_replica: perReplica,
    followers: followers.length,
    kind,
    writers,
    seconds: round(elapsed),
    writes: all.length,
    writes_per_s: round(all.length / elapsed),
    refused,
    errors,
    p50_ms: round(pct(all, 50)),
    p99_ms: round(pct(all, 99)),
    by_kind: byKind,
    daemon_cpu_pct: daemonCpu,
    notice_p50_ms: followers.length > 0 ? round(pct(latencies, 50)) : NaN,
    notice_p99_ms: followers.length > 0 ? round(pct(latencies, 99)) : NaN,
    notices,
    unseen: unseenAfterDrain,
    error_samples: samples,
    db_waits: waits,
    load_average: [loadBefore, round(loadavg()[0])],
  };
  note(
    `${n} ${kind} ×${writers}${replicas.length > 1 ? ` on ${replicas.length} replicas (${perReplica.join(' / ')})` : ''}: ${result.writes_per_s}/s p50 ${result.p50_ms} p99 ${result.p99_ms} ms, ` +
      `cpu ${result.daemon_cpu_pct} %, notice p50 ${result.notice_p50_ms} p99 ${result.notice_p99_ms} ms, ` +
      `${refused} refused, ${errors} errors, ${result.unseen} unseen; db ${JSON.stringify(waits).slice(0, 300)}`,
  );
  return result;
}

// After the phases, the frontier each long-running daemon kept (refreshed by every write, its own replica's and the
// others') against the one a daemon started afresh on the same database computes from scratch, with no write
// between: the same bytes, the same ETag, on every replica.
async function keptAgainstCold(
  keptUrls: string[],
  env: Record<string, string>,
): Promise<{ equal: boolean; etag_equal: boolean; bytes: number }> {
  const read = async (base: string) => {
    const res = await fetch(`${base}/v1/charge/frontier?project=${PROJECT}`, {
      headers: { authorization: `Bearer ${env.SVC_BOOTSTRAP_TOKEN}` },
    });
    if (res.status !== 200) throw new Error(`frontier read: ${res.status}`);
    return { text: await res.text(), etag: res.headers.get('etag') };
  };
  const cold = await startDaemonProcess({ env, timeoutMs: 120_000 });
  try {
    const fresh = await read(cold.url);
    const kept = [];
    for (const url of keptUrls) kept.push(await read(url));
    return {
      equal: kept.every((k) => k.text === fresh.text),
      etag_equal: kept.every((k) => k.etag === fresh.etag),
      bytes: fresh.text.length,
    };
  } finally {
    await stopWithin(cold);
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

interface Options {
  sizes: number[];
  seconds: number;
  writers: number[];
  kinds: ('priority' | 'mixed')[];
  follower: boolean;
  replicas: number[];
  // a follower on every replica (each), or one on the first (first: the issue's one follower, spread writes)
  followEach: boolean;
}

// What a measured size leaves for pgbench: its database, loaded and written, and the admin token's hash.
interface Measured {
  database: string;
  items: number;
  tokenHash: string;
}

async function measure(
  server: EmbeddedServer,
  n: number,
  options: Options,
  measured: Measured[],
): Promise<PhaseResult[]> {
  const database = `bench_writes_${n}_${Date.now().toString(36)}`;
  await server.createDatabase(database);
  const url = server.connection.url(database);
  // one secret and one admin token, so every replica and the cold daemon accept the same credential
  const env = {
    SVC_DATABASE_URL: url,
    SVC_LOG_LEVEL: 'warn',
    SVC_SERVER_SECRET: randomBytes(32).toString('hex'),
    SVC_BOOTSTRAP_TOKEN: `svc_${randomBytes(32).toString('hex')}`,
    // settings to compare, e.g. SVC_BENCH_DAEMON_ENV="SVC_DB_POOL_SIZE=20"
    ...Object.fromEntries(
      (process.env.SVC_BENCH_DAEMON_ENV ?? '')
        .split(' ')
        .filter(Boolean)
        .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
    ),
  };
  const nodeArgs = (process.env.SVC_BENCH_DAEMON_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const daemons: DaemonProcess[] = [];
  const followers: Follower[] = [];
  const stopAll = async () => {
    for (const f of followers) f.close();
    await Promise.all(daemons.map((d) => stopWithin(d)));
  };
  cleanups.add(stopAll);
  const boot = async () => {
    const daemon = await startDaemonProcess({ env, nodeArgs, timeoutMs: 120_000 });
    daemons.push(daemon);
    // --follow first: one follower in all, on the first replica
    if (options.follower && (options.followEach || followers.length === 0)) {
      const follower = new Follower(daemon.url, env.SVC_BOOTSTRAP_TOKEN);
      await follower.open();
      followers.push(follower);
    }
    // warm, as a replica serving a while is: its kept answer computed (a replica booted for the replica phases
    // otherwise computes its first answer at 100k inside the first phase)
    if (daemons.length > 1) {
      const read = await new SvcApi(new SvcClient(daemon.url, env.SVC_BOOTSTRAP_TOKEN)).frontier({ project: PROJECT });
      if (read.notModified) throw new Error('unexpected 304');
    }
  };
  try {
    // the schema (a first daemon migrates the fresh database and stops), then the backlog, then the replicas: each
    // boots on the loaded backlog as a restarted server does
    await stopWithin(await startDaemonProcess({ env, timeoutMs: 120_000 }));
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
    note(`${n}: ${items.length} items, ${edges.length} edges loaded`);
    await boot();
    const read = await new SvcApi(new SvcClient(daemons[0].url, env.SVC_BOOTSTRAP_TOKEN)).frontier({
      project: PROJECT,
    });
    if (read.notModified) throw new Error('unexpected 304');
    const top = read.body.runnable.map((i) => ({ ref: i.item_id, priority: i.priority }));
    const most = Math.max(...options.writers);
    if (top.length < most * 2) throw new Error(`only ${top.length} runnable items for ${most} writers`);
    const per = Math.min(POOL_PER_WRITER, Math.floor(top.length / most));
    const results: PhaseResult[] = [];
    for (const count of options.replicas) {
      while (daemons.length < count) await boot();
      const replicas = daemons.slice(0, count).map((d) => ({
        api: new SvcApi(new SvcClient(d.url, env.SVC_BOOTSTRAP_TOKEN)),
        pid: d.child.pid!,
      }));
      for (const kind of options.kinds) {
        // a replica with no writer of its own shows nothing of sharing the load
        for (const writers of options.writers.filter((w) => w >= count)) {
          // disjoint pools, fresh per phase (items created by a phase stay in the project)
          const pools = Array.from({ length: writers }, (_, w) =>
            top.slice(w * per, (w + 1) * per).map((i) => ({ ...i })),
          );
          results.push(
            await phase(
              replicas,
              followers.slice(0, options.followEach ? count : 1),
              pools,
              n,
              kind,
              writers,
              options.seconds,
              {
                url,
                database,
              },
            ),
          );
          await sleep(1000);
        }
      }
    }
    const cold = await keptAgainstCold(
      daemons.map((d) => d.url),
      env,
    );
    note(
      `${n}: kept answer${daemons.length > 1 ? ` of each of ${daemons.length} replicas` : ''} ` +
        `${cold.equal ? '=' : '≠'} a cold daemon's (${cold.bytes} bytes, ETag ${cold.etag_equal ? '=' : '≠'})`,
    );
    for (const r of results) r.kept_equals_cold = cold.equal && cold.etag_equal;
    measured.push({
      database,
      items: n,
      tokenHash: createHash('sha256').update(env.SVC_BOOTSTRAP_TOKEN).digest('hex'),
    });
    return results;
  } finally {
    await stopAll();
    cleanups.delete(stopAll);
    if (process.env.SVC_BENCH_DAEMON_LOG)
      daemons.forEach((d, i) => writeFileSync(`${process.env.SVC_BENCH_DAEMON_LOG}.${n}.${i}`, d.stderr()));
  }
}

export interface PgbenchResult {
  script: 'pgbench -N' | 'update + pg_notify' | 'svc priority write';
  clients: number;
  tps: number;
}

// pgbench on the same server: `-N` (the TPC-B-like transaction without the branch and teller updates), one
// primary-key update with a pg_notify in each transaction, and a svc priority write's own statements.
async function pgbench(
  server: EmbeddedServer,
  seconds: number,
  clients: number[],
  svc: Measured | undefined,
): Promise<PgbenchResult[]> {
  const database = 'bench_pgbench';
  await server.createDatabase(database);
  const { socketDir, port } = server.connection;
  const password = /:([^@:]*)@/.exec(server.connection.url(database))?.[1] ?? '';
  const env = { ...process.env, PGPASSWORD: decodeURIComponent(password) };
  const base = ['-h', socketDir, '-p', String(port), '-U', 'postgres'];
  await run('pgbench', [...base, '-i', '-q', '-s', '10', database], { env });
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-pgbench-'));
  const notifyScript = join(dir, 'notify.sql');
  writeFileSync(
    notifyScript,
    [
      '\\set aid random(1, 100000 * :scale)',
      '\\set delta random(-5000, 5000)',
      'BEGIN;',
      'UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;',
      "SELECT pg_notify('bench', 'x');",
      'END;',
      '',
    ].join('\n'),
  );
  const results: PgbenchResult[] = [];
  try {
    for (const script of ['pgbench -N', 'update + pg_notify'] as const) {
      for (const c of clients) {
        const args = [...base, '-c', String(c), '-j', String(Math.min(c, 2)), '-T', String(seconds), '-n'];
        const { stdout } = await run(
          'pgbench',
          [...args, ...(script === 'pgbench -N' ? ['-N'] : ['-f', notifyScript]), database],
          {
            env,
          },
        );
        const tps = Number(/tps = ([0-9.]+)/.exec(stdout)?.[1] ?? NaN);
        note(`${script} ×${c}: ${round(tps)} tps`);
        results.push({ script, clients: c, tps: round(tps) });
      }
    }
    // a svc priority write's statements on the last size's database, without the daemon: PostgreSQL's ceiling
    // for the writes/s above (bench/writes/pgbench/priority-write.sql)
    if (svc) {
      for (const c of clients) {
        const { stdout } = await run(
          'pgbench',
          [
            ...base,
            ...['-M', 'prepared', '-c', String(c), '-j', String(Math.min(c, 2)), '-T', String(seconds), '-n'],
            ...['-D', `token_hash=${svc.tokenHash}`, '-D', `items=${svc.items}`],
            ...['-f', join(__dirname, 'pgbench', 'priority-write.sql'), svc.database],
          ],
          { env },
        );
        const tps = Number(/tps = ([0-9.]+)/.exec(stdout)?.[1] ?? NaN);
        note(`svc priority write ×${c} (${svc.items} items, no daemon): ${round(tps)} tps`);
        results.push({ script: 'svc priority write', clients: c, tps: round(tps) });
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}

// The latest run's table in bench/README.md, between the writes-table markers.
function writeTable(label: string, phases: PhaseResult[], pg: PgbenchResult[]): void {
  const start = '<!-- writes-table:start (written by npm run bench:writes) -->';
  const end = '<!-- writes-table:end -->';
  const readme = readFileSync(README, 'utf8');
  const from = readme.indexOf(start);
  const to = readme.indexOf(end);
  if (from < 0 || to < from) return;
  const lines = [
    `Latest run: ${new Date().toISOString()}${label ? ` (${label})` : ''}.`,
    '',
    '| items | replicas | writes | writers | writes/s | p50 ms | p99 ms | errors | daemon CPU % | notice p50 ms | notice p99 ms | unseen |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...phases.map(
      (p) =>
        `| ${p.items} | ${(p.replicas ?? 1) === 1 ? '1' : `${p.replicas} (${p.per_replica?.join(' / ')}; ${p.followers} following)`} | ${p.kind} | ` +
        `${p.writers} | ${p.writes_per_s} | ${p.p50_ms} | ${p.p99_ms} | ${p.errors} | ` +
        `${p.daemon_cpu_pct} | ${p.notice_p50_ms} | ${p.notice_p99_ms} | ${p.unseen} |`,
    ),
    '',
    ...[...new Set(phases.map((p) => p.items))].map((items) => {
      const same = phases.find((p) => p.items === items)?.kept_equals_cold;
      const verdict = same === undefined ? 'not checked' : same ? 'the same bytes and ETag' : '**different**';
      const replicas = Math.max(...phases.filter((p) => p.items === items).map((p) => p.replicas ?? 1));
      const whose = replicas > 1 ? `each of the ${replicas} replicas' kept answers` : 'the kept answer';
      return `At ${items} items, after the phases, ${whose} against a cold daemon's: ${verdict}.`;
    }),
    ...(pg.length > 0
      ? [
          '',
          '| pgbench (same server) | clients | tps |',
          '| --- | --- | --- |',
          ...pg.map((r) => `| ${r.script} | ${r.clients} | ${r.tps} |`),
        ]
      : []),
  ];
  writeFileSync(README, `${readme.slice(0, from + start.length)}\n\n${lines.join('\n')}\n\n${readme.slice(to)}`);
}

function list(args: string[], flag: string, fallback: string): string[] {
  const at = args.indexOf(flag);
  return (at >= 0 ? args[at + 1] : fallback).split(',').filter(Boolean);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const options: Options = {
    sizes: list(args, '--sizes', args.includes('--large') ? '10000,100000' : '10000').map(Number),
    seconds: Number(list(args, '--seconds', '10')[0]),
    writers: list(args, '--writers', '1,8,32').map(Number),
    kinds: list(args, '--kinds', 'priority,mixed') as Options['kinds'],
    follower: !args.includes('--no-follower'),
    replicas: list(args, '--replicas', '1').map(Number),
    followEach: list(args, '--follow', 'each')[0] !== 'first',
  };
  const labelAt = args.indexOf('--label');
  const label = labelAt >= 0 ? (args[labelAt + 1] ?? '') : '';
  const home = mkdtempSync(join(tmpdir(), 'svc-bench-writes-db-'));
  const server = new EmbeddedServer({ home, log: note });
  const removeHome = () => rmSync(home, { recursive: true, force: true });
  const stopServer = () => server.stop();
  cleanups.add(removeHome);
  cleanups.add(stopServer);
  await server.start();
  const phases: PhaseResult[] = [];
  let pg: PgbenchResult[] = [];
  try {
    const measured: Measured[] = [];
    for (const n of options.sizes) phases.push(...(await measure(server, n, options, measured)));
    if (!args.includes('--no-pgbench'))
      pg = await pgbench(server, Math.min(options.seconds, 10), options.writers, measured.at(-1));
  } finally {
    await server.stop();
    cleanups.delete(stopServer);
    removeHome();
    cleanups.delete(removeHome);
  }
  const runs = existsSync(RESULTS)
    ? ((JSON.parse(readFileSync(RESULTS, 'utf8')) as { runs?: unknown[] }).runs ?? [])
    : [];
  runs.push({ date: new Date().toISOString(), label, options, phases, pgbench: pg });
  writeFileSync(RESULTS, `${JSON.stringify({ runs }, null, 2)}\n`);
  const rows = phases.map((p) => ({
    items: p.items,
    replicas: p.replicas,
    kind: p.kind,
    writers: p.writers,
    writes_per_s: p.writes_per_s,
    p50_ms: p.p50_ms,
    p99_ms: p.p99_ms,
    errors: p.errors,
    daemon_cpu_pct: p.daemon_cpu_pct,
    notice_p50_ms: p.notice_p50_ms,
    notice_p99_ms: p.notice_p99_ms,
  }));
  writeTable(label, phases, pg);
  for (const r of rows) process.stdout.write(`${JSON.stringify(r)}\n`);
  for (const r of pg) process.stdout.write(`${JSON.stringify(r)}\n`);
}

void main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
