import type { DetailEdge } from './edges';
import type { Detail, FrontierTab, PickerOption, State } from './state';

// Upstream first, then the item, then downstream. A deeper node's edges come from its pane when seen, else from its
// stored dependencies, read by the effects for the rows shown. Every cut (TREE_DEPTH, TREE_FANOUT, a node reached
// twice, a node not read) is said on a row of its own, never silently; the critical path is followed to its start
// past the depth cut.

export const TREE_DEPTH = 3;
export const TREE_ROOT_FANOUT = 10;
export const TREE_FANOUT = 5;
export const TREE_READS = 60;

const BUCKETS: readonly FrontierTab[] = ['runnable', 'blocked', 'frozen'];
export const TASK_PREFIX = 'task:';

function titleOf(state: State, ref: string): string {
  for (const tab of BUCKETS) {
    const row = state.frontier?.[tab].find((r) => r.item_id === ref);
    if (row) return row.title;
  }
  return state.detailCache[ref]?.item?.title ?? '';
}

function edgeNote(e: DetailEdge): string {
  return [e.gate_point, e.satisfied ? 'satisfied' : 'unsatisfied', e.state ?? (e.abandoned ? 'abandoned' : '?')].join(
    ' · ',
  );
}

function rootDetail(state: State, ref: string): Detail | null | undefined {
  return state.detail?.ref === ref ? state.detail : state.detailCache[ref];
}

// The pane's edges are the fullest. undefined: not read yet; null: the read was not made or failed.
function edgesOf(state: State, ref: string): DetailEdge[] | null | undefined {
  const seen = state.detailCache[ref]?.edges;
  if (seen) return seen;
  return state.treeEdges?.[ref];
}

const indent = (depth: number) => '  '.repeat(depth - 1);

interface Walk {
  state: State;
  side: 'in' | 'out';
  arrow: string;
  out: PickerOption[];
  seen: Set<string>;
  wants: string[];
  path: string[];
}

function expand(w: Walk, ref: string, edges: DetailEdge[], depth: number, onPath: boolean): void {
  const all = edges.filter((e) => e.side === w.side);
  // past the depth cut only the critical path goes on
  const pathNext = onPath && w.side === 'in' ? w.path[depth] : undefined;
  const beyond = depth > TREE_DEPTH;
  const fanout = depth === 1 ? TREE_ROOT_FANOUT : TREE_FANOUT;
  const chosen = beyond ? all.filter((e) => e.other === pathNext).slice(0, 1) : all.slice(0, fanout);
  // the critical path's next node is never cut by the fan-out
  if (!beyond && pathNext !== undefined && !chosen.some((e) => e.other === pathNext)) {
    const e = all.find((x) => x.other === pathNext);
    if (e) chosen[chosen.length - 1] = e;
  }
  for (const e of chosen) {
    const other = e.other;
    const onPathHere = pathNext !== undefined && other === pathNext;
    const pathWord = onPathHere ? (depth === w.path.length - 1 ? ' · critical path start' : ' · critical path') : '';
    const title = e.other_title ?? (other ? titleOf(w.state, other) : '');
    const again = other !== null && w.seen.has(other);
    w.out.push({
      value: other ?? '',
      label: `${indent(depth)}${w.arrow} ${other ?? '(deleted item)'} ${title}`.trimEnd(),
      note: edgeNote(e) + pathWord + (again ? ' · shown above' : ''),
    });
    if (other === null || again) continue;
    w.seen.add(other);
    const deeper = depth + 1;
    if (deeper > TREE_DEPTH && !onPathHere) {
      const next = edgesOf(w.state, other);
      if (next === undefined) w.wants.push(other);
      // not read (over the budget): said on the node's own row rather than a row per node
      if (next === null) w.out[w.out.length - 1].note += ' · beyond not read';
      const n = next ? next.filter((x) => x.side === w.side).length : 0;
      if (n > 0)
        w.out.push({
          value: other,
          label: `${indent(deeper)}… ${n} more ${w.side === 'in' ? 'upstream' : 'downstream'} of ${other}`,
          note: `beyond ${TREE_DEPTH} levels · t on ${other} shows them`,
        });
      continue;
    }
    const next = edgesOf(w.state, other);
    if (next === undefined) {
      w.wants.push(other);
      w.out.push({ value: other, label: `${indent(deeper)}… loading the edges of ${other}` });
    } else if (next === null) {
      w.out.push({
        value: other,
        label: `${indent(deeper)}… edges of ${other} not read`,
        note: `over the ${TREE_READS} reads of one tree, or the read failed · t on ${other} shows them`,
      });
    } else {
      expand(w, other, next, deeper, onPathHere);
    }
  }
  const cut = all.length - chosen.length;
  if (cut > 0)
    w.out.push({
      value: '',
      label: `${indent(depth)}… ${cut} more ${w.side === 'in' ? `that ${ref} waits on` : `waiting on ${ref}`}`,
      note: beyond ? 'off the critical path' : `${fanout} shown · t on ${ref} lists all`,
    });
}

function walk(state: State, ref: string): { options: PickerOption[]; wants: string[] } | null {
  const detail = rootDetail(state, ref);
  if (!detail || detail.edges === null) return null;
  const edges = detail.edges;
  const path = detail.explain?.critical_path ?? [];
  const out: PickerOption[] = [];
  const wants: string[] = [];
  const up: Walk = { state, side: 'in', arrow: '↑', out: [], seen: new Set([ref]), wants, path };
  expand(up, ref, edges, 1, path[0] === ref);
  const down: Walk = { state, side: 'out', arrow: '↓', out: [], seen: new Set([ref]), wants, path };
  expand(down, ref, edges, 1, false);
  if (up.out.length === 0) out.push({ value: '', label: '↑ waits on nothing' });
  out.push(...up.out);
  out.push({ value: ref, label: `● ${ref} ${titleOf(state, ref)}`.trimEnd(), note: 'this item', current: true });
  if (down.out.length === 0) out.push({ value: '', label: '↓ unblocks nothing' });
  out.push(...down.out);
  for (const t of detail.epicTasks ?? []) {
    const deps = t.dependencies.length > 0 ? `after ${t.dependencies.join(', ')}` : 'no task dependencies';
    out.push({
      value: `${TASK_PREFIX}${t.task_num}`,
      label: `◇ task ${t.task_num} ${t.title ?? ''}`.trimEnd(),
      note: `${t.status} · ${deps} · enter opens it`,
    });
  }
  return { options: out, wants: [...new Set(wants)] };
}

export function treeOptions(state: State, ref: string): PickerOption[] | null {
  return walk(state, ref)?.options ?? null;
}

export function treeWants(state: State): string[] {
  const d = state.dialog;
  if (d?.kind !== 'picker' || d.purpose !== 'tree') return [];
  return walk(state, d.refs[0])?.wants ?? [];
}

export function refreshTree(state: State): State {
  const d = state.dialog;
  if (d?.kind !== 'picker' || d.purpose !== 'tree') return state;
  const options = treeOptions(state, d.refs[0]);
  return options ? { ...state, dialog: { ...d, options } } : state;
}

export function treeEdgesLoaded(
  state: State,
  action: { root: string; ref: string; edges: DetailEdge[] | null },
): State {
  const d = state.dialog;
  if (d?.kind !== 'picker' || d.purpose !== 'tree' || d.refs[0] !== action.root) return state;
  return refreshTree({ ...state, treeEdges: { ...state.treeEdges, [action.ref]: action.edges } });
}

export function taskView(state: State, epic: string, num: number): State | null {
  const t = rootDetail(state, epic)?.epicTasks?.find((x) => x.task_num === num);
  if (!t) return null;
  const lines = [
    `status ${t.status} · attempts ${t.dispatch_attempts} of ${t.max_attempts}`,
    `depends on tasks: ${t.dependencies.length > 0 ? t.dependencies.join(', ') : 'none'}`,
  ];
  if (t.context_estimate) lines.push(`context estimate: ${t.context_estimate}`);
  if (t.worktree) lines.push(`worktree: ${t.worktree}${t.worktree_path ? ` (${t.worktree_path})` : ''}`);
  if (t.branch) lines.push(`branch: ${t.branch}`);
  if (t.agent_id) lines.push(`agent: ${t.agent_id}`);
  if (t.github_issue) lines.push(`issue: ${t.github_issue}`);
  if (t.body) lines.push('', ...t.body.split('\n'));
  return {
    ...state,
    dialog: { kind: 'view', title: ` ${epic} task ${t.task_num}: ${t.title ?? ''} `, lines, scroll: 0 },
  };
}
