import { CompactGraph, stronglyConnectedComponents } from '../dependencies/cycles';

// Step 4 on an acyclic graph (the usual one): Kahn's order over the reversed edges, sinks first. False, with depth
// left partial, when a cycle keeps some item from being reached.
export function acyclicDepth(
  graphOut: Int32Array,
  inStart: Int32Array,
  inEdges: Int32Array,
  blockerOf: Int32Array,
  depth: Int32Array,
): boolean {
  const n = graphOut.length;
  const remaining = graphOut.slice();
  const queue = new Int32Array(n);
  let tail = 0;
  for (let v = 0; v < n; v++) {
    if (remaining[v] === 0) {
      queue[tail++] = v;
    }
  }
  for (let head = 0; head < tail; head++) {
    const w = queue[head];
    const reach = depth[w] + 1;
    for (let slot = inStart[w]; slot < inStart[w + 1]; slot++) {
      const b = blockerOf[inEdges[slot]];
      if (b < 0 || b === w) {
        continue;
      }
      if (depth[b] < reach) {
        depth[b] = reach;
      }
      if (--remaining[b] === 0) {
        queue[tail++] = b;
      }
    }
  }
  return tail === n;
}

// Step 4 over any graph: downstream_depth. Tarjan emits components sinks-first, so every dependent outside a
// node's own component is final before the node; edges inside a component (cycle edges) are ignored.
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
