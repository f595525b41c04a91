import { App, FRAME_MS } from '../app';
import type { Action } from '../state/actions';
import { initialState, STATUS_TTL_MS } from '../state/state';
import {
  event,
  frontier,
  item,
  machineRequest,
  NOW,
  project,
  sgrForegrounds,
  testScreen,
  TestScreen,
} from '../testing/fixtures';
import { makeTheme, Theme, THEME_NAMES, themeFromEnv } from './theme';

function backlog(): Action[] {
  const runnable = Array.from({ length: 30 }, (_, i) => item(i + 1, { priority: i % 3 ? 'low' : 'high' }));
  return [
    { type: 'actor', name: 'admin' },
    { type: 'projects_loaded', projects: [project('atlas')] },
    {
      type: 'frontier_loaded',
      project: 'atlas',
      frontier: frontier(runnable, [item(40, { blocked_by: ['ATL-1'] })], [], {
        conduct_eligible: [runnable[0]],
      }),
    },
    { type: 'machines_loaded', requests: [machineRequest(1)] },
    { type: 'connection', state: 'live' },
  ];
}

const foregrounds = sgrForegrounds;

describe('chrome: messages, footer, help, colour', () => {
  let t: TestScreen;
  let app: App;
  const start = (columns = 80, rows = 24, theme: Theme = makeTheme(), terminal?: string) => {
    t = testScreen(columns, rows, terminal);
    app = new App({
      screen: t.screen,
      theme,
      state: initialState({ now: NOW, url: 'http://127.0.0.1:7700' }),
      effects: null,
      onQuit: () => undefined,
    });
    backlog().forEach((a) => app.store.dispatch(a));
    app.renderNow();
  };
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
  const status = () => t.lines()[(t.screen.height as number) - 2];
  const footer = () => t.lines()[(t.screen.height as number) - 1];
  afterEach(() => {
    app?.stop();
    t?.destroy();
  });

  describe('frames', () => {
    it('should draw a frame only when a region changed, and always after a resize', () => {
      start();
      const render = jest.spyOn(t.screen, 'render');
      // on the Runnable tab, a new event changes no region
      dispatch({ type: 'events_loaded', events: [event(1)] });
      expect(render).not.toHaveBeenCalled();
      // a title on screen does
      const runnable = Array.from({ length: 30 }, (_, i) => item(i + 1, i === 0 ? { title: 'renamed live' } : {}));
      dispatch({ type: 'frontier_loaded', project: 'atlas', frontier: frontier(runnable, [], []) });
      expect(render).toHaveBeenCalledTimes(1);
      expect(t.lines().join('\n')).toContain('renamed live');
      // the same state again: nothing to draw
      app.renderNow();
      expect(render).toHaveBeenCalledTimes(1);
      t.screen.emit('resize');
      expect(render).toHaveBeenCalledTimes(2);
    });

    it('should draw a lone data change on the next turn, and at most one frame per FRAME_MS', () => {
      start();
      // the frame the first frame's page size asked for
      app.renderNow();
      jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate'] });
      try {
        const render = jest.spyOn(t.screen, 'render');
        const retitle = (title: string) =>
          app.store.dispatch({
            type: 'frontier_loaded',
            project: 'atlas',
            frontier: frontier([item(1, { title }), item(2)], [], []),
          });
        // quiet for longer than a frame: drawn on the next turn
        jest.advanceTimersByTime(FRAME_MS);
        retitle('first');
        jest.advanceTimersByTime(0);
        expect(render).toHaveBeenCalledTimes(1);
        // right after a frame: held until FRAME_MS after it, with what came meanwhile
        retitle('second');
        retitle('third');
        jest.advanceTimersByTime(FRAME_MS - 1);
        expect(render).toHaveBeenCalledTimes(1);
        jest.advanceTimersByTime(1);
        expect(render).toHaveBeenCalledTimes(2);
        expect(t.lines().join('\n')).toContain('third');
      } finally {
        jest.useRealTimers();
      }
    });
  });

  describe('messages', () => {
    it('should clear an info line after ~4 s of the clock, and keep an error until the next key', async () => {
      start();
      dispatch({ type: 'status', text: 'refreshing…', tone: 'info' });
      expect(status()).toContain('refreshing…');
      dispatch({ type: 'tick', now: NOW + STATUS_TTL_MS - 1 });
      expect(status()).toContain('refreshing…');
      dispatch({ type: 'tick', now: NOW + STATUS_TTL_MS });
      expect(status()).not.toContain('refreshing…');

      dispatch({ type: 'status', text: 'frontier: boom', tone: 'error' });
      dispatch({ type: 'tick', now: NOW + 600_000 });
      expect(status()).toContain('error: frontier: boom');
      await press('j');
      expect(status()).not.toContain('boom');
    });

    it('should drop an old error when the connection is live again, and say how old the rows are while offline', () => {
      start(120, 36);
      dispatch({ type: 'connection', state: 'reconnecting' }, { type: 'status', text: 'events: 500', tone: 'error' });
      const at = new Date(NOW);
      const hhmm = `${String(at.getHours()).padStart(2, '0')}:${String(at.getMinutes()).padStart(2, '0')}`;
      expect(t.lines()[0]).toContain(`◌ reconnecting  data as of ${hhmm}`);
      dispatch({ type: 'connection', state: 'live' });
      expect(t.lines()[0]).not.toContain('data as of');
      expect(status()).not.toContain('events: 500');
    });
  });

  describe('footer', () => {
    it('should follow the focus: the list, the detail pane, a dialog', async () => {
      start(120, 36);
      expect(footer()).toContain('enter detail');
      await press('\r');
      expect(footer()).toMatch(/^ esc close {2}p hide {2}J scroll/);
      expect(footer()).not.toContain('enter detail');
      await press('c');
      expect(footer()).toMatch(/^ y yes {2}n no/);
    });

    it('should never drop a hint silently at 80x24: ? help stays and counts the rest', () => {
      start(80, 24);
      expect(footer()).toMatch(/\? help \(\+\d+ more\)$/);
      start(200, 50);
      expect(footer()).toMatch(/P project {2}\? help$/);
    });

    it('should label the tabs with whole words at 80x24', () => {
      start(80, 24);
      expect(t.lines()[1]).toContain('[1 Runnable 30]');
      expect(t.lines()[1]).toContain('2 Blocked 1');
      expect(t.lines()[1]).not.toMatch(/Runna |Block |Froze /);
    });
  });

  describe('help', () => {
    it('should scroll a sectioned help at 80x24 and search it, each "asks first" once', async () => {
      start(80, 24);
      await press('?');
      let text = t.text();
      expect(text).toMatch(/Keys 1-\d+\/\d+/);
      expect(text).toContain('Runnable, Blocked, Frozen');
      expect(text).not.toContain('open this project');
      expect(text).not.toMatch(/asks first\)? ?\(asks first/);
      for (let i = 0; i < 20 && !text.includes('open this project'); i++) {
        await press('\x1b[6~'); // PgDn
        text = t.text();
      }
      expect(text).toContain('open this project');
      // back up to the top
      for (let i = 0; i < 20 && !/Keys 1-/.test(t.text()); i++) await press('\x1b[5~');
      expect(t.text()).toMatch(/Keys 1-/);
      await press('d', 'e', 'n', 'y');
      text = t.text();
      expect(text).toContain('Machines');
      expect(text).toContain('deny the selected request');
      expect(text).not.toContain('charge the top');
      await press('\x1b');
      expect(t.text()).not.toContain('search:');
    });
  });

  describe('colour', () => {
    it.each([
      ['tmux-256color', {}],
      ['screen-256color', {}],
      ['xterm', {}],
      ['xterm-256color', {}],
      ['linux', {}],
      ['xterm-256color', { COLORTERM: 'truecolor' }],
    ])('should never draw text black under TERM=%s %j, in any theme', async (term, extra) => {
      for (const name of THEME_NAMES) {
        const theme = themeFromEnv({ TERM: term, ...extra }, name);
        start(120, 36, theme, term);
        const stop = t.record();
        // every region with its secondary text: header, hints, low priorities, the detail border and "loading"
        await press('\r', '?');
        await press('\x1b');
        dispatch({ type: 'status', text: 'x', tone: 'warn' });
        const bytes = stop();
        const fg = foregrounds(bytes);
        expect(fg.length).toBeGreaterThan(0);
        expect(fg).not.toContain(0);
        expect(fg).not.toContain(16);
        if (name === 'dark' && theme.depth >= 16) expect(fg).toContain(8);
        if (name === 'light' && theme.depth >= 256) expect(fg).toContain(242);
        app.stop();
        t.destroy();
      }
    });

    it('should decide the depth from COLORTERM, a 256-colour TERM and tmux', () => {
      expect(themeFromEnv({ TERM: 'tmux-256color' }).depth).toBe(256);
      expect(themeFromEnv({ TERM: 'screen', TMUX: '/tmp/tmux-0/default,1,0' }).depth).toBe(256);
      expect(themeFromEnv({ TERM: 'xterm', COLORTERM: 'truecolor' }).depth).toBe(256);
      expect(themeFromEnv({ TERM: 'xterm' }).depth).toBe(16);
      expect(themeFromEnv({ TERM: 'vt100' }).depth).toBe(8);
      expect(themeFromEnv({ TERM: 'vt100' }).palette.gray).toBe('default');
      expect(themeFromEnv({ TERM: 'xterm', NO_COLOR: '1' }).color).toBe(false);
    });

    it('should paint nothing under NO_COLOR', async () => {
      start(120, 36, themeFromEnv({ TERM: 'xterm-256color', NO_COLOR: '1' }));
      const stop = t.record();
      await press('\r', '?');
      expect(foregrounds(stop())).toEqual([]);
      expect(t.text()).toContain('asks first');
    });
  });
});
