import { App } from '../app';
import type { Action } from '../state/actions';
import { initialState } from '../state/state';
import { frontier, item, NOW, project, testScreen, TestScreen } from '../testing/fixtures';
import { makeTheme } from './theme';

// Issue 39 §10, the smaller defects, on a blessed screen over streams under TERM=tmux-256color.

const SIZES: [number, number][] = [
  [80, 24],
  [120, 36],
];

describe('smaller defects of issue 39 (render, keys)', () => {
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
  const start = (columns: number, rows: number) => {
    t = testScreen(columns, rows, 'tmux-256color');
    app = new App({
      screen: t.screen,
      theme: makeTheme(),
      state: initialState({ now: NOW, url: 'http://127.0.0.1:7700' }),
      effects: null,
      onQuit: () => undefined,
    });
  };
  const load = () =>
    dispatch(
      { type: 'projects_loaded', projects: [project('atlas')] },
      { type: 'frontier_loaded', project: 'atlas', frontier: frontier([item(1), item(2)], [item(3)]) },
      { type: 'connection', state: 'live' },
    );
  const state = () => app.store.state;

  afterEach(() => {
    app?.stop();
    t?.destroy();
  });

  describe.each(SIZES)('at %ix%i', (columns, rows) => {
    it("should send the header's · as the character, not the line-drawing ~", async () => {
      start(columns, rows);
      const stop = t.record();
      load();
      await new Promise((r) => setImmediate(r));
      const bytes = stop();
      expect(t.lines()[0]).toContain('·');
      expect(bytes).toContain('·');
      expect(bytes).not.toContain('\x1b(0~');
    });

    it('should wrap a long help line in the help box, never cut it', async () => {
      start(columns, rows);
      load();
      await press('?');
      await press(...'stage'.split(''));
      const text = t.lines().join('\n');
      expect(text).toContain('No focused)');
      expect(text).not.toMatch(/No foc…|a backward or termin…/);
    });

    it('should offer priorities in order: high, medium, low', async () => {
      start(columns, rows);
      load();
      await press('=');
      const d = state().dialog as { options: { value: string }[] };
      expect(d.options.map((o) => o.value)).toEqual(['high', 'medium', 'low']);
      const shown = t.lines().join('\n');
      expect(shown.indexOf('high')).toBeLessThan(shown.indexOf('medium'));
    });

    it('should say how many of a bulk change were refused', () => {
      start(columns, rows);
      load();
      dispatch({
        type: 'triage_start',
        commands: [1, 2, 3, 4].map((n) => ({ op: 'priority', ref: `ATL-${n}`, to: 'high' })),
      });
      dispatch({
        type: 'triage_done',
        id: state().triage.run!.id,
        results: [1, 2, 3, 4].map((n) => ({
          command: { op: 'priority', ref: `ATL-${n}`, to: 'high' },
          ok: false,
          message: 'forbidden',
        })),
      });
      expect(t.lines().join('\n')).toContain('4 of 4 refused');
    });

    it('should scroll a refusal longer than the screen with j/k', async () => {
      start(columns, rows);
      load();
      const n = 30;
      const refs = Array.from({ length: n }, (_, i) => `ATL-${i + 1}`);
      dispatch({ type: 'triage_start', commands: refs.map((ref) => ({ op: 'priority', ref, to: 'high' })) });
      dispatch({
        type: 'triage_done',
        id: state().triage.run!.id,
        results: refs.map((ref) => ({ command: { op: 'priority', ref, to: 'high' }, ok: false, message: 'forbidden' })),
      });
      const text = () => t.lines().join('\n');
      expect(text()).toContain('30 of 30 refused');
      expect(text()).not.toContain('ATL-30 to high');
      await press(...Array.from({ length: 12 }, () => 'j'));
      expect(text()).toContain('ATL-30 to high');
      expect(text()).not.toContain('30 of 30 refused');
      await press(...Array.from({ length: 12 }, () => 'k'));
      expect(text()).toContain('30 of 30 refused');
    });
  });
});
