import type { SvcApi } from '@app/client';

import type { Action } from '../state/actions';
import { initialState, State } from '../state/state';
import { TREE_READS } from '../state/tree';
import { frontier, item, NOW, project } from '../testing/fixtures';
import type { DependencyListEntryWire } from '../wire';
import type { EffectsContext } from './context';
import { Store } from './store';
import { TreeLoader } from './tree-loader';

// `t`'s deeper nodes: the loader reads the stored dependencies of the nodes the open tree asks for, until the tree
// is whole or the budget (TREE_READS) is spent; past it a node is answered "not read".

const flush = async () => {
  for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
};

const entry = (other: string, direction: 'depends_on' | 'blocks'): DependencyListEntryWire =>
  ({
    direction,
    other_item: other,
    other_title: `title of ${other}`,
    other_status: 'planned',
    gate_point: 'activation',
    satisfaction: 'status:done',
    satisfied: false,
    reason: '',
  }) as DependencyListEntryWire;

function setup(graph: (ref: string) => DependencyListEntryWire[]) {
  const store = new Store(initialState({ now: NOW }));
  const dependencies = jest.fn(async (ref: string) => ({ item_id: ref, dependencies: graph(ref) }));
  const ctx = {
    config: { api: { dependencies } as unknown as SvcApi },
    get state(): State {
      return store.state;
    },
    stopped: false,
    dispatch: (a: Action) => store.dispatch(a),
  } as unknown as EffectsContext;
  const loader = new TreeLoader(ctx);
  store.subscribe((_a, previous, next) => loader.onAction(previous, next));
  store.dispatch({ type: 'projects_loaded', projects: [project('atlas')] });
  store.dispatch({ type: 'frontier_loaded', project: 'atlas', frontier: frontier([item(1)]) });
  return { store, dependencies };
}

const open = (store: Store, out: string[]) => {
  store.dispatch({ type: 'key', action: 'dep_tree' });
  store.dispatch({
    type: 'detail_loaded',
    ref: 'ATL-1',
    data: {
      part: 'edges',
      edges: out.map((o) => ({
        side: 'out' as const,
        gate_point: 'completion',
        other: o,
        other_title: null,
        state: 'planned',
        satisfaction: 'status:done',
        satisfied: false,
        reason: '',
        need: null,
        abandoned: false,
        environment: null,
      })),
    },
  });
};

describe(TreeLoader.name, () => {
  it('should read each node down to the depth cut once, and the tree fills in', async () => {
    // ATL-1 ← ATL-2 ← ATL-3 ← ATL-4 ← ATL-5
    const chain: Record<string, string> = { 'ATL-2': 'ATL-3', 'ATL-3': 'ATL-4', 'ATL-4': 'ATL-5' };
    const { store, dependencies } = setup((ref) => (chain[ref] ? [entry(chain[ref], 'blocks')] : []));
    open(store, ['ATL-2']);
    await flush();
    expect(dependencies.mock.calls.map((c) => c[0]).sort()).toEqual(['ATL-2', 'ATL-3', 'ATL-4']);
    const d = store.state.dialog;
    if (d?.kind !== 'picker') throw new Error('no tree');
    expect(d.options!.map((o) => o.label)).toEqual([
      '↑ waits on nothing',
      '● ATL-1 Item number 1',
      '↓ ATL-2',
      '  ↓ ATL-3 title of ATL-3',
      '    ↓ ATL-4 title of ATL-4',
      '      … 1 more downstream of ATL-4',
    ]);
  });

  it('should stop at its budget and say "not read" on the rest', async () => {
    // a wide tree: the item unblocks 10, each of those 5, each of those 5 (10 + 50 + 250 nodes)
    const { store, dependencies } = setup((ref) => {
      const n = Number(ref.slice(4));
      return n < 1000 ? [1, 2, 3, 4, 5].map((k) => entry(`ATL-${n * 10 + k}`, 'blocks')) : [];
    });
    open(
      store,
      Array.from({ length: 10 }, (_, i) => `ATL-${i + 10}`),
    );
    await flush();
    expect(dependencies).toHaveBeenCalledTimes(TREE_READS);
    const d = store.state.dialog;
    if (d?.kind !== 'picker') throw new Error('no tree');
    // the depth-3 nodes past the budget say so on their rows; none is left "loading"
    const rows = d.options!.map((o) => `${o.label} | ${o.note ?? ''}`);
    expect(rows.filter((l) => l.includes('beyond not read')).length).toBeGreaterThan(0);
    expect(rows.some((l) => l.includes('loading'))).toBe(false);
  });
});
