import type { DetailEdge } from './edges';
import type { Detail, FrontierTab, PickerOption, State } from './state';

// `t`: the selected item's dependency tree as picker rows (issue 25, item 10). Built only from what the detail pane
// already loads (GET /v1/items/:ref/dependencies both ways, frontier.list's edges, frontier explain): upstream, each
// blocker with its gate point, satisfied or not and its status, the critical path followed to its start under the
// blocker it goes through; then the item; then downstream, what it unblocks. A row's value is the other item's ref:
// `enter` jumps to it.

const BUCKETS: readonly FrontierTab[] = ['runnable', 'blocked', 'frozen'];

function statusOf(state: State, ref: string): string | null {
  for (const tab of BUCKETS) {
    const row = state.frontier?.[tab].find((r) => r.item_id === ref);
    if (row) return tab === 'runnable' ? row.status : `${row.status}, ${tab}`;
  }
  return state.detailCache[ref]?.explain?.status ?? null;
}

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

// The gate point of a deeper hop of the critical path, when that blocker's pane was seen (detail cache).
function hopGate(state: State, dependent: string, blocker: string): string {
  const e = state.detailCache[dependent]?.edges?.find((x) => x.side === 'in' && x.other === blocker);
  return e ? e.gate_point : '—';
}

export function treeOptions(state: State, ref: string): PickerOption[] | null {
  const detail: Detail | null | undefined = state.detail?.ref === ref ? state.detail : state.detailCache[ref];
  if (!detail || detail.edges === null) return null;
  const edges = detail.edges;
  const path = detail.explain?.critical_path ?? [];
  const out: PickerOption[] = [];
  const upstream = edges.filter((e) => e.side === 'in');
  const downstream = edges.filter((e) => e.side === 'out');
  if (upstream.length === 0) out.push({ value: '', label: '↑ waits on nothing' });
  for (const e of upstream) {
    out.push({
      value: e.other ?? '',
      label: `↑ ${e.other ?? '(deleted item)'} ${e.other_title ?? ''}`.trimEnd(),
      note: edgeNote(e),
    });
    // the critical path through this blocker, to its start (path: item, blocker, …, start)
    if (path[1] !== undefined && path[1] === e.other) {
      for (let i = 2; i < path.length; i++) {
        const hop = path[i];
        out.push({
          value: hop,
          label: `${'  '.repeat(i - 1)}↑ ${hop} ${titleOf(state, hop)}`.trimEnd(),
          note:
            [hopGate(state, path[i - 1], hop), 'unsatisfied', statusOf(state, hop) ?? '?'].join(' · ') +
            (i === path.length - 1 ? ' · critical path start' : ''),
        });
      }
    }
  }
  out.push({ value: ref, label: `● ${ref} ${titleOf(state, ref)}`.trimEnd(), note: 'this item', current: true });
  if (downstream.length === 0) out.push({ value: '', label: '↓ unblocks nothing' });
  for (const e of downstream) {
    out.push({
      value: e.other ?? '',
      label: `↓ ${e.other ?? '(deleted item)'} ${e.other_title ?? (e.other ? titleOf(state, e.other) : '')}`.trimEnd(),
      note: edgeNote(e),
    });
  }
  return out;
}

// A loaded part of the detail: an open tree of that item is rebuilt.
export function refreshTree(state: State): State {
  const d = state.dialog;
  if (d?.kind !== 'picker' || d.purpose !== 'tree') return state;
  const options = treeOptions(state, d.refs[0]);
  return options ? { ...state, dialog: { ...d, options } } : state;
}
