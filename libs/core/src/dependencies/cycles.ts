export interface DependencyPair {
  blocker: number;
  dependent: number;
}

// Compressed adjacency over dense node indices 0..nodeCount-1; targets of node v are
// targets[offsets[v]] .. targets[offsets[v + 1] - 1], in input edge order.
export interface CompactGraph {
  nodeCount: number;
  offsets: Int32Array;
  targets: Int32Array;
}

export function buildCompactGraph(
  nodeCount: number,
  from: Int32Array,
  to: Int32Array,
  edgeCount: number,
  include?: Uint8Array,
): CompactGraph {
  const offsets = new Int32Array(nodeCount + 1);
  let kept = 0;
  for (let e = 0; e < edgeCount; e++) {
    if (include && include[e] === 0) {
      continue;
    }
    offsets[from[e] + 1]++;
    kept++;
  }
  for (let v = 0; v < nodeCount; v++) {
    offsets[v + 1] += offsets[v];
  }
  const cursor = offsets.slice(0, nodeCount);
  const targets = new Int32Array(kept);
  for (let e = 0; e < edgeCount; e++) {
    if (include && include[e] === 0) {
      continue;
    }
    targets[cursor[from[e]]++] = to[e];
  }
  return { nodeCount, offsets, targets };
}

export interface StronglyConnectedComponents {
  // ids in emission order, a reverse topological order of the condensation: every edge leaving a component points
  // to a smaller id
  componentOf: Int32Array;
  componentSize: Int32Array;
  componentCount: number;
  order: Int32Array;
}

// Tarjan's algorithm with explicit stacks: linear, and safe on chains far deeper than the call stack.
export function stronglyConnectedComponents(graph: CompactGraph): StronglyConnectedComponents {
  const n = graph.nodeCount;
  const { offsets, targets } = graph;
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const stack = new Int32Array(n);
  const callNode = new Int32Array(n);
  const callEdge = new Int32Array(n);
  const componentOf = new Int32Array(n);
  const componentSizes: number[] = [];
  const order = new Int32Array(n);
  let orderLength = 0;
  let stackTop = 0;
  let counter = 0;
  let componentCount = 0;

  for (let root = 0; root < n; root++) {
    if (index[root] !== -1) {
      continue;
    }
    index[root] = low[root] = counter++;
    stack[stackTop++] = root;
    onStack[root] = 1;
    callNode[0] = root;
    callEdge[0] = offsets[root];
    let depth = 1;
    while (depth > 0) {
      const v = callNode[depth - 1];
      const slot = callEdge[depth - 1];
      if (slot < offsets[v + 1]) {
        callEdge[depth - 1] = slot + 1;
        const w = targets[slot];
        if (index[w] === -1) {
          index[w] = low[w] = counter++;
          stack[stackTop++] = w;
          onStack[w] = 1;
          callNode[depth] = w;
          callEdge[depth] = offsets[w];
          depth++;
        } else if (onStack[w] === 1 && index[w] < low[v]) {
          low[v] = index[w];
        }
        continue;
      }
      depth--;
      if (depth > 0) {
        const parent = callNode[depth - 1];
        if (low[v] < low[parent]) {
          low[parent] = low[v];
        }
      }
      if (low[v] === index[v]) {
        let size = 0;
        let w: number;
        do {
          w = stack[--stackTop];
          onStack[w] = 0;
          componentOf[w] = componentCount;
          order[orderLength++] = w;
          size++;
        } while (w !== v);
        componentSizes.push(size);
        componentCount++;
      }
    }
  }
  return { componentOf, componentSize: Int32Array.from(componentSizes), componentCount, order };
}

export function cycleThrough(graph: CompactGraph, componentOf: Int32Array, start: number): number[] | null {
  const { offsets, targets } = graph;
  const component = componentOf[start];
  for (let slot = offsets[start]; slot < offsets[start + 1]; slot++) {
    if (targets[slot] === start) {
      return [start, start];
    }
  }
  const parent = new Map<number, number>([[start, -1]]);
  const queue: number[] = [start];
  for (let head = 0; head < queue.length; head++) {
    const v = queue[head];
    for (let slot = offsets[v]; slot < offsets[v + 1]; slot++) {
      const w = targets[slot];
      if (componentOf[w] !== component) {
        continue;
      }
      if (w === start) {
        const path: number[] = [start];
        for (let u = v; u !== start; u = parent.get(u) as number) {
          path.push(u);
        }
        path.push(start);
        path.reverse();
        return path;
      }
      if (!parent.has(w)) {
        parent.set(w, v);
        queue.push(w);
      }
    }
  }
  return null;
}

// Edges point blocker → dependent; the cycle returned is [dependent, ..., blocker, dependent], a shortest one.
export function findCycleIfAdded(edges: readonly DependencyPair[], newEdge: DependencyPair): number[] | null {
  const { blocker, dependent } = newEdge;
  if (blocker === dependent) {
    return [dependent, dependent];
  }
  const indexOf = new Map<number, number>();
  const ids: number[] = [];
  const intern = (id: number): number => {
    let index = indexOf.get(id);
    if (index === undefined) {
      index = ids.length;
      indexOf.set(id, index);
      ids.push(id);
    }
    return index;
  };
  const from = new Int32Array(edges.length);
  const to = new Int32Array(edges.length);
  for (let e = 0; e < edges.length; e++) {
    from[e] = intern(edges[e].blocker);
    to[e] = intern(edges[e].dependent);
  }
  const start = indexOf.get(dependent);
  const goal = indexOf.get(blocker);
  if (start === undefined || goal === undefined) {
    return null;
  }
  const graph = buildCompactGraph(ids.length, from, to, edges.length);
  const parent = new Int32Array(ids.length).fill(-2);
  parent[start] = -1;
  const queue = new Int32Array(ids.length);
  let tail = 0;
  queue[tail++] = start;
  for (let head = 0; head < tail; head++) {
    const v = queue[head];
    if (v === goal) {
      const path: number[] = [];
      for (let u = v; u !== -1; u = parent[u]) {
        path.push(ids[u]);
      }
      path.reverse();
      path.push(dependent);
      return path;
    }
    for (let slot = graph.offsets[v]; slot < graph.offsets[v + 1]; slot++) {
      const w = graph.targets[slot];
      if (parent[w] === -2) {
        parent[w] = v;
        queue[tail++] = w;
      }
    }
  }
  return null;
}
