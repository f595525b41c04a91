import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';

import { EmbeddedServer } from '../../libs/database/src';
import { createProject, insertEdges, insertItems, withClient } from '../../libs/testing/src/backlog-factory';
import { SvcApi, SvcClient } from '../../libs/client/src';
import { DaemonProcess, startDaemonProcess, SVC_BIN } from '../../libs/testing/src/daemon-process';
import { BENCH_STATS_EVERY_MS } from '../../apps/tui/src/effects/frontier-live';
import { TmuxSession } from '../../apps/tui/src/testing/tmux';
import { generateBacklog } from '../frontier/generate';
import { MixedResult, runMixed } from './mixed';
import { cpuMeter, round, statusMb } from './proc';

// bench/live (issue 27): the real daemon and the real `svc tui` under tmux on the frontier bench's generated
// backlogs (seed 42). Measures idle CPU, a single title write → on screen, a 20 s burst of 5 writers at 4 writes/s
// (write → on screen p50/p90, TUI and daemon CPU, peak memory), the first frame, and the full answers the TUI got
// instead of a delta. "On screen": the pane (tmux capture-pane, polled) shows the written title. With --mixed <minutes>,
// then three writers at 10 writes/s of mixed kinds with the TUI running, the daemon's memory sampled (mixed.ts).

const ROOT = resolve(__dirname, '..', '..');
const RESULTS = join(ROOT, 'bench', 'results', 'live.json');
const PROJECT = 'bench';
const SINGLE_WRITES = 20;
const WRITERS = 5;
const WRITES_PER_SECOND = 4;
const BURST_MS = 20_000;
const IDLE_MS = 5_000;
const POLL_MS = 10;

const run = promisify(execFile);
const pct = (xs: number[], p: number) =>
  xs.length === 0 ? NaN : [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)];
const note = (line: string) => process.stderr.write(`[bench:live] ${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// What to stop when the run is interrupted (SIGINT, SIGTERM), newest first: the tmux server, the daemon, the database.
// An error stops them in the finally blocks.
const cleanups = new Set<() => unknown>();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    note(`${signal}: stopping the TUI, the daemon and the database`);
    void (async () => {
      for (const cleanup of [...cleanups].reverse())
        await Promise.resolve()
          .then(cleanup)
          .catch(() => undefined);
      process.exit(130);
    })();
  });
}

// SIGTERM, then SIGKILL if the daemon has not exited within the time.
async function stopWithin(daemon: DaemonProcess, ms = 15_000): Promise<void> {
  const timer = setTimeout(() => void daemon.kill(), ms);
  try {
    await daemon.stop();
  } catch {
    // gone already
  } finally {
    clearTimeout(timer);
  }
}

function children(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

// The TUI's node process under the pane's shell.
function tuiPid(session: TmuxSession): number {
  const pane = Number(session.display('#{pane_pid}'));
  const queue = [pane];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (argv[0] === process.execPath && argv.some((a) => a.endsWith('svc.js')) && argv.includes('tui')) {
        // the deepest such process (bin/svc.js may hand over to a child)
        const deeper = children(pid).filter((c) => {
          try {
            return readFileSync(`/proc/${c}/cmdline`, 'utf8').startsWith(process.execPath);
          } catch {
            return false;
          }
        });
        return deeper.length > 0 ? deeper[0] : pid;
      }
    } catch {
      // gone
    }
    queue.push(...children(pid));
  }
  throw new Error('no TUI process under the pane');
}

async function capture(session: TmuxSession): Promise<string> {
  const { stdout } = await run('tmux', ['-L', session.socket, 'capture-pane', '-p', '-t', session.name]);
  return stdout;
}

export interface LiveResult extends Partial<MixedResult> {
  items: number;
  first_frame_ms: number;
  first_screen_ms: number;
  // the whole answer applied in the TUI, from the pane's start as first_screen_ms (its counters file shows the first
  // full answer; the file is written BENCH_STATS_EVERY_MS after the change and polled every 50 ms)
  whole_answer_ms: number;
  idle_tui_cpu_pct: number;
  idle_daemon_cpu_pct: number;
  single_p50_ms: number;
  // GET ?since= after a one-item write, p50, and the delta's size
  delta_after_write_ms: number;
  delta_bytes: number;
  burst_p50_ms: number;
  burst_p90_ms: number;
  burst_writes: number;
  burst_seen: number;
  burst_tui_cpu_pct: number;
  burst_tui_rss_mb: number;
  burst_daemon_cpu_pct: number;
  daemon_rss_mb: number;
  // peaks of the daemon's V8 heap in use and its external (Buffer) memory over the burst, from /metrics
  burst_daemon_heap_mb: number;
  burst_daemon_external_mb: number;
  full_fallbacks: number;
  deltas: number;
  load_average: [number, number];
}

async function measure(server: EmbeddedServer, n: number, mixedMinutes: number): Promise<LiveResult> {
  const loadBefore = round(loadavg()[0]);
  const database = `bench_live_${n}_${Date.now().toString(36)}`;
  await server.createDatabase(database);
  const url = server.connection.url(database);
  // the daemon migrates the new database, then the backlog goes in
  const daemon = await startDaemonProcess({
    env: {
      SVC_DATABASE_URL: url,
      SVC_LOG_LEVEL: 'warn',
      // /metrics on 127.0.0.1 without a token: the heap and external (Buffer) memory during the burst
      SVC_METRICS_PORT: '0',
    },
    // SVC_BENCH_DAEMON_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" or "--trace-gc": the daemon measured
    // from the inside (node's flags before the entry point; NODE_OPTIONS does not take --cpu-prof)
    nodeArgs: (process.env.SVC_BENCH_DAEMON_NODE_ARGS ?? '').split(' ').filter(Boolean),
    timeoutMs: 120_000,
  });
  const memory = { heap_mb: 0, external_mb: 0 };
  const sampleMemory = async () => {
    const metricsUrl = /metrics on (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(daemon.stderr())?.[1];
    if (!metricsUrl) return;
    const text = await (await fetch(metricsUrl)).text();
    const mb = (name: string) => {
      const m = new RegExp(`^${name} ([0-9.e+]+)`, 'm').exec(text);
      return m ? round(Number(m[1]) / 1048576) : 0;
    };
    memory.heap_mb = Math.max(memory.heap_mb, mb('nodejs_heap_size_used_bytes'));
    memory.external_mb = Math.max(memory.external_mb, mb('nodejs_external_memory_bytes'));
  };
  const stopDaemon = () => stopWithin(daemon);
  cleanups.add(stopDaemon);
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-live-'));
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  cleanups.add(removeDir);
  const session = new TmuxSession({
    width: 120,
    height: 36,
    // SVC_BENCH_TUI_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof": the TUI measured from the inside
    command: [
      process.execPath,
      ...(process.env.SVC_BENCH_TUI_NODE_ARGS ?? '').split(' ').filter(Boolean),
      SVC_BIN,
      'tui',
      '--project',
      PROJECT,
    ],
    env: {
      SVC_URL: daemon.url,
      SVC_TOKEN: daemon.token ?? '',
      SVC_CONFIG_DIR: dir,
      SVC_TUI_BENCH_REPORT: join(dir, 'report.json'),
      SVC_TUI_BENCH_STATS: join(dir, 'stats.json'),
    },
  });
  const killSession = () => session.kill();
  cleanups.add(killSession);
  const headers = { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' };
  try {
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
    // the daemon's first read loads the project (a user's TUI starts against a running daemon)
    const answer = (await (await fetch(`${daemon.url}/v1/charge/frontier?project=${PROJECT}`, { headers })).json()) as {
      runnable: { item_id: string }[];
    };
    const top = answer.runnable.slice(0, WRITERS).map((i) => i.item_id);
    const started = performance.now();
    session.start();
    await session.waitFor((s) => s.includes(`${top[0]} `), 120_000);
    const firstScreen = performance.now() - started;
    const reportFile = join(dir, 'report.json');
    while (!existsSync(reportFile)) await sleep(20);
    const report = JSON.parse(readFileSync(reportFile, 'utf8')) as { first: { first_frame_ms: number } };
    const pid = tuiPid(session);
    // the whole answer in (the first screen may come from the first items): the TUI's counters show its full answer
    const statsFile = join(dir, 'stats.json');
    type TuiStats = { full: number; fallbacks: number; deltas: number };
    const readStats = (): TuiStats => {
      try {
        return JSON.parse(readFileSync(statsFile, 'utf8')) as TuiStats;
      } catch {
        // not written yet, or caught mid-write
        return { full: 0, fallbacks: NaN, deltas: NaN };
      }
    };
    while (readStats().full < 1) {
      if (performance.now() - started > 120_000) throw new Error('the whole answer did not reach the TUI in 120 s');
      await sleep(50);
    }
    // the counters file is written BENCH_STATS_EVERY_MS after the change it counts
    const wholeAnswer = performance.now() - started - BENCH_STATS_EVERY_MS;

    let seq = 0;
    const write = async (ref: string, marker: string) => {
      const res = await fetch(`${daemon.url}/v1/items/${ref}/fields/title`, {
        method: 'PUT',
        headers,
        body: JSON.stringify({ value: `${marker} live bench` }),
      });
      if (!res.ok) throw new Error(`write ${ref}: ${res.status} ${await res.text()}`);
    };

    const idleTui = cpuMeter(pid);
    const idleDaemon = cpuMeter(daemon.child.pid!);
    await sleep(IDLE_MS);
    const idle = { tui: idleTui(), daemon: idleDaemon() };

    const single: number[] = [];
    for (let k = 0; k < SINGLE_WRITES; k++) {
      const marker = `S${++seq}x${n}`;
      const t0 = performance.now();
      await write(top[0], marker);
      for (;;) {
        if ((await capture(session)).includes(marker)) break;
        if (performance.now() - t0 > 30_000) throw new Error(`write ${marker} never showed`);
        await sleep(POLL_MS);
      }
      single.push(performance.now() - t0);
      await sleep(200);
    }
    note(`${n}: single p50 ${round(pct(single, 50))} ms`);

    // the daemon alone: a one-item write, then the delta since the answer before it (read after the write returned)
    const deltaMs: number[] = [];
    let deltaBytes = 0;
    for (let k = 0; k < 10; k++) {
      const before = await fetch(`${daemon.url}/v1/charge/frontier?project=${PROJECT}`, { headers });
      const etag = before.headers.get('etag') ?? '';
      await before.arrayBuffer();
      await write(top[1], `D${++seq}x`);
      const t0 = performance.now();
      const res = await fetch(`${daemon.url}/v1/charge/frontier?project=${PROJECT}&since=${encodeURIComponent(etag)}`, {
        headers,
      });
      deltaBytes = (await res.arrayBuffer()).byteLength;
      deltaMs.push(performance.now() - t0);
    }

    // the burst: each writer titles its own top item 4 times a second. A write is on screen when the pane shows its
    // title or a later one of the same writer (the screen caught up past it).
    const pending: { writer: number; seq: number; marker: string; t0: number }[] = [];
    const latencies: number[] = [];
    let writes = 0;
    const tuiCpu = cpuMeter(pid);
    const daemonCpu = cpuMeter(daemon.child.pid!);
    let daemonPeak = statusMb(daemon.child.pid!, 'VmRSS');
    const burstEnd = performance.now() + BURST_MS;
    const writers = top.map(async (ref, w) => {
      await sleep((w * 1000) / WRITES_PER_SECOND / WRITERS);
      while (performance.now() < burstEnd) {
        const due = performance.now() + 1000 / WRITES_PER_SECOND;
        const n = ++seq;
        const marker = `B${n}w${w}`;
        pending.push({ writer: w, seq: n, marker, t0: performance.now() });
        writes++;
        await write(ref, marker);
        await sleep(Math.max(0, due - performance.now()));
      }
    });
    let polls = 0;
    const poller = (async () => {
      while (performance.now() < burstEnd + 5000) {
        const screen = await capture(session);
        const now = performance.now();
        const shown = new Map<number, number>();
        for (const p of pending)
          if (screen.includes(`${p.marker} `)) shown.set(p.writer, Math.max(shown.get(p.writer) ?? 0, p.seq));
        for (let k = pending.length - 1; k >= 0; k--) {
          const p = pending[k];
          if (p.seq <= (shown.get(p.writer) ?? 0)) {
            latencies.push(now - p.t0);
            pending.splice(k, 1);
          }
        }
        daemonPeak = Math.max(daemonPeak, statusMb(daemon.child.pid!, 'VmRSS'));
        if (++polls % 50 === 0) await sampleMemory();
        if (now > burstEnd && pending.length === 0) break;
        await sleep(POLL_MS);
      }
    })();
    await Promise.all(writers);
    const burst = { tui: tuiCpu(), daemon: daemonCpu() };
    await poller;
    // the TUI writes its counters at most every BENCH_STATS_EVERY_MS, the last time within that of its last change
    await sleep(BENCH_STATS_EVERY_MS + 50);
    const stats = readStats();
    const result: LiveResult = {
      items: n,
      first_frame_ms: round(report.first.first_frame_ms),
      first_screen_ms: round(firstScreen),
      whole_answer_ms: round(wholeAnswer),
      idle_tui_cpu_pct: idle.tui,
      idle_daemon_cpu_pct: idle.daemon,
      single_p50_ms: round(pct(single, 50)),
      delta_after_write_ms: round(pct(deltaMs, 50)),
      delta_bytes: deltaBytes,
      burst_p50_ms: round(pct(latencies, 50)),
      burst_p90_ms: round(pct(latencies, 90)),
      burst_writes: writes,
      burst_seen: latencies.length,
      burst_tui_cpu_pct: burst.tui,
      burst_tui_rss_mb: statusMb(pid, 'VmHWM'),
      burst_daemon_cpu_pct: burst.daemon,
      daemon_rss_mb: Math.max(daemonPeak, statusMb(daemon.child.pid!, 'VmRSS')),
      burst_daemon_heap_mb: memory.heap_mb,
      burst_daemon_external_mb: memory.external_mb,
      full_fallbacks: stats.fallbacks,
      deltas: stats.deltas,
      load_average: [loadBefore, round(loadavg()[0])],
    };
    if (mixedMinutes > 0) {
      const mixed = await runMixed({
        api: new SvcApi(new SvcClient(daemon.url, daemon.token)),
        project: PROJECT,
        minutes: mixedMinutes,
        daemonPid: daemon.child.pid!,
        tuiPid: pid,
        tuiStats: readStats,
        note: (line) => note(`${n}: ${line}`),
      });
      Object.assign(result, mixed);
    }
    return result;
  } finally {
    session.kill();
    cleanups.delete(killSession);
    await stopDaemon();
    // the daemon's output (e.g. --trace-gc's lines) kept for a look
    if (process.env.SVC_BENCH_DAEMON_LOG) {
      writeFileSync(`${process.env.SVC_BENCH_DAEMON_LOG}.${n}`, daemon.stdout() + daemon.stderr());
    }
    cleanups.delete(stopDaemon);
    removeDir();
    cleanups.delete(removeDir);
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const at = args.indexOf('--sizes');
  const sizes = at >= 0 ? args[at + 1].split(',').map(Number) : [10_000, 100_000];
  // --mixed <minutes>: the mixed-writes phase after the others, at each size (0, the default: none)
  const mixedAt = args.indexOf('--mixed');
  const mixedMinutes = mixedAt >= 0 ? Number(args[mixedAt + 1]) : 0;
  if (!Number.isFinite(mixedMinutes) || mixedMinutes < 0) {
    throw new Error(`--mixed expects minutes (10; 0.25 for a smoke run), got ${args[mixedAt + 1]}`);
  }
  const home = mkdtempSync(join(tmpdir(), 'svc-bench-live-db-'));
  const server = new EmbeddedServer({ home, log: note });
  const removeHome = () => rmSync(home, { recursive: true, force: true });
  const stopServer = () => server.stop();
  cleanups.add(removeHome);
  cleanups.add(stopServer);
  await server.start();
  const results: LiveResult[] = [];
  try {
    for (const n of sizes) {
      const result = await measure(server, n, mixedMinutes);
      note(JSON.stringify(result));
      results.push(result);
    }
  } finally {
    await server.stop();
    cleanups.delete(stopServer);
    removeHome();
    cleanups.delete(removeHome);
  }
  // one entry per run, newest last
  const runs = existsSync(RESULTS)
    ? ((JSON.parse(readFileSync(RESULTS, 'utf8')) as { runs?: unknown[] }).runs ?? [])
    : [];
  runs.push({ date: new Date().toISOString(), results });
  writeFileSync(RESULTS, `${JSON.stringify({ runs }, null, 2)}\n`);
  for (const r of results) {
    const line = {
      items: r.items,
      first_frame_ms: r.first_frame_ms,
      single_p50_ms: r.single_p50_ms,
      burst_p50_ms: r.burst_p50_ms,
      burst_p90_ms: r.burst_p90_ms,
      burst_tui_cpu_pct: r.burst_tui_cpu_pct,
      burst_tui_rss_mb: r.burst_tui_rss_mb,
      burst_daemon_cpu_pct: r.burst_daemon_cpu_pct,
      full_fallbacks: r.full_fallbacks,
      ...(r.mixed_minutes === undefined
        ? {}
        : {
            mixed_minutes: r.mixed_minutes,
            mixed_writes: r.mixed_writes,
            mixed_refused: r.mixed_refused,
            mixed_errors: r.mixed_errors,
            mixed_writes_per_s: r.mixed_writes_per_s,
            mixed_requests_per_s: r.mixed_requests_per_s,
            mixed_daemon_rss_peak_mb: r.mixed_daemon_rss_peak_mb,
            mixed_daemon_rss_end_mb: r.mixed_daemon_rss_end_mb,
            mixed_tui_rss_peak_mb: r.mixed_tui_rss_peak_mb,
          }),
    };
    process.stdout.write(`${JSON.stringify(line)}\n`);
  }
}

void main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
