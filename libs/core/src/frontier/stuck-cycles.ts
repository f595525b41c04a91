import { buildCompactGraph, cycleThrough, stronglyConnectedComponents } from '../dependencies/cycles';
import { formatCycle } from '../dependencies/gates';
import type { EdgeResolution } from './edge-resolution';
import type { EdgeStructure } from './edge-structure';
import { FrontierInputItem } from './vocabulary';

// Apart from depth.ts: depth.ts importing edge-structure.ts back would make the two files a loop.
// Cycles of unsatisfied edges can never clear on their own: one named cycle per component, shared by its members.
export function namedStuckCycles(
  items: readonly FrontierInputItem[],
  structure: EdgeStructure,
  resolution: EdgeResolution,
  cycles: number[][],
): Map<number, string> {
  const n = items.length;
  const { blockerOf, dependentOf } = structure;
  const m = blockerOf.length;
  const include = new Uint8Array(m);
  for (let e = 0; e < m; e++) {
    include[e] = resolution.unsatisfied[e] === 1 && blockerOf[e] >= 0 ? 1 : 0;
  }
  const stuck = buildCompactGraph(n, blockerOf, dependentOf, m, include);
  const components = stronglyConnectedComponents(stuck);
  const reasonOfComponent = new Map<number, string>();
  const cycleReason = new Map<number, string>();
  const label = (v: number): string => items[v].ref;
  for (let v = 0; v < n; v++) {
    const component = components.componentOf[v];
    if (components.componentSize[component] === 1 && resolution.selfLoops[v] === 0) {
      continue;
    }
    let reason = reasonOfComponent.get(component);
    if (reason === undefined) {
      const path = cycleThrough(stuck, components.componentOf, v) ?? [v, v];
      cycles.push(path.map((p) => items[p].id));
      reason = formatCycle(path, label);
      reasonOfComponent.set(component, reason);
    }
    cycleReason.set(v, reason);
  }
  return cycleReason;
}
