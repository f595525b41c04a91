import { appHarness } from '../testing/app-harness';
import { App } from '../app';
import { frontier, item, NOW, project, TestScreen } from '../testing/fixtures';

// Smaller defects, on a blessed screen over streams under TERM=tmux-256color.

const SIZES: [number, number][] = [
  [80, 24],
  [120, 36],
];

describe('smaller defects of issue 39 (render, keys)', () => {
  const h = appHarness();
  const { dispatch, press, state } = h;
  let t: TestScreen;
  let app: App;
  const start = (columns: number, rows: number) => {
    ({ t, app } = h.start(columns, rows, []));
  };
  const load = () =>
    dispatch(
      { type: 'projects_loaded', projects: [project('atlas')] },
      { type: 'frontier_loaded', project: 'atlas', frontier: frontier([item(1), item(2)], [item(3)]) },
      { type: 'connection', state: 'live' },
    );

  afterEach(() => h.stop());

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

    it('should keep the + of a marked row under the cursor', async () => {
      start(columns, rows);
      load();
      await press(' ');
      const row = (ref: string) => t.lines().find((l) => l.includes(`${ref} `)) ?? '';
      expect(row('ATL-1')).toMatch(/^\+/);
      await press('k');
      expect(state().cursors.runnable.key).toBe('ATL-1');
      expect(row('ATL-1')).toMatch(/^\+/);
      expect(row('ATL-2')).toMatch(/^ /);
    });

    it('should say the daemon is unreachable, not that it refused', () => {
      start(columns, rows);
      load();
      dispatch({ type: 'triage_start', commands: [{ op: 'priority', ref: 'ATL-1', to: 'high' }] });
      dispatch({
        type: 'triage_done',
        id: state().triage.run!.id,
        results: [
          {
            command: { op: 'priority', ref: 'ATL-1', to: 'high' },
            ok: false,
            message: 'cannot reach the svc daemon at http://127.0.0.1:7700: connect ECONNREFUSED',
            unreachable: true,
          },
        ],
      });
      const text = t.lines().join('\n');
      expect(text).toContain('Daemon unreachable');
      expect(text).toContain('Not sent: cannot reach the svc daemon');
      expect(text).not.toMatch(/Refused|refused:/);
    });

    it('should count on the Machines tab what it shows: pending requests, or connected machines', async () => {
      start(columns, rows);
      load();
      const machine = (n: number) => ({
        machine_id: `11111111-2222-4333-8444-55555555555${n}`,
        machine_name: `laptop ${n}`,
        actor: 'admin',
        org: 'default',
        token_prefix: `svcm_${n}abc`,
        created_at: new Date(NOW - 3_600_000).toISOString(),
        last_used_at: null,
        expires_at: null,
        revoked_at: null,
      });
      dispatch({ type: 'connected_loaded', machines: [machine(1), machine(2), machine(3)] });
      await press('4');
      expect(t.lines()[1]).toMatch(/4 Mach(ines)? 0/);
      dispatch({ type: 'key', action: 'machines_view' });
      expect(t.lines()[1]).toMatch(/4 Mach(ines)? 3/);
    });

    it('should keep the palette and the help box their size while typing', async () => {
      start(columns, rows);
      load();
      const box = () => t.lines().filter((l) => /[│┌└]/.test(l)).length;
      await press(':');
      const palette = box();
      await press(...'ATL-2'.split(''));
      expect(box()).toBe(palette);
      await press('\x1b');
      await new Promise((r) => setTimeout(r, 50));
      app.onKey(undefined, { name: 'escape', full: 'escape' });
      await press('?');
      const help = box();
      await press(...'redo'.split(''));
      expect(box()).toBe(help);
    });
  });
});
