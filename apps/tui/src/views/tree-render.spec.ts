import { appHarness, liveAtlas } from '../testing/app-harness';
import type { DetailEdge } from '../state/edges';
import { item, TestScreen } from '../testing/fixtures';
import type { EpicTaskWire, ExplainResponse } from '../wire';

// `t` shows the tree past the item's own edges, both ways, with the gate point of every edge at every
// level, cuts said on their rows ("… N more"), and an epic's tasks (no item ref) that enter opens. Keys through
// blessed's parser on a screen over streams, at 80x24 and 120x36 under TERM=tmux-256color.

const SIZES: [number, number][] = [
  [80, 24],
  [120, 36],
];

const edge = (side: 'in' | 'out', other: string, gate: string, satisfied = false): DetailEdge => ({
  side,
  gate_point: gate,
  other,
  other_title: `title of ${other}`,
  state: satisfied ? 'done' : 'planned',
  satisfaction: 'status:done',
  satisfied,
  reason: '',
  need: null,
  abandoned: false,
  environment: null,
});

const task = (n: number, deps: number[]): EpicTaskWire => ({
  epic: 'ATL-2',
  task_num: n,
  title: `task title ${n}`,
  worktree: 'wt-a',
  context_estimate: null,
  dependencies: deps,
  status: n === 1 ? 'done' : 'pending',
  dispatch_attempts: 1,
  max_attempts: 5,
  body: 'first line of the task\nsecond line',
  github_issue: null,
  branch: `task-${n}`,
  worktree_path: null,
  agent_id: null,
  last_heartbeat: null,
});

// ATL-2 waits on ATL-3 (activation) ← ATL-4 (integration) ← ATL-5 (closure) ← ATL-6 (activation, beyond the cut);
// ATL-7 waits on ATL-2 (completion), ATL-8 on ATL-7 (integration), seven items on ATL-8.
const NODES: Record<string, DetailEdge[]> = {
  'ATL-3': [edge('in', 'ATL-4', 'integration'), edge('out', 'ATL-2', 'activation')],
  'ATL-4': [edge('in', 'ATL-5', 'closure')],
  'ATL-5': [edge('in', 'ATL-6', 'activation')],
  'ATL-7': [edge('out', 'ATL-8', 'integration')],
  'ATL-8': [10, 11, 12, 13, 14, 15, 16].map((n) => edge('out', `ATL-${n}`, 'activation')),
  'ATL-9': [],
  ...Object.fromEntries([10, 11, 12, 13, 14].map((n) => [`ATL-${n}`, []])),
};

describe('dependency tree t, deeper levels (keys, render)', () => {
  const h = appHarness();
  const { dispatch, press, state } = h;
  let t: TestScreen;
  const screenText = () => t.lines().join('\n');
  const start = (columns: number, rows: number) => {
    ({ t } = h.start(columns, rows, liveAtlas([item(2, { workflow_id: 'epic' }), item(9)])));
  };

  // t, then what the effects would answer: the item's pane, then each node the tree asks for
  const openTree = async () => {
    await press('t');
    const explain = {
      item_id: 'ATL-2',
      status: 'planned',
      summary: [],
      operator_block: null,
      unblock_roots: ['ATL-6'],
      stuck: [],
      unsatisfied: [],
      ranking: null,
      critical_path: ['ATL-2', 'ATL-3', 'ATL-4', 'ATL-5', 'ATL-6'],
    };
    dispatch(
      { type: 'detail_loaded', ref: 'ATL-2', data: { part: 'explain', value: explain as unknown as ExplainResponse } },
      {
        type: 'detail_loaded',
        ref: 'ATL-2',
        data: {
          part: 'edges',
          edges: [
            edge('in', 'ATL-3', 'activation'),
            edge('in', 'ATL-9', 'activation', true),
            edge('out', 'ATL-7', 'completion'),
          ],
        },
      },
      { type: 'detail_loaded', ref: 'ATL-2', data: { part: 'epicTasks', value: [task(1, []), task(2, [1])] } },
    );
    for (let round = 0; round < 5; round++) {
      const { treeWants } = await import('../state/tree');
      for (const ref of treeWants(state()))
        dispatch({ type: 'tree_edges_loaded', root: 'ATL-2', ref, edges: NODES[ref] ?? [] });
    }
  };

  afterEach(() => h.stop());

  describe.each(SIZES)('at %ix%i', (columns, rows) => {
    it('should show three levels each way with the gate point of every edge, and say what is cut', async () => {
      start(columns, rows);
      await openTree();
      const d = state().dialog;
      if (d?.kind !== 'picker') throw new Error('no tree');
      const got = d.options!.map((o) => `${o.label} | ${o.note ?? ''}`);
      expect(got.slice(0, 6)).toEqual([
        '↑ ATL-3 title of ATL-3 | activation · unsatisfied · planned · critical path',
        '  ↑ ATL-4 title of ATL-4 | integration · unsatisfied · planned · critical path',
        '    ↑ ATL-5 title of ATL-5 | closure · unsatisfied · planned · critical path',
        // the critical path goes on past the depth cut, to its start
        '      ↑ ATL-6 title of ATL-6 | activation · unsatisfied · planned · critical path start',
        '↑ ATL-9 title of ATL-9 | activation · satisfied · done',
        '● ATL-2 Item number 2 | this item',
      ]);
      expect(got.slice(6)).toEqual([
        '↓ ATL-7 title of ATL-7 | completion · unsatisfied · planned',
        '  ↓ ATL-8 title of ATL-8 | integration · unsatisfied · planned',
        ...[10, 11, 12, 13, 14].map((n) => `    ↓ ATL-${n} title of ATL-${n} | activation · unsatisfied · planned`),
        '    … 2 more waiting on ATL-8 | 5 shown · t on ATL-8 lists all',
        '◇ task 1 task title 1 | done · no task dependencies · enter opens it',
        '◇ task 2 task title 2 | pending · after 1 · enter opens it',
      ]);
      // what the screen shows: the rows near the top of the list, gate points included
      const text = screenText();
      expect(text).toContain('Dependencies of ATL-2');
      expect(text).toContain('↑ ATL-4 title of ATL-4');
      expect(text).toMatch(/↑ ATL-4 title of ATL-4 +integration/);
      expect(text).toMatch(/↑ ATL-5 title of ATL-5 +closure/);
    });

    it('should cut at three levels with "… N more" off the critical path', async () => {
      start(columns, rows);
      await press('t');
      dispatch({
        type: 'detail_loaded',
        ref: 'ATL-2',
        data: { part: 'edges', edges: [edge('out', 'ATL-7', 'completion')] },
      });
      const chain: Record<string, DetailEdge[]> = {
        'ATL-7': [edge('out', 'ATL-8', 'integration')],
        'ATL-8': [edge('out', 'ATL-11', 'activation')],
        'ATL-11': [edge('out', 'ATL-12', 'activation'), edge('out', 'ATL-13', 'closure')],
      };
      const { treeWants } = await import('../state/tree');
      for (let round = 0; round < 4; round++)
        for (const ref of treeWants(state()))
          dispatch({ type: 'tree_edges_loaded', root: 'ATL-2', ref, edges: chain[ref] ?? [] });
      const text = screenText();
      expect(text).toMatch(/↓ ATL-11 title of ATL-11 +activation/);
      expect(text).toContain('… 2 more downstream of ATL-11');
      expect(text).not.toContain('ATL-12');
    });

    it('should open an epic task (it has no ref) with enter, and esc closes it', async () => {
      start(columns, rows);
      await openTree();
      const d = state().dialog;
      if (d?.kind !== 'picker') throw new Error('no tree');
      // walk to the second task: the last row
      const last = d.options!.length - 1;
      for (let i = d.index; i !== last; i = (i + 1) % d.options!.length) await press('\x1b[B');
      await press('\r');
      expect(state().dialog).toMatchObject({ kind: 'view' });
      const text = screenText();
      expect(text).toContain('ATL-2 task 2: task title 2');
      expect(text).toContain('depends on tasks: 1');
      expect(text).toContain('branch: task-2');
      expect(text).toContain('second line');
      await press('\x1b');
      expect(state().dialog).toBeNull();
    });
  });
});
