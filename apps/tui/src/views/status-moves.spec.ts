import { App } from '../app';
import type { Action } from '../state/actions';
import { initialState, PickerOption } from '../state/state';
import { frontier, item, NOW, project, testScreen, TestScreen } from '../testing/fixtures';
import { makeTheme } from './theme';

// Keys through blessed's parser on a screen over streams: the stage picker opens on the next stage, a
// backward or terminal move asks first naming from → to (No focused), and S moves to the next stage in one key.

const SIZES: [number, number][] = [
  [80, 24],
  [120, 36],
];

const STAGES = (current: string): PickerOption[] =>
  ['idea', 'planning', 'planned', 'implementing', 'done'].map((id) => ({
    value: id,
    label: id === current ? `${id} (current)` : id,
    current: id === current,
    terminal: id === 'done',
  }));

describe('safe status moves (keys, render)', () => {
  let t: TestScreen;
  let app: App;

  const dispatch = (...actions: Action[]) => {
    actions.forEach((a) => app.store.dispatch(a));
    app.renderNow();
  };
  const press = async (...keys: string[]) => {
    for (const k of keys) {
      t.input.write(k);
      await new Promise((r) => setImmediate(r));
    }
    app.renderNow();
  };
  const start = (columns: number, rows: number, status = 'planning') => {
    t = testScreen(columns, rows, 'tmux-256color');
    app = new App({
      screen: t.screen,
      theme: makeTheme(),
      state: initialState({ now: NOW, url: 'http://127.0.0.1:7700' }),
      effects: null,
      onQuit: () => undefined,
    });
    dispatch(
      { type: 'projects_loaded', projects: [project('atlas')] },
      { type: 'frontier_loaded', project: 'atlas', frontier: frontier([item(2, { status }), item(3)]) },
      { type: 'connection', state: 'live' },
    );
  };
  const stages = (current: string) =>
    dispatch({ type: 'picker_options', purpose: 'status', refs: ['ATL-2'], options: STAGES(current) });
  const screenText = () => t.lines().join('\n');
  const state = () => app.store.state;

  afterEach(() => {
    app?.stop();
    t?.destroy();
  });

  describe.each(SIZES)('at %ix%i', (columns, rows) => {
    it('should open on the next stage: s enter moves planning → planned, forward, at once', async () => {
      start(columns, rows);
      await press('s');
      stages('planning');
      const d = state().dialog;
      expect(d).toMatchObject({ kind: 'picker', purpose: 'status', index: 2 });
      expect(screenText()).toContain('planning (current)');
      await press('\r');
      expect(state().triage.run?.commands).toEqual([{ op: 'status', ref: 'ATL-2', to: 'planned' }]);
    });

    it('should ask before a backward move, naming from → to, with No focused', async () => {
      start(columns, rows);
      await press('s');
      stages('planning');
      await press('\x1b[A', '\x1b[A', '\r'); // up twice: idea
      expect(state().dialog).toMatchObject({ kind: 'triage-confirm', focus: 'no' });
      expect(screenText()).toContain('ATL-2: planning → idea');
      expect(screenText()).toMatch(/backward/);
      await press('\r'); // enter presses the focused No
      expect(state().triage.run).toBeNull();
      expect(state().dialog).toBeNull();
    });

    it('should move to the next stage with S, and ask before a terminal one', async () => {
      start(columns, rows);
      await press('S');
      stages('planning');
      expect(state().triage.run?.commands).toEqual([{ op: 'status', ref: 'ATL-2', to: 'planned' }]);
      t.destroy();
      app.stop();
      start(columns, rows, 'implementing');
      await press('S');
      stages('implementing');
      expect(state().triage.run).toBeNull();
      expect(state().dialog).toMatchObject({ kind: 'triage-confirm', focus: 'no' });
      expect(screenText()).toContain('ATL-2: implementing → done');
      expect(screenText()).toContain('terminal stage');
      await press('y');
      expect(state().triage.run?.commands).toEqual([{ op: 'status', ref: 'ATL-2', to: 'done' }]);
    });
  });
});
