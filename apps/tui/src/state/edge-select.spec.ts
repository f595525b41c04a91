import { helpRows } from '../keys/help';
import { detailEdge, frontier, item, NOW, project } from '../testing/fixtures';
import { detailLines } from '../views/detail';
import { PLAIN } from '../views/format';
import type { Action } from './actions';
import type { DetailEdge } from './edges';
import { reduce } from './reduce';
import { initialState, State } from './state';

// The detail pane's edges: H / L select, enter jumps to the other item, d removes after asking.

const key = (action: Extract<Action, { type: 'key' }>['action']): Action => ({ type: 'key', action });
const run = (state: State, ...actions: Action[]) => actions.reduce(reduce, state);

const edge = (side: 'in' | 'out', other: string): DetailEdge => detailEdge(side, other);

function paneOf90(readOnly = false): State {
  return run(
    initialState({ now: NOW, readOnly }),
    { type: 'projects_loaded', projects: [project('atlas')] },
    {
      type: 'frontier_loaded',
      project: 'atlas',
      frontier: frontier([item(1), item(2)], [item(90, { blocked_by: ['ATL-1'] })], [item(80)]),
    },
    key('tab_blocked'),
    key('detail_open'),
    {
      type: 'detail_loaded',
      ref: 'ATL-90',
      data: { part: 'edges', edges: [edge('in', 'ATL-1'), edge('out', 'ATL-80')] },
    },
  );
}

describe('detail pane edges', () => {
  it('are selected with H / L, shown selected, and esc forgets the selection', () => {
    expect(helpRows('frontier').map((r) => r.keys)).toEqual(expect.arrayContaining(['L', 'H', 'd']));
    let s = reduce(paneOf90(), key('edge_next'));
    expect(s.edgeCursor).toEqual({ ref: 'ATL-90', key: 'in|ATL-1|activation' });
    expect(detailLines(s, 100, PLAIN).find((l) => l.includes('›'))).toContain('ATL-1');
    s = run(s, key('edge_next'));
    expect(s.edgeCursor?.key).toBe('out|ATL-80|activation');
    expect(run(s, key('edge_next')).edgeCursor?.key).toBe('in|ATL-1|activation');
    s = reduce(s, key('back'));
    expect(s.edgeCursor).toBeNull();
    expect(s.detailOpen).toBe(true);
  });

  it('stays on its edge when the edges reload in another order, and selects none once it is gone', () => {
    let s = run(paneOf90(), key('edge_prev'));
    expect(s.edgeCursor?.key).toBe('out|ATL-80|activation');
    // an edge added elsewhere sorts before it: the selection follows its edge, not its position
    const reload = (edges: DetailEdge[]): Action => ({
      type: 'detail_loaded',
      ref: 'ATL-90',
      data: { part: 'edges', edges },
    });
    s = reduce(s, reload([edge('in', 'ATL-1'), edge('in', 'ATL-2'), edge('out', 'ATL-80')]));
    expect(detailLines(s, 100, PLAIN).find((l) => l.includes('›'))).toContain('ATL-80');
    s = reduce(s, key('edge_remove'));
    expect(s.dialog).toMatchObject({ commands: [{ op: 'dep-remove', dependent: 'ATL-80', blocker: 'ATL-90' }] });
    // removed elsewhere: nothing is selected, and d says so instead of removing another edge
    s = reduce({ ...s, dialog: null }, reload([edge('in', 'ATL-1'), edge('in', 'ATL-2')]));
    expect(detailLines(s, 100, PLAIN).some((l) => l.includes('›'))).toBe(false);
    expect(reduce(s, key('edge_remove')).dialog).toBeNull();
  });

  it('jumps to the other item on enter', () => {
    const s = run(paneOf90(), key('edge_prev'), key('detail_open'));
    expect(s.tab).toBe('frozen');
    expect(s.cursors.frozen.key).toBe('ATL-80');
    expect(s.triage.back.at(-1)).toEqual({ tab: 'blocked', key: 'ATL-90' });
  });

  it('removes an edge after asking, No focused, with the dependent and blocker the right way round', () => {
    let s = run(paneOf90(), key('edge_prev'), key('edge_remove'));
    expect(s.dialog).toMatchObject({
      kind: 'triage-confirm',
      focus: 'no',
      commands: [{ op: 'dep-remove', dependent: 'ATL-80', blocker: 'ATL-90', gate_point: 'activation' }],
    });
    expect(run(s, key('dialog_activate')).triage.run).toBeNull();
    s = run(s, key('dialog_yes'));
    expect(s.triage.run?.commands).toEqual([
      { op: 'dep-remove', dependent: 'ATL-80', blocker: 'ATL-90', gate_point: 'activation' },
    ]);
    // without a selection, and under --read-only, nothing is asked
    expect(reduce(paneOf90(), key('edge_remove')).dialog).toBeNull();
    const ro = run(paneOf90(true), key('edge_next'), key('edge_remove'));
    expect(ro.dialog).toBeNull();
    expect(ro.status?.text).toMatch(/read-only/);
  });
});
