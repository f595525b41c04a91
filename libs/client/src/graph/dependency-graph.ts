import type { FrontierListResponse } from '@app/contracts';

import type { SvcApi } from '../api';

// Edges point from the blocker to the dependent (the way work flows). A graph over the node limit is cut, and says
// so (`truncated`, and a note node in the pictures).

export type NodeBucket = 'runnable' | 'blocked' | 'frozen' | 'other';

export interface GraphNode {
  ref: string;
  title: string;
  status: string;
  bucket: NodeBucket;
  frozen: boolean;
  root: boolean;
  critical: boolean;
}

export interface GraphEdge {
  blocker: string;
  dependent: string;
  gate_point: string;
  satisfied: boolean;
  critical: boolean;
}

export interface DependencyGraph {
  project: string;
  root: string | null;
  depth: number | null;
  nodes: GraphNode[];
  edges: GraphEdge[];
  critical_path: string[];
  truncated: { shown: number; total: number; note: string } | null;
}

export const DEFAULT_MAX_NODES = 200;

function bucketsOf(list: FrontierListResponse): Map<string, { bucket: NodeBucket; title: string; status: string }> {
  const out = new Map<string, { bucket: NodeBucket; title: string; status: string }>();
  for (const [rows, bucket] of [
    [list.ready_rows, 'runnable'],
    [list.blocked_rows, 'blocked'],
    [list.frozen_rows, 'frozen'],
  ] as const) {
    for (const r of rows) out.set(r.item_id, { bucket, title: r.title, status: r.status });
  }
  return out;
}

export function longestBlockedChain(edges: GraphEdge[]): string[] {
  const into = new Map<string, string[]>();
  for (const e of edges) {
    if (e.satisfied || e.gate_point !== 'activation') continue;
    into.set(e.dependent, [...(into.get(e.dependent) ?? []), e.blocker]);
  }
  const best = new Map<string, string[]>();
  const onStack = new Set<string>();
  const chain = (ref: string): string[] => {
    const known = best.get(ref);
    if (known) return known;
    onStack.add(ref);
    let longest: string[] = [];
    for (const b of into.get(ref) ?? []) {
      if (onStack.has(b)) continue;
      const c = chain(b);
      if (c.length > longest.length) longest = c;
    }
    onStack.delete(ref);
    const result = [...longest, ref];
    best.set(ref, result);
    return result;
  };
  let top: string[] = [];
  for (const ref of into.keys()) {
    const c = chain(ref);
    if (c.length > top.length) top = c;
  }
  return top.length > 1 ? top : [];
}

function markCritical(graph: DependencyGraph): void {
  const path = graph.critical_path;
  const pairs = new Set<string>();
  for (let i = 0; i + 1 < path.length; i++) pairs.add(`${path[i]}>${path[i + 1]}`);
  const onPath = new Set(path);
  for (const n of graph.nodes) n.critical = onPath.has(n.ref);
  for (const e of graph.edges) {
    e.critical = pairs.has(`${e.blocker}>${e.dependent}`) || pairs.has(`${e.dependent}>${e.blocker}`);
  }
}

// Nearest the root first (or the project's rank order), so the cut keeps what matters.
export function cutGraph(graph: DependencyGraph, max: number): DependencyGraph {
  if (graph.nodes.length <= max) return graph;
  const keep = new Set(graph.nodes.slice(0, max).map((n) => n.ref));
  const total = graph.nodes.length;
  return {
    ...graph,
    nodes: graph.nodes.filter((n) => keep.has(n.ref)),
    edges: graph.edges.filter((e) => keep.has(e.blocker) && keep.has(e.dependent)),
    truncated: {
      shown: max,
      total,
      note: `graph cut: ${max} of ${total} items shown (${graph.root ? 'lower --depth, or raise' : 'raise'} --max-nodes)`,
    },
  };
}

export async function projectGraph(
  api: SvcApi,
  project: string,
  maxNodes = DEFAULT_MAX_NODES,
): Promise<DependencyGraph> {
  const list = await api.frontierList({ project });
  const buckets = bucketsOf(list);
  const nodes = new Map<string, GraphNode>();
  const node = (ref: string, title: string, status: string, bucket: NodeBucket) => {
    if (!nodes.has(ref)) {
      nodes.set(ref, { ref, title, status, bucket, frozen: bucket === 'frozen', root: false, critical: false });
    }
  };
  for (const [ref, b] of buckets) node(ref, b.title, b.status, b.bucket);
  const edges: GraphEdge[] = [];
  const seen = new Set<string>();
  for (const e of list.dependency_edges) {
    if (e.blocker === null) continue;
    const key = `${e.blocker}>${e.dependent}@${e.gate_point}`;
    if (seen.has(key)) continue;
    seen.add(key);
    node(e.blocker, e.blocker_title ?? '', e.blocker_stage ?? '?', 'other');
    edges.push({
      blocker: e.blocker,
      dependent: e.dependent,
      gate_point: e.gate_point,
      satisfied: false,
      critical: false,
    });
  }
  const graph: DependencyGraph = {
    project: list.project,
    root: null,
    depth: null,
    nodes: [...nodes.values()],
    edges,
    critical_path: longestBlockedChain(edges),
    truncated: null,
  };
  markCritical(graph);
  return cutGraph(graph, maxNodes);
}

export async function itemGraph(
  api: SvcApi,
  ref: string,
  depth = 2,
  maxNodes = DEFAULT_MAX_NODES,
): Promise<DependencyGraph> {
  const [item, explain] = await Promise.all([api.item(ref), api.explain(ref)]);
  const root = item.item_id;
  const buckets = bucketsOf(await api.frontierList({ project: explain.project }));
  const nodes = new Map<string, GraphNode>();
  const node = (at: string, title: string, status: string) => {
    if (nodes.has(at)) return;
    const b = buckets.get(at);
    const bucket = b?.bucket ?? 'other';
    nodes.set(at, { ref: at, title, status, bucket, frozen: bucket === 'frozen', root: at === root, critical: false });
  };
  node(root, item.title, item.status);
  if (item.frozen === 1) nodes.get(root)!.frozen = true;
  const edges = new Map<string, GraphEdge>();
  let frontier = [root];
  const visited = new Set<string>([root]);
  for (let level = 0; level < depth && frontier.length > 0 && nodes.size <= maxNodes; level++) {
    const next: string[] = [];
    const lists = await Promise.all(frontier.map((at) => api.dependencies(at, { direction: 'both' })));
    lists.forEach((list, i) => {
      const at = frontier[i];
      for (const d of list.dependencies) {
        if (d.other_item === null) continue;
        const other = d.other_item;
        node(other, d.other_title ?? '', d.other_status ?? '?');
        const [blocker, dependent] = d.direction === 'depends_on' ? [other, at] : [at, other];
        const key = `${blocker}>${dependent}@${d.gate_point}`;
        if (!edges.has(key)) {
          edges.set(key, { blocker, dependent, gate_point: d.gate_point, satisfied: d.satisfied, critical: false });
        }
        if (!visited.has(other)) {
          visited.add(other);
          next.push(other);
        }
      }
    });
    frontier = next;
  }
  // frontier explain's critical path runs from the item up to the start: drawn from the start down
  const graph: DependencyGraph = {
    project: explain.project,
    root,
    depth,
    nodes: [...nodes.values()],
    edges: [...edges.values()],
    critical_path: [...explain.critical_path].reverse(),
    truncated: null,
  };
  markCritical(graph);
  return cutGraph(graph, maxNodes);
}
