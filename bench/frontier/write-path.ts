import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { PerformanceEntry, PerformanceObserver } from 'node:perf_hooks';
import { writeHeapSnapshot } from 'node:v8';

import { applyDeploymentHalts, computeFrontier, FrontierComputation, FrontierMemo } from '../../libs/core/src';
import { DependencyFactsService } from '../../apps/daemon/src/dependencies/dependency-facts.service';
import { ACTIVATION_ONLY, FrontierGraphCache } from '../../apps/daemon/src/frontier/read-path/frontier-graph-cache';
import {
  buildProjectGraph,
  GraphReuse,
  growProjectGraph,
  patchProjectGraph,
  ProjectGraph,
  shrinkProjectGraph,
} from '../../apps/daemon/src/frontier/read-path/frontier-graph';
import { BlockerRow, CandidateRow } from '../../apps/daemon/src/frontier/read-path/frontier.repository';
import { FrontierHistory } from '../../apps/daemon/src/frontier/wire/frontier-delta';
import { FrontierSerializer } from '../../apps/daemon/src/frontier/wire/frontier-serializer';
import { MemoryRows } from './memory-repository';
import { generatedRows } from './profile';

// In-process profile of the daemon's work between a one-item write and the delta it answers (issue 27's 1M target):
// patch the graph at the written row, compute_frontier with the memo, serialize, record in the history, the delta
// since the answer before. No database or HTTP: what is left is the frontier's own cost per write, by step.
// `node -r ts-node/register/transpile-only -r tsconfig-paths/register bench/frontier/write-path.ts 1000000 [writes] [per] [kind]`
// per: items written before each run (1; bench:live's burst runs once for several writers' writes: 5 retitles the top
// five at once). kind: `title` (the default: a top runnable item retitled), `new-item` (a new item, the next id) or
// `to-done` (a top runnable item's status to done: it leaves the candidates, its own dependencies with it, and stays
// an outside blocker while a dependency names it), `mixed` (one refresh finding a title write, a new item and a
// dependency added) or `dependency-remove` (a blocked item's dependency deleted); all but `title` take per = 1. The
// last two refresh a FrontierGraphCache over the rows in memory (memory-repository.ts), so `patch` is the cache's
// whole refresh step (the delta applied to its state, then the graph step it picks).
// With SVC_BENCH_PROFILE=<file>, a CPU profile of the writes alone is written there; with SVC_BENCH_HEAP=<file>, a heap
// snapshot after them. Prints one JSON line: the median of each step in ms, GC per write, and the memory after the
// writes (RSS, live heap and the buffers outside it).

// What a new item or a terminal move changed, as the graph cache's delta names it.
interface GraphChange {
  added: CandidateRow[];
  departed: BlockerRow[];
}

// The graph cache's step after a new item (the graph grown at its ends) or a terminal move (the graph shrunk in
// place: the departed item's position and own edges out, an outside blocker while an edge names it).
function reshapedGraph(graph: ProjectGraph, change: GraphChange, reuse: GraphReuse): ProjectGraph {
  return change.departed.length === 0
    ? growProjectGraph(graph, change.added, [], graph.workflows, reuse)
    : shrinkProjectGraph(graph, change.departed, reuse).graph;
}

const WRITE_KINDS = ['title', 'new-item', 'to-done', 'mixed', 'dependency-remove'] as const;
// refreshed through FrontierGraphCache over the rows in memory: the step the cache picks is what is measured
const CACHE_KINDS: readonly WriteKind[] = ['mixed', 'dependency-remove'];
type WriteKind = (typeof WRITE_KINDS)[number];
type Rows = ReturnType<typeof generatedRows>;

// A new candidate row with the next id (a planned issue, as the generator's), at the end: ids ascend.
function newItem(rows: Rows, id: number): GraphChange {
  const row = { ...rows.candidates[0], id, seq: id, title: `new ${id}`, status: 'planned', blocked: 0, frozen: 0 };
  rows.candidates = [...rows.candidates, row];
  return { added: [row], departed: [] };
}

// As the follower's notice finds several writers' writes in one refresh: the target retitled, a new item (the next
// id), and the first blocked item made to depend on the new item too (a new item depends on nothing: no cycle).
function mixedWrite(memory: MemoryRows, rows: Rows, target: number, last: FrontierComputation, ids: NextIds): void {
  const at = rows.candidates.findIndex((row) => row.id === target);
  rows.candidates[at] = { ...rows.candidates[at], title: `written ${ids.item}` };
  memory.writeItem(rows.candidates[at]);
  const id = ids.item++;
  rows.candidates.push({
    ...rows.candidates[0],
    id,
    seq: id,
    title: `new ${id}`,
    status: 'planned',
    blocked: 0,
    frozen: 0,
  });
  memory.writeItem(rows.candidates[rows.candidates.length - 1]);
  const dependent = last.blocked[0].item_id;
  memory.writeEdge({ id: ids.edge++, blocker: id, dependent, satisfaction: 'status:done', g: 'activation', r: '' });
}

// One dependency of a blocked item removed (an item_dependencies tombstone); the item may become runnable.
function dependencyRemove(memory: MemoryRows, last: FrontierComputation, w: number): void {
  for (let k = 0; k < last.blocked.length; k++) {
    const edges = memory.edgesOf(last.blocked[(w + k) % last.blocked.length].item_id);
    if (edges.length > 0) return memory.deleteEdge(edges[0]);
  }
  throw new Error('dependency-remove: no blocked item has a dependency left');
}

interface NextIds {
  item: number;
  edge: number;
}

// The candidate at `at` to done, as the graph cache's delta takes it: out of the candidates with its own edges, an
// outside blocker (in id order) while some edge still names it.
function toDone(rows: Rows, at: number): GraphChange {
  const row = rows.candidates[at];
  rows.candidates = rows.candidates.filter((_, k) => k !== at);
  return { added: [], departed: [{ ...row, status: 'done', prefix: 'BN', project: 'bench' }] };
}

async function main(): Promise<void> {
  const n = Number(process.argv[2] ?? 100_000);
  const writes = Number(process.argv[3] ?? 20);
  const per = Number(process.argv[4] ?? 1);
  const kind = (process.argv[5] ?? 'title') as WriteKind;
  if (!WRITE_KINDS.includes(kind)) throw new Error(`kind: one of ${WRITE_KINDS.join(', ')}`);
  const rows = generatedRows(n);
  const reuse = new GraphReuse();
  const memory = new MemoryRows(rows);
  const cache = new FrontierGraphCache(memory.repository(), {} as DependencyFactsService);
  const cached = async () => (await cache.cachedGraph(rows.project, ACTIVATION_ONLY)).version.graph;
  let graph = CACHE_KINDS.includes(kind) ? await cached() : buildProjectGraph(rows, reuse);
  const memo = new FrontierMemo();
  const serializer = new FrontierSerializer();
  const history = new FrontierHistory();
  const key = FrontierHistory.key('bench', 30);
  const answer = () => {
    const computation = applyDeploymentHalts(
      computeFrontier({ items: graph.items, edges: graph.activation, blockerFacts: graph.facts, wipCap: 30 }, memo),
      graph.halts,
    );
    const t1 = performance.now();
    const serialized = serializer.serialize(computation, graph.refOf);
    const t2 = performance.now();
    history.record(key, serialized.etag, computation, serialized.refs);
    return { computation, serialized, serializeMs: t2 - t1 };
  };
  let last = answer();
  let byId = new Map(rows.candidates.map((row, at) => [row.id, at]));
  // a loop, not Math.max(...ids): a million arguments overflow the stack
  const highest = (ids: Iterable<number>) => {
    let top = -Infinity;
    for (const id of ids) if (id > top) top = id;
    return top;
  };
  let nextId = Math.max(highest(rows.candidates.map((row) => row.id)), highest(rows.outside.map((row) => row.id))) + 1;
  const ids: NextIds = { item: nextId, edge: highest(rows.edges.map((e) => e.id!)) + 1 };
  const profile = process.env.SVC_BENCH_PROFILE;
  const session = new Session();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(method, params, (err, result) => (err ? reject(err) : resolve(result))),
    );
  if (profile) {
    session.connect();
    await post('Profiler.enable');
    await post('Profiler.start');
  }
  const steps: Record<string, number[]> = { patch: [], core: [], serialize: [], delta: [], total: [] };
  // time in GC pauses over the writes (the main thread's, by kind: 1 minor, 2 major, 4 incremental, 8 weak callbacks)
  const gc = { ms: 0, count: 0 };
  const count = (entries: readonly PerformanceEntry[]) => {
    for (const entry of entries) {
      gc.ms += entry.duration;
      gc.count++;
    }
  };
  const observer = new PerformanceObserver((list) => count(list.getEntries()));
  observer.observe({ entryTypes: ['gc'] });
  for (let w = 0; w < writes; w++) {
    // a title write on one of the top runnable items, as bench:live's delta phase does
    const targets = per === 1 ? [last.computation.runnable[w % 5]] : last.computation.runnable.slice(0, per);
    // each write its own task, as in the daemon (what a task holds until it ends, such as WeakRef targets, is let go)
    await new Promise((resolve) => setImmediate(resolve));
    let t0: number;
    if (CACHE_KINDS.includes(kind)) {
      if (kind === 'mixed') mixedWrite(memory, rows, targets[0].item_id, last.computation, ids);
      else dependencyRemove(memory, last.computation, w);
      t0 = performance.now();
      graph = await cached();
    } else if (kind === 'title') {
      const written = targets.map((target) => {
        const at = byId.get(target.item_id)!;
        const row = { ...rows.candidates[at], title: `written ${w}` };
        rows.candidates[at] = row;
        return row;
      });
      t0 = performance.now();
      graph = patchProjectGraph(graph, written, graph.workflows, reuse);
    } else {
      const change = kind === 'new-item' ? newItem(rows, nextId++) : toDone(rows, byId.get(targets[0].item_id)!);
      byId = new Map(rows.candidates.map((row, at) => [row.id, at]));
      t0 = performance.now();
      graph = reshapedGraph(graph, change, reuse);
    }
    const t1 = performance.now();
    const base = last.serialized.etag;
    last = answer();
    const t2 = performance.now();
    const delta = history.delta(key, base, last.serialized.etag, last.serialized.length);
    const t3 = performance.now();
    if (!('delta' in delta)) throw new Error(`write ${w}: no delta (${delta.full})`);
    steps.patch.push(t1 - t0);
    steps.core.push(t2 - t1 - last.serializeMs);
    steps.serialize.push(last.serializeMs);
    steps.delta.push(t3 - t2);
    steps.total.push(t3 - t0);
  }
  // Node queues a GC's entry from the event loop: one turn lets those of the writes (run without yielding) in
  await new Promise((resolve) => setImmediate(resolve));
  count(observer.takeRecords());
  observer.disconnect();
  if (profile) {
    const { profile: taken } = (await post('Profiler.stop')) as { profile: unknown };
    writeFileSync(profile, JSON.stringify(taken));
  }
  // what the kept state holds after the writes (the rows, the graph, the memo, the serializer, the history)
  if (process.env.SVC_BENCH_HEAP) writeHeapSnapshot(process.env.SVC_BENCH_HEAP);
  const med = (v: number[]) => Math.round([...v].sort((a, b) => a - b)[Math.floor(v.length / 2)] * 10) / 10;
  const out = Object.fromEntries(Object.entries(steps).map(([k, v]) => [k, med(v)]));
  process.stdout.write(
    `${JSON.stringify({ items: n, writes, per, kind, ...out, rendered: serializer.rendered, gc_ms_per_write: Math.round((gc.ms / writes) * 10) / 10, ...memoryMb() })}\n`,
  );
}

// The process's memory after the writes, in MB: the heap's live objects and the buffers outside it (typed arrays).
// Run with --expose-gc to count only what is still reachable (a full GC first); without it, garbage counts too.
function memoryMb(): { rss_mb: number; heap_mb: number; buffers_mb: number } {
  (globalThis as { gc?: () => void }).gc?.();
  const { rss, heapUsed, arrayBuffers } = process.memoryUsage();
  const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
  return { rss_mb: mb(rss), heap_mb: mb(heapUsed), buffers_mb: mb(arrayBuffers) };
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`${String(err)}\n`);
    process.exit(1);
  });
}
