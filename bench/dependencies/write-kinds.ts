import { applyDeploymentHalts, computeFrontier, FrontierMemo } from '../../libs/core/src';
import {
  buildProjectGraph,
  GraphReuse,
  patchProjectGraph,
  ProjectGraph,
} from '../../apps/daemon/src/frontier/read-path/frontier-graph';
import { generatedRows } from '../frontier/profile';

// In-process cost of bringing the kept frontier up to date after each kind of write at n items (issue 38 Deliver 3):
// the graph cache's step (patch in place, else rebuild reusing by position) and compute_frontier with the memo.
// `node -r ts-node/register/transpile-only -r tsconfig-paths/register bench/dependencies/write-kinds.ts 100000 [writes]`
// Prints one JSON line: per kind, the median ms of each step.

type Rows = ReturnType<typeof generatedRows>;
type Kind = 'priority' | 'block' | 'freeze' | 'edge-add' | 'edge-remove' | 'new-item' | 'to-done';

function main(): void {
  const n = Number(process.argv[2] ?? 100_000);
  const writes = Number(process.argv[3] ?? 10);
  const rows: Rows = generatedRows(n);
  const reuse = new GraphReuse();
  let graph: ProjectGraph = buildProjectGraph(rows, reuse);
  const memo = new FrontierMemo();
  const compute = () =>
    applyDeploymentHalts(
      computeFrontier({ items: graph.items, edges: graph.activation, blockerFacts: graph.facts, wipCap: 30 }, memo),
      graph.halts,
    );
  let answer = compute();
  let nextId = n + 1;
  let nextEdge = rows.edges.length + 10;
  const kinds: Kind[] = ['priority', 'block', 'freeze', 'edge-add', 'edge-remove', 'new-item', 'to-done'];
  const out: Record<string, { graph: number; core: number }> = {};
  for (const kind of kinds) {
    const g: number[] = [];
    const c: number[] = [];
    for (let w = 0; w < writes; w++) {
      const top = answer.runnable[w % 5] ?? answer.blocked[w];
      const at = rows.candidates.findIndex((r) => r.id === (top.item_id as unknown as number));
      const t0 = performance.now();
      if (kind === 'priority' || kind === 'block' || kind === 'freeze') {
        const before = rows.candidates[at];
        const row =
          kind === 'priority'
            ? { ...before, priority: before.priority === 'high' ? 'low' : 'high' }
            : kind === 'block'
              ? { ...before, blocked: before.blocked ? 0 : 1 }
              : { ...before, frozen: before.frozen ? 0 : 1 };
        rows.candidates[at] = row;
        graph = patchProjectGraph(graph, [row], graph.workflows, reuse);
      } else {
        if (kind === 'edge-add') {
          rows.edges = [
            ...rows.edges,
            {
              id: nextEdge++,
              blocker: 1 + w,
              dependent: rows.candidates[at].id,
              satisfaction: 'status:done',
              g: 'activation',
              r: '',
            },
          ];
        } else if (kind === 'edge-remove') {
          rows.edges = rows.edges.slice(0, -1);
        } else if (kind === 'new-item') {
          rows.candidates = [...rows.candidates, { ...rows.candidates[0], id: nextId, seq: nextId++, title: 'new' }];
        } else {
          rows.candidates = rows.candidates.filter((_, k) => k !== at);
        }
        graph = buildProjectGraph(rows, reuse);
      }
      const t1 = performance.now();
      answer = compute();
      const t2 = performance.now();
      g.push(t1 - t0);
      c.push(t2 - t1);
    }
    const med = (v: number[]) => Math.round([...v].sort((a, b) => a - b)[Math.floor(v.length / 2)] * 10) / 10;
    out[kind] = { graph: med(g), core: med(c) };
  }
  process.stdout.write(`${JSON.stringify({ items: n, writes, ...out })}\n`);
}

main();
