import { buildCompactGraph, CompactGraph, cycleThrough, stronglyConnectedComponents } from '../dependencies/cycles';
import { formatCycle } from '../dependencies/gates';
import { EdgeResolution } from './edge-resolution';
import { FrontierInputItem } from './vocabulary';

// Step 4: downstream_depth. Tarjan emits components sinks-first, so every dependent outside a node's own
// component is final before the node; edges inside a component (cycle edges) are ignored.
export function downstreamDepth(graph: CompactGraph, depth: Int32Array): boolean {
  const { offsets, targets } = graph;
  const { componentOf, order } = stronglyConnectedComponents(graph);
  let hasCycle = false;
  for (let k = 0; k < order.length; k++) {
    const v = order[k];
    const component = componentOf[v];
    let best = 0;
    for (let slot = offsets[v]; slot < offsets[v + 1]; slot++) {
      const w = targets[slot];
      if (componentOf[w] === component) {
        hasCycle = true;
      } else if (depth[w] + 1 > best) {
        best = depth[w] + 1;
      }
    }
    depth[v] = best;
  }
  return hasCycle;
}

// Cycles made only of unsatisfied edges can never clear on their own: one named cycle per such component,
// shared by all its members.
export function namedStuckCycles(
  items: readonly FrontierInputItem[],
  resolution: EdgeResolution,
  cycles: number[][],
): Map<number, string> {
  const n = items.length;
  const m = resolution.unsatisfied.length;
  const include = new Uint8Array(m);
  for (let e = 0; e < m; e++) {
    include[e] = resolution.unsatisfied[e] === 1 && resolution.blockerOf[e] >= 0 ? 1 : 0;
  }
  const stuck = buildCompactGraph(n, resolution.blockerOf, resolution.dependentOf, m, include);
  const components = stronglyConnectedComponents(stuck);
  const reasonOfComponent = new Map<number, string>();
  const cycleReason = new Map<number, string>();
  const label = (v: number): string => items[v].ref;
  for (let v = 0; v < n; v++) {
    const component = components.componentOf[v];
    if (components.componentSize[component] === 1 && resolution.selfLoop[v] === 0) {
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
