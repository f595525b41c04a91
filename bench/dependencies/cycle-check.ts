import { performance } from 'node:perf_hooks';

import { ActivationGraph, findCycleIfAdded, shortestCycleIfAdded } from '../../libs/core/src';
import { generateBacklog, mulberry32 } from '../frontier/generate';

// In-process cost of a dependency add's cycle check on the frontier bench's generated backlog (seed 42), by kind of
// edge: from an older blocker to a newer dependent (bench:live's mixed writes: never a cycle), and the other way
// (usually a cycle, refused). Before issue 38 the daemon read every activation edge past 32 levels of blockers and
// ran findCycleIfAdded over them ("all edges", the load excluded); now ActivationGraph (labels, then a bidirectional
// search between them) and, for comparison, the bidirectional search with no labels.
// `node -r ts-node/register/transpile-only -r tsconfig-paths/register bench/dependencies/cycle-check.ts 100000 [checks]`
function main(): void {
  const n = Number(process.argv[2] ?? 100_000);
  const checks = Number(process.argv[3] ?? 200);
  const { items, edges } = generateBacklog(n, 42);
  const pairs = edges.map((e) => ({ blocker: e.blocker, dependent: e.dependent }));
  const open = items.flatMap((item, i) => (['done', 'cancelled', 'stopped'].includes(item.status ?? '') ? [] : [i]));
  const random = mulberry32(38);
  const pick = () => open[Math.floor(random() * open.length)];
  const t0 = performance.now();
  const graph = new ActivationGraph();
  graph.load(pairs.map((p, id) => [id, p.blocker, p.dependent] as const));
  const loadMs = performance.now() - t0;
  const down = new Map<number, number[]>();
  const up = new Map<number, number[]>();
  for (const p of pairs) {
    down.set(p.blocker, [...(down.get(p.blocker) ?? []), p.dependent]);
    up.set(p.dependent, [...(up.get(p.dependent) ?? []), p.blocker]);
  }
  const out: Record<string, Record<string, number>> = {};
  for (const direction of ['older blocker', 'newer blocker'] as const) {
    const cases = Array.from({ length: checks }, () => {
      const [a, b] = [pick(), pick()];
      const [older, newer] = a < b ? [a, b] : [b, a];
      return direction === 'older blocker'
        ? { blocker: older, dependent: newer }
        : { blocker: newer, dependent: older };
    });
    const time = (check: (c: { blocker: number; dependent: number }) => unknown, count = cases.length) => {
      const ms: number[] = [];
      let cycles = 0;
      for (const c of cases.slice(0, count)) {
        const s = performance.now();
        if (check(c)) cycles++;
        ms.push(performance.now() - s);
      }
      ms.sort((x, y) => x - y);
      const at = (p: number) => Math.round(ms[Math.min(ms.length - 1, Math.ceil(p * ms.length) - 1)] * 100) / 100;
      return { p50_ms: at(0.5), p99_ms: at(0.99), cycles, of: ms.length };
    };
    const row = {
      labels: time((c) => graph.cycleIfAdded(c.blocker, c.dependent)),
      bidirectional: time((c) => shortestCycleIfAdded(c, down, up)),
      all_edges: time((c) => findCycleIfAdded(pairs, c), 10),
    };
    out[direction] = Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v])) as never;
  }
  process.stdout.write(`${JSON.stringify({ items: n, edges: pairs.length, load_ms: Math.round(loadMs), ...out })}\n`);
}

main();
