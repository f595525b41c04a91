import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';

import type { FrontierItemWire, FrontierResultWire } from '../../libs/contracts/src';
import { App } from '../../apps/tui/src/app';
import { initialState } from '../../apps/tui/src/state/state';
import { makeTheme } from '../../apps/tui/src/views/theme';
import { project, testScreen } from '../../apps/tui/src/testing/fixtures';
import { TmuxSession, tmuxAvailable } from '../../apps/tui/src/testing/tmux';
import { generateBacklog } from '../frontier/generate';

// bench/tui: how fast the TUI shows a big project and answers a key press, and what it costs in memory.
// The daemon is a stub serving a pre-serialized frontier from memory, so the figures are the TUI's own
// (the daemon's frontier time is the frontier benchmark's).

const ROOT = resolve(__dirname, '..', '..');
const TUI_ENTRY = join(ROOT, 'dist', 'apps', 'tui', 'src', 'main.js');
// what a user runs: `svc tui` (bin/svc.js, the command line's entry, which goes straight to the TUI)
const SVC_BIN = join(ROOT, 'bin', 'svc.js');
const RESULTS = join(ROOT, 'bench', 'results', 'tui.json');
const README = join(ROOT, 'bench', 'README.md');
const SEED = 42;
const RUNS = 3;

const TERMINAL = new Set(['done', 'cancelled', 'stopped']);

// A frontier answer of n items from the frontier benchmark's generator (same seed): items with an undone
// blocker are blocked (with their reasons), flagged ones frozen, the rest runnable; done items are left out.
export function generatedFrontier(n: number, seed = SEED): FrontierResultWire {
  const { items, edges } = generateBacklog(n, seed);
  const blockers = new Map<number, number[]>();
  const unblocks = new Array<number>(n).fill(0);
  for (const e of edges) {
    if (TERMINAL.has(items[e.blocker].status ?? '')) continue;
    const list = blockers.get(e.dependent) ?? [];
    list.push(e.blocker);
    blockers.set(e.dependent, list);
    unblocks[e.blocker]++;
  }
  const wire = (i: number, blockedBy: number[]): FrontierItemWire => ({
    item_id: `BEN-${i + 1}`,
    title: items[i].title ?? '',
    status: items[i].status ?? 'planned',
    priority: items[i].priority ?? 'medium',
    project: 'bench',
    workflow_id: items[i].workflow ?? 'issue',
    workflow_version_id: 1,
    adapter: blockedBy.length > 0 ? 'wait' : 'conduct',
    blocked_by: blockedBy.map((b) => `BEN-${b + 1}`),
    blocked_reasons: blockedBy.map((b) => `BEN-${b + 1} is in ${items[b].status ?? 'planned'}; needs done`),
    unblocks_count: unblocks[i],
    downstream_depth: Math.min(unblocks[i], 9),
    created_at: items[i].createdAt ?? new Date(0).toISOString(),
  });
  const result: FrontierResultWire = {
    runnable: [],
    blocked: [],
    frozen: [],
    wip_cap: 30,
    wip_active: 3,
    conduct_eligible: [],
  };
  items.forEach((item, i) => {
    if (TERMINAL.has(item.status ?? '')) return;
    const b = blockers.get(i) ?? [];
    if (item.frozen) result.frozen.push(wire(i, []));
    else if (b.length > 0 || item.blocked) result.blocked.push(wire(i, b));
    else result.runnable.push(wire(i, []));
  });
  result.conduct_eligible = result.runnable.slice(0, 27);
  return result;
}

// Just enough of the daemon for the TUI to start: identity, one project, the frontier, empty side lists, a stream.
export function stubDaemon(frontierJson: string): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    const json = (body: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    if (path === '/v1/whoami')
      return json({ actor_id: 1, name: 'bench', is_admin: true, via: 'api_token', machine_id: null });
    if (path === '/v1/projects') return json({ projects: [project('bench', 'Benchmark')] });
    if (path === '/v1/charge/frontier') return json(frontierJson);
    if (path === '/v1/charge/claims') return json({ project: 'bench', claims: [] });
    if (path === '/v1/machine-authorizations') return json({ requests: [] });
    if (path === '/v1/events') return json({ events: [] });
    if (path === '/v1/events/stream') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': connected\n\n');
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ code: 'not_found', message: path }));
  });
  return new Promise((r) =>
    server.listen(0, '127.0.0.1', () =>
      r({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server }),
    ),
  );
}

interface StartRun {
  first_frame_ms: number;
  first_frame_cpu_ms: number;
  screen_ms: number;
  rss_mb: number;
  hwm_mb: number;
  heap_mb: number;
  settled_rss_mb: number;
}

async function startOnce(url: string, firstRef: string): Promise<StartRun> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-tui-'));
  const report = join(dir, 'report.json');
  const session = new TmuxSession({
    width: 120,
    height: 36,
    command: [process.execPath, '--expose-gc', SVC_BIN, 'tui'],
    env: { SVC_URL: url, SVC_TOKEN: 'bench', SVC_CONFIG_DIR: dir, SVC_TUI_BENCH_REPORT: report },
  });
  const started = performance.now();
  session.start();
  let screenMs = 0;
  try {
    // seen from outside: until the pane shows the first row
    await session.waitFor((s) => {
      if (s.includes(`${firstRef} `)) {
        screenMs = performance.now() - started;
        return true;
      }
      return false;
    }, 60_000);
    const deadline = Date.now() + 30_000;
    for (;;) {
      const text = existsSync(report) ? readFileSync(report, 'utf8') : '';
      if (text.includes('settled')) {
        const r = JSON.parse(text) as { first: StartRun; settled: { rss_mb: number } };
        return { ...r.first, screen_ms: screenMs, settled_rss_mb: r.settled.rss_mb };
      }
      if (Date.now() > deadline) throw new Error(`no report from the TUI: ${text}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    session.keys('q');
    session.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)];
const round = (x: number) => Math.round(x * 10) / 10;

interface KeyFigures {
  keys: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  // CPU time of the process per key (user + system): what the key costs regardless of other load on the machine
  cpu_p50_ms: number;
  cpu_p99_ms: number;
}

// In process: the real key path (blessed keypress → keymap → reducer → virtual list → screen diff) on a 120x36
// screen over a stream, one render per key.
function keyPresses(rows: FrontierItemWire[], sequence: string[], repeat: number): KeyFigures {
  const t = testScreen(120, 36);
  const app = new App({
    screen: t.screen,
    theme: makeTheme(),
    state: initialState({ url: 'bench' }),
    effects: null,
    onQuit: () => undefined,
  });
  app.store.dispatch({ type: 'projects_loaded', projects: [project('bench', 'Benchmark')] });
  app.store.dispatch({
    type: 'frontier_loaded',
    project: 'bench',
    frontier: {
      runnable: rows,
      blocked: [],
      frozen: [],
      wip_cap: 30,
      wip_active: 3,
      conduct_eligible: rows.slice(0, 27),
    },
  });
  app.renderNow();
  const names: Record<string, { name: string; full: string; shift?: boolean }> = {
    j: { name: 'j', full: 'j' },
    k: { name: 'k', full: 'k' },
    G: { name: 'g', full: 'S-g', shift: true },
    g: { name: 'g', full: 'g' },
    pagedown: { name: 'pagedown', full: 'pagedown' },
    pageup: { name: 'pageup', full: 'pageup' },
    '/': { name: '/', full: '/' },
    escape: { name: 'escape', full: 'escape' },
    enter: { name: 'enter', full: 'enter' },
  };
  const times: number[] = [];
  const cpu: number[] = [];
  const press = (k: string) => {
    const key = names[k] ?? { name: k, full: k };
    const ch = k.length === 1 ? k : undefined;
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    app.onKey(ch, key);
    app.renderNow();
    times.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  };
  for (let r = 0; r < repeat; r++) for (const k of sequence) press(k);
  app.stop();
  t.destroy();
  const warm = sequence.length * 2; // the first rounds warm up
  const measured = times.slice(warm);
  const measuredCpu = cpu.slice(warm);
  return {
    keys: measured.length,
    p50_ms: round(pct(measured, 50)),
    p99_ms: round(pct(measured, 99)),
    max_ms: round(Math.max(...measured)),
    cpu_p50_ms: round(pct(measuredCpu, 50)),
    cpu_p99_ms: round(pct(measuredCpu, 99)),
  };
}

function writeReadme(results: Record<string, unknown>): void {
  const r = results as {
    start: {
      dataset: string;
      rows: number;
      first_frame_ms: number;
      first_frame_cpu_ms: number;
      screen_ms: number;
      rss_mb: number;
      settled_rss_mb: number;
    }[];
    keys: { navigation: KeyFigures; filter: KeyFigures; rows: number };
    load?: number[];
  };
  const lines = [
    '<!-- tui-table:start (written by npm run bench:tui) -->',
    '',
    '| dataset | rows on the frontier | first frame since process start (median) | its CPU time | first row seen in tmux | TUI RSS at first frame | TUI RSS settled |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...r.start.map(
      (s) =>
        `| ${s.dataset} | ${s.rows} | ${s.first_frame_ms} ms | ${s.first_frame_cpu_ms} ms | ${s.screen_ms} ms | ${s.rss_mb} MB | ${s.settled_rss_mb} MB |`,
    ),
    '',
    `| key press to rendered frame, ${r.keys.rows} rows (120x36) | keys | p50 | p99 | max | CPU p50 | CPU p99 |`,
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...(['navigation', 'filter'] as const).map((k) => {
      const f = r.keys[k];
      const label =
        k === 'navigation'
          ? 'navigation (j, k, PgDn, PgUp, g, G, enter/esc)'
          : 'filter as you type (substring over ref and title)';
      return `| ${label} | ${f.keys} | ${f.p50_ms} ms | ${f.p99_ms} ms | ${f.max_ms} ms | ${f.cpu_p50_ms} ms | ${f.cpu_p99_ms} ms |`;
    }),
    '',
    `Load average while measuring: ${(r.load ?? []).join(', ')} (2 cores).`,
    '',
    '<!-- tui-table:end -->',
  ];
  const text = readFileSync(README, 'utf8');
  const start = text.indexOf('<!-- tui-table:start');
  const end = text.indexOf('<!-- tui-table:end -->');
  if (start < 0 || end < 0) {
    process.stderr.write('bench/README.md has no tui-table markers; the table is printed instead\n');
    process.stdout.write(`${lines.join('\n')}\n`);
    return;
  }
  writeFileSync(README, text.slice(0, start) + lines.join('\n') + text.slice(end + '<!-- tui-table:end -->'.length));
}

async function main(): Promise<void> {
  if (!tmuxAvailable()) throw new Error('bench:tui needs tmux');
  if (!existsSync(TUI_ENTRY)) throw new Error(`build first: ${TUI_ENTRY} is missing`);
  const start: Record<string, unknown>[] = [];
  const keysOnly = process.argv.includes('--keys-only');
  for (const [dataset, n] of (keysOnly
    ? []
    : [
        ['generated-10k', 10_000],
        ['generated-100k', 100_000],
      ]) as [string, number][]) {
    const f = generatedFrontier(n);
    const json = JSON.stringify(f);
    const { url, server } = await stubDaemon(json);
    try {
      const runs: StartRun[] = [];
      for (let i = 0; i < RUNS; i++) runs.push(await startOnce(url, f.runnable[0].item_id));
      const pick = (k: keyof StartRun) => round(median(runs.map((r) => r[k])));
      const row = {
        dataset,
        items: n,
        rows: f.runnable.length + f.blocked.length + f.frozen.length,
        response_mb: round(json.length / 2 ** 20),
        first_frame_ms: pick('first_frame_ms'),
        first_frame_ms_runs: runs.map((r) => round(r.first_frame_ms)),
        first_frame_cpu_ms: pick('first_frame_cpu_ms'),
        screen_ms: pick('screen_ms'),
        rss_mb: pick('rss_mb'),
        hwm_mb: pick('hwm_mb'),
        settled_rss_mb: pick('settled_rss_mb'),
      };
      process.stdout.write(`${JSON.stringify(row)}\n`);
      start.push(row);
    } finally {
      server.close();
    }
  }

  // 100k rows in one list: the worst case for the virtual list and the filter
  const big = generatedFrontier(100_000);
  const rows = [...big.runnable, ...big.blocked, ...big.frozen];
  while (rows.length < 100_000) rows.push({ ...rows[rows.length % 1000], item_id: `BEN-X${rows.length}` });
  const navigation = keyPresses(
    rows.slice(0, 100_000),
    ['j', 'j', 'j', 'pagedown', 'k', 'pageup', 'G', 'k', 'g', 'enter', 'escape'],
    200,
  );
  const filter = keyPresses(rows.slice(0, 100_000), ['/', 'i', 't', 'e', 'm', ' ', '4', '2', 'escape'], 30);
  const keys = { rows: 100_000, navigation, filter };
  process.stdout.write(`${JSON.stringify(keys)}\n`);

  const results = {
    generated_at: new Date().toISOString(),
    machine: { cpus: cpus().length, model: cpus()[0]?.model ?? 'unknown', node: process.version },
    load: loadavg().map(round),
    seed: SEED,
    targets: { first_frame_10k_ms: 500, first_frame_100k_ms: 1500, key_p99_ms: 16 },
    start,
    keys,
  };
  if (keysOnly) return;
  writeFileSync(RESULTS, `${JSON.stringify(results, null, 2)}\n`);
  writeReadme(results);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`bench:tui failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
}
