import { validateKeymap } from '../keys/keymap';
import { footerHints, helpRows } from '../keys/help';
import { frontier, item, NOW, project } from '../testing/fixtures';
import type { ExplainResponse } from '../wire';
import type { Action } from './actions';
import type { DetailEdge } from './edges';
import { reduce } from './reduce';
import { initialState, State } from './state';
import { treeWants } from './tree';

// `t`: the dependency tree as a reducer state.

const key = (action: Extract<Action, { type: 'key' }>['action']): Action => ({ type: 'key', action });
const run = (state: State, ...actions: Action[]) => actions.reduce(reduce, state);

const edge = (side: 'in' | 'out', other: string, satisfied: boolean, state: string): DetailEdge => ({
  side,
  gate_point: side === 'in' ? 'activation' : 'completion',
  other,
  other_title: `title of ${other}`,
  state,
  satisfaction: 'status:done',
  satisfied,
  reason: '',
  need: null,
  abandoned: false,
  environment: null,
});

function onBlocked(): State {
  return run(
    initialState({ now: NOW }),
    { type: 'projects_loaded', projects: [project('atlas')] },
    {
      type: 'frontier_loaded',
      project: 'atlas',
      frontier: frontier(
        [item(1), item(2)],
        [item(90, { blocked_by: ['ATL-91'] }), item(91, { blocked_by: ['ATL-1'] })],
        [item(80)],
      ),
    },
    key('tab_blocked'),
  );
}

describe('dependency tree', () => {
  it('is on t in the frontier tabs, in the help and the footer', () => {
    expect(() => validateKeymap()).not.toThrow();
    expect(helpRows('frontier').map((r) => r.keys)).toContain('t');
    expect(footerHints('frontier', true).map((h) => h.label)).toContain('tree');
  });

  it('opens on the selected item, fills in when the pane loads, and enter jumps to a node', () => {
    let s = reduce(onBlocked(), key('dep_tree'));
    expect(s.dialog).toMatchObject({ kind: 'picker', purpose: 'tree', refs: ['ATL-90'], options: null });
    expect(s.detailOpen).toBe(true);
    const explain = { item_id: 'ATL-90', status: 'planned', critical_path: ['ATL-90', 'ATL-91', 'ATL-1'] };
    s = run(
      s,
      { type: 'detail_loaded', ref: 'ATL-90', data: { part: 'explain', value: explain as unknown as ExplainResponse } },
      {
        type: 'detail_loaded',
        ref: 'ATL-90',
        data: {
          part: 'edges',
          edges: [
            edge('in', 'ATL-91', false, 'planned'),
            edge('in', 'ATL-2', true, 'done'),
            edge('out', 'ATL-80', false, 'planned'),
          ],
        },
      },
    );
    const rows = (x: State) => {
      const d = x.dialog;
      if (d?.kind !== 'picker') throw new Error('no tree');
      return d.options!.map((o) => `${o.label} | ${o.note ?? ''}`);
    };
    // the deeper nodes' edges are read by the effects: until then their rows say so
    expect(treeWants(s)).toEqual(['ATL-91', 'ATL-2', 'ATL-80']);
    expect(rows(s)).toContain('  … loading the edges of ATL-91 | ');
    s = run(
      s,
      { type: 'tree_edges_loaded', root: 'ATL-90', ref: 'ATL-91', edges: [edge('in', 'ATL-1', false, 'planned')] },
      { type: 'tree_edges_loaded', root: 'ATL-90', ref: 'ATL-2', edges: [] },
      { type: 'tree_edges_loaded', root: 'ATL-90', ref: 'ATL-80', edges: [] },
      // ATL-1 waits on nothing
      { type: 'tree_edges_loaded', root: 'ATL-90', ref: 'ATL-1', edges: [] },
    );
    expect(treeWants(s)).toEqual([]);
    expect(rows(s)).toEqual([
      '↑ ATL-91 title of ATL-91 | activation · unsatisfied · planned · critical path',
      // the second level carries its own edge's gate point
      '  ↑ ATL-1 title of ATL-1 | activation · unsatisfied · planned · critical path start',
      '↑ ATL-2 title of ATL-2 | activation · satisfied · done',
      '● ATL-90 Item number 90 | this item',
      '↓ ATL-80 title of ATL-80 | completion · unsatisfied · planned',
    ]);
    // enter on the critical path's start jumps to it (in Runnable); esc closes
    s = run(s, key('picker_down'), key('picker_choose'));
    expect(s.dialog).toBeNull();
    expect(s.tab).toBe('runnable');
    expect(s.cursors.runnable.key).toBe('ATL-1');
    expect(run(onBlocked(), key('dep_tree'), key('picker_cancel')).dialog).toBeNull();
  });
});
