import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { resourceUsage } from 'node:process';

import { DataSource } from 'typeorm';

import { computeFrontier, FrontierMemo, isTerminalStatus } from '../../libs/core/src';
import { EmbeddedServer } from '../../libs/database/src';
import { createProject, insertEdges, insertItems, ItemSpec, withClient } from '../../libs/testing/src/backlog-factory';
import { startDaemonProcess } from '../../libs/testing/src/daemon-process';
import { dataSourceOptions } from '../../apps/daemon/src/database/data-source';
import { DependenciesRepository } from '../../apps/daemon/src/dependencies/dependencies.repository';
import { DependencyFactsService } from '../../apps/daemon/src/dependencies/dependency-facts.service';
import { FrontierRepository } from '../../apps/daemon/src/frontier/read-path/frontier.repository';
import { FrontierGraphCache } from '../../apps/daemon/src/frontier/read-path/frontier-graph-cache';
import { generateBacklog } from './generate';
import { NeutralItem, timeTaskwarrior, TaskwarriorResult } from './taskwarrior';

interface NeutralGraph {
  format: string;
  items: NeutralItem[];
  edges: { blocker: string; dependent: string }[];
  expected?: { ready?: string[] };
}

interface Dataset {
  name: string;
  items: ItemSpec[];
  edges: { blocker: number; dependent: number; satisfaction: string }[];
  // neutral ids by item index, and the expected ready set (graph files only)
  neutralIds?: string[];
  expectedReady?: string[];
  // the graph file's own items and edges (Taskwarrior imports them)
  neutral?: NeutralGraph;
}

export interface DatasetResult {
  name: string;
  items: number;
  edges: number;
  http_ms: number;
  http_ms_runs: number[];
  // unchanged backlog, the client sending the ETag it has (304, no body)
  http_304_ms: number;
  http_304_ms_runs: number[];
  // the first read after the daemon started (a cold load of the project)
  http_first_ms: number;
  http_cold_ms: number;
  http_cold_ms_runs: number[];
  http_after_write_ms: number;
  burst_reads: number;
  burst_read_p50_ms: number;
  burst_read_p99_ms: number;
  // computeFrontier from scratch
  core_ms: number;
  core_ms_runs: number[];
  // computeFrontier after a one-item write, with the memo of the previous run (as the daemon runs it)
  core_after_write_ms: number;
  core_after_write_ms_runs: number[];
  graph_load_ms: number;
  runnable: number;
  blocked: number;
  frozen: number;
  response_bytes: number;
  daemon_peak_rss_mb: number;
  expected_ready_match?: boolean;
  // 1-minute load average before and after this dataset (2 cores: above 2 means waiting for a core)
  load_average: [number, number];
  taskwarrior?: TaskwarriorResult | null;
  // Taskwarrior's `task ready` over svc's read after a write (both recompute from the changed backlog)
  taskwarrior_ratio?: number | null;
}

const PROJECT = 'bench';
const PRIORITY = { H: 'high', M: 'medium', L: 'low' } as const;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
};
const round = (value: number) => Math.round(value * 10) / 10;
const note = (message: string) => process.stderr.write(`bench:frontier: ${message}\n`);

export function neutralDataset(path: string): Dataset {
  const graph = JSON.parse(readFileSync(path, 'utf8')) as NeutralGraph;
  if (graph.format !== 'synthetic-backlog/v1')
    throw new Error(`${path}: format ${graph.format} is not synthetic-backlog/v1`);
  const index = new Map(graph.items.map((item, i) => [item.id, i]));
  return {
    name: path.split('/').pop() ?? path,
    items: graph.items.map((item) => ({
      title: item.title,
      status: item.status === 'done' ? 'done' : 'planned',
      priority: PRIORITY[item.priority] ?? 'medium',
      createdAt: item.created_at,
    })),
    edges: graph.edges.map((e) => {
      const blocker = index.get(e.blocker);
      const dependent = index.get(e.dependent);
      if (blocker === undefined || dependent === undefined)
        throw new Error(`edge ${e.blocker}→${e.dependent}: unknown item`);
      return { blocker, dependent, satisfaction: 'status:done' };
    }),
    neutralIds: graph.items.map((item) => item.id),
    expectedReady: graph.expected?.ready,
    neutral: graph,
  };
}

function peakRssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /VmHWM:\s+(\d+) kB/.exec(status);
    return match ? round(Number(match[1]) / 1024) : 0;
  } catch {
    return 0;
  }
}

async function runDataset(server: EmbeddedServer, dataset: Dataset, runs: number): Promise<DatasetResult> {
  const loadBefore = round(loadavg()[0]);
  const database = `bench_${dataset.name.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${Date.now().toString(36)}`;
  await server.createDatabase(database);
  const url = server.connection.url(database);
  const daemon = await startDaemonProcess({
    env: { SVC_DATABASE_URL: url, SVC_LOG_LEVEL: 'warn' },
    timeoutMs: 120_000,
  });
  try {
    const started = Date.now();
    const ids = await withClient(url, async (client) => {
      await createProject(client, { id: PROJECT, prefix: 'BN', policy: { wip_cap: 30 } });
      const created = await insertItems(client, PROJECT, dataset.items);
      await insertEdges(
        client,
        dataset.edges.map((e) => ({
          blocker: created[e.blocker].id,
          dependent: created[e.dependent].id,
          satisfaction: e.satisfaction,
        })),
      );
      await client.query('VACUUM ANALYZE items');
      await client.query('VACUUM ANALYZE item_dependencies');
      return created;
    });
    note(
      `${dataset.name}: loaded ${dataset.items.length} items and ${dataset.edges.length} edges in ${Date.now() - started} ms`,
    );

    const headers = { authorization: `Bearer ${daemon.token}` };
    const target = `${daemon.url}/v1/charge/frontier?project=${PROJECT}`;
    let text = '';
    const httpRuns: number[] = [];
    let firstMs = 0;
    for (let i = 0; i < runs + 3; i++) {
      const t0 = performance.now();
      const res = await fetch(target, { headers });
      text = await res.text();
      const elapsed = performance.now() - t0;
      if (res.status !== 200) throw new Error(`frontier read failed: HTTP ${res.status} ${text.slice(0, 200)}`);
      if (i === 0) firstMs = round(elapsed);
      if (i >= 3) httpRuns.push(round(elapsed));
    }
    const body = JSON.parse(text) as { runnable: { item_id: string }[]; blocked: unknown[]; frozen: unknown[] };

    // Unchanged backlog, revalidated: If-None-Match with the ETag of the last body answers 304 without one.
    const etag = (await fetch(target, { headers }).then(async (res) => (await res.text(), res.headers.get('etag'))))!;
    const notModifiedRuns: number[] = [];
    for (let i = 0; i < runs + 3; i++) {
      const t0 = performance.now();
      const res = await fetch(target, { headers: { ...headers, 'if-none-match': etag } });
      await res.text();
      if (res.status !== 304) throw new Error(`conditional frontier read: HTTP ${res.status}, expected 304`);
      if (i >= 3) notModifiedRuns.push(round(performance.now() - t0));
    }

    // Reads after a write: a write before each read (3 warm-ups, as for the other reads, then `runs` measured).
    const coldRuns: number[] = [];
    await withClient(url, async (client) => {
      for (let i = 0; i < runs + 3; i++) {
        // a change the frontier sees (an open item's priority), not just a touched row
        const item = ids.filter((_id, k) => dataset.items[k].status !== 'done')[i];
        await client.query(
          `UPDATE items SET priority = CASE priority WHEN 'high' THEN 'low' ELSE 'high' END, updated_at = now()
            WHERE id = $1`,
          [item.id],
        );
        const t0 = performance.now();
        const res = await fetch(target, { headers });
        await res.text();
        if (i >= 3) coldRuns.push(round(performance.now() - t0));
      }
    });

    // Burst: 5 agents each write 10 times through the daemon (a priority change on an open item, 250 ms apart)
    // while one reader polls the frontier back to back; every read must see the writes committed before it.
    const burstReads: number[] = [];
    let writing = true;
    const reader = (async () => {
      while (writing) {
        const t0 = performance.now();
        const res = await fetch(target, { headers });
        await res.text();
        burstReads.push(round(performance.now() - t0));
      }
    })();
    const open = ids.filter((_id, i) => dataset.items[i].status !== 'done');
    await Promise.all(
      Array.from({ length: 5 }, async (_agent, a) => {
        for (let w = 0; w < 10; w++) {
          const item = open[(a * 7919 + w * 104729) % open.length];
          const res = await fetch(`${daemon.url}/v1/items/${item.ref}/fields/priority`, {
            method: 'PUT',
            headers: { ...headers, 'content-type': 'application/json' },
            body: JSON.stringify({ value: w % 2 ? 'high' : 'low' }),
          });
          if (res.status !== 200) throw new Error(`burst write failed: HTTP ${res.status} ${await res.text()}`);
          await new Promise((r) => setTimeout(r, 250));
        }
      }),
    );
    writing = false;
    await reader;

    // The pure core computation, on the same inputs the daemon builds (same repository and graph builder).
    const dataSource = new DataSource(dataSourceOptions(url, 4));
    await dataSource.initialize();
    let coreRuns: number[] = [];
    const coreAfterWriteRuns: number[] = [];
    let graphLoadMs = 0;
    try {
      const repository = new FrontierRepository(dataSource);
      const facts = new DependencyFactsService(new DependenciesRepository(dataSource));
      const service = new FrontierGraphCache(repository, facts);
      const project = (await repository.findProject(PROJECT))!;
      const t0 = performance.now();
      const graph = await service.loadGraph(project);
      graphLoadMs = round(performance.now() - t0);
      coreRuns = [];
      for (let i = 0; i < runs + 3; i++) {
        const c0 = performance.now();
        computeFrontier({ items: graph.items, edges: graph.activation, blockerFacts: graph.facts, wipCap: 30 });
        if (i >= 3) coreRuns.push(round(performance.now() - c0));
      }
      // The core as the daemon runs it after a write: one item replaced by a new object (its priority flipped),
      // with the memo of the previous run (unchanged items come back as the same objects).
      const memo = new FrontierMemo();
      let items = graph.items;
      computeFrontier({ items, edges: graph.activation, blockerFacts: graph.facts, wipCap: 30 }, memo);
      const open = items.map((item, k) => (isTerminalStatus(item.status) ? -1 : k)).filter((k) => k >= 0);
      for (let i = 0; i < runs + 3; i++) {
        const k = open[(i * 7919) % open.length];
        items = items.slice();
        items[k] = { ...items[k], priority: items[k].priority === 'high' ? 'low' : 'high' };
        const c0 = performance.now();
        computeFrontier({ items, edges: graph.activation, blockerFacts: graph.facts, wipCap: 30 }, memo);
        if (i >= 3) coreAfterWriteRuns.push(round(performance.now() - c0));
      }
    } finally {
      await dataSource.destroy();
    }

    const result: DatasetResult = {
      name: dataset.name,
      items: dataset.items.length,
      edges: dataset.edges.length,
      http_ms: round(median(httpRuns)),
      http_ms_runs: httpRuns,
      http_304_ms: round(median(notModifiedRuns)),
      http_304_ms_runs: notModifiedRuns,
      http_first_ms: firstMs,
      http_cold_ms: round(median(coldRuns)),
      http_cold_ms_runs: coldRuns,
      http_after_write_ms: round(median(coldRuns)),
      burst_reads: burstReads.length,
      burst_read_p50_ms: round(percentile(burstReads, 0.5)),
      burst_read_p99_ms: round(percentile(burstReads, 0.99)),
      core_ms: round(median(coreRuns)),
      core_ms_runs: coreRuns,
      core_after_write_ms: round(median(coreAfterWriteRuns)),
      core_after_write_ms_runs: coreAfterWriteRuns,
      graph_load_ms: graphLoadMs,
      runnable: body.runnable.length,
      blocked: body.blocked.length,
      frozen: body.frozen.length,
      response_bytes: Buffer.byteLength(text),
      daemon_peak_rss_mb: peakRssMb(daemon.child.pid!),
      load_average: [loadBefore, round(loadavg()[0])],
    };
    if (dataset.neutral) {
      note(`${dataset.name}: timing Taskwarrior's task ready on the same graph (when task is on PATH)`);
      result.taskwarrior = timeTaskwarrior(dataset.neutral.items, dataset.neutral.edges, 3);
      result.taskwarrior_ratio = result.taskwarrior
        ? round(result.taskwarrior.ready_ms / Math.max(result.http_after_write_ms, 0.1))
        : null;
    }
    if (dataset.neutralIds && dataset.expectedReady) {
      const neutralOf = new Map(ids.map((item, i) => [item.ref, dataset.neutralIds![i]]));
      const got = new Set(body.runnable.map((r) => neutralOf.get(r.item_id)));
      const expected = new Set(dataset.expectedReady);
      result.expected_ready_match = got.size === expected.size && [...expected].every((id) => got.has(id));
    }
    return result;
  } catch (err) {
    note(
      `${dataset.name} failed; daemon exit code ${daemon.child.exitCode}, signal ${daemon.child.signalCode}; ` +
        `its stderr ends:\n${daemon.stderr().slice(-4000)}\nstdout ends:\n${daemon.stdout().slice(-2000)}`,
    );
    throw err;
  } finally {
    await daemon.stop();
  }
}

const README = resolve(__dirname, '..', 'README.md');
const TABLE_START = /<!-- frontier-table:start[^>]*-->\n/;
const TABLE_END = '<!-- frontier-table:end -->';

// The table between the markers of bench/README.md is rewritten by every full run.
function writeReadmeTable(markdown: string): void {
  const text = readFileSync(README, 'utf8');
  const start = TABLE_START.exec(text);
  const end = text.indexOf(TABLE_END);
  if (!start || end < start.index) {
    note('bench/README.md has no frontier table markers; table not written');
    return;
  }
  const head = text.slice(0, start.index + start[0].length);
  writeFileSync(README, `${head}${markdown}\n${text.slice(end)}`);
  execFileSync('npx', ['prettier', '--write', '--log-level', 'warn', README], { cwd: REPO, stdio: 'inherit' });
}

const REPO = resolve(__dirname, '..', '..');

// The daemon under measurement runs from dist: one command builds it (no type check) before anything is timed, so
// `npm run bench:frontier -- --graph <file>` hands its arguments to this script, not to a later command.
function buildDaemon(): void {
  note('building dist (npm run build:fast)');
  execFileSync('npm', ['run', '-s', 'build:fast'], { cwd: REPO, stdio: ['ignore', 'ignore', 'inherit'] });
}

function taskCell(r: DatasetResult): string {
  if (r.taskwarrior === undefined) return '–';
  if (r.taskwarrior === null) return 'task not installed';
  return `${r.taskwarrior.ready_ms} ms (${r.taskwarrior_ratio}×)`;
}

function table(results: DatasetResult[]): string {
  const lines = [
    '| dataset | items | edges | HTTP, unchanged, If-None-Match (304) | HTTP, unchanged, full body | HTTP, after a one-item write | HTTP, burst of 50 writes (p50 / p99, reads) | HTTP, first read (cold) | core: whole / after a write | runnable | blocked | frozen | response | daemon peak RSS | Taskwarrior `task ready` (× after a write) | load average |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of results) {
    lines.push(
      `| ${r.name}${r.expected_ready_match === undefined ? '' : r.expected_ready_match ? ' (ready set ✓)' : ' (ready set ✗)'} | ${r.items} | ${r.edges} | ${r.http_304_ms} ms | ${r.http_ms} ms | ${r.http_after_write_ms} ms | ${r.burst_read_p50_ms} / ${r.burst_read_p99_ms} ms (${r.burst_reads}) | ${r.http_first_ms} ms | ${r.core_ms} / ${r.core_after_write_ms} ms | ${r.runnable} | ${r.blocked} | ${r.frozen} | ${(r.response_bytes / 1e6).toFixed(1)} MB | ${r.daemon_peak_rss_mb} MB | ${taskCell(r)} | ${r.load_average[0]} → ${r.load_average[1]} |`,
    );
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const graphIndex = args.indexOf('--graph');
  const graphPath = graphIndex >= 0 ? args[graphIndex + 1] : undefined;
  if (graphIndex >= 0 && !graphPath) throw new Error('--graph needs a synthetic-backlog/v1 JSON file');
  if (!args.includes('--no-build')) buildDaemon();
  const home = mkdtempSync(join(tmpdir(), 'svc-bench-frontier-'));
  const server = new EmbeddedServer({ home, log: note });
  await server.start();
  try {
    if (graphPath) {
      const result = await runDataset(server, neutralDataset(resolve(graphPath)), 7);
      process.stdout.write(
        `${JSON.stringify({
          graph: graphPath,
          items: result.items,
          edges: result.edges,
          http_ms: result.http_ms,
          http_304_ms: result.http_304_ms,
          http_first_ms: result.http_first_ms,
          http_after_write_ms: result.http_after_write_ms,
          burst_read_p50_ms: result.burst_read_p50_ms,
          burst_read_p99_ms: result.burst_read_p99_ms,
          core_ms: result.core_ms,
          core_after_write_ms: result.core_after_write_ms,
          runnable: result.runnable,
          expected_ready_match: result.expected_ready_match ?? null,
          daemon_peak_rss_mb: result.daemon_peak_rss_mb,
          taskwarrior_ready_ms: result.taskwarrior?.ready_ms ?? null,
          taskwarrior_ratio: result.taskwarrior_ratio ?? null,
          load_average: result.load_average,
        })}\n`,
      );
      return;
    }
    const results: DatasetResult[] = [];
    // --sizes 100000 measures only the generated backlogs named (a partial run writes no table)
    const sizesIndex = args.indexOf('--sizes');
    const sizes = sizesIndex >= 0 ? args[sizesIndex + 1].split(',').map(Number) : null;
    for (const [n, runs] of [
      [10_000, 15],
      [100_000, 7],
    ] as const) {
      if (sizes && !sizes.includes(n)) continue;
      const generated = generateBacklog(n, 42);
      results.push(await runDataset(server, { name: `generated-${n / 1000}k`, ...generated }, runs));
      note(JSON.stringify(results[results.length - 1]));
    }
    if (sizes) {
      process.stdout.write(`${JSON.stringify(results)}\n`);
      return;
    }
    // ../shared/bench next to the main checkout (a worktree sits one level deeper)
    const shared = [resolve(REPO, '..', 'shared'), resolve(REPO, '..', '..', 'shared')]
      .map((dir) => join(dir, 'bench', 'graph-10000.json'))
      .find((file) => existsSync(file));
    if (!shared) throw new Error('../shared/bench/graph-10000.json not found next to the checkout');
    results.push(await runDataset(server, neutralDataset(shared), 15));
    const report = {
      benchmark: 'frontier',
      generated_at: new Date().toISOString(),
      machine: { cpus: cpus().length, cpu_model: cpus()[0]?.model ?? '', node: process.version },
      seed: 42,
      bench_peak_rss_mb: round(resourceUsage().maxRSS / 1024),
      targets: {
        http_after_write_100k_ms: 300,
        http_after_write_10k_ms: 30,
        http_first_100k_ms: 1000,
        core_100k_ms: 75,
        daemon_rss_100k_mb: 450,
      },
      datasets: results,
    };
    const out = resolve(__dirname, '..', 'results', 'frontier.json');
    writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
    process.stdout.write(`${table(results)}\n`);
    writeReadmeTable(table(results));
    process.stdout.write(
      `${JSON.stringify({ results: out, datasets: results.map((r) => ({ name: r.name, http_304_ms: r.http_304_ms, http_ms: r.http_ms, http_after_write_ms: r.http_after_write_ms, burst_read_p50_ms: r.burst_read_p50_ms, burst_read_p99_ms: r.burst_read_p99_ms, core_ms: r.core_ms, core_after_write_ms: r.core_after_write_ms, daemon_peak_rss_mb: r.daemon_peak_rss_mb, taskwarrior_ratio: r.taskwarrior_ratio ?? null })) })}\n`,
    );
  } finally {
    await server.stop();
    rmSync(home, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`bench:frontier failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
}
