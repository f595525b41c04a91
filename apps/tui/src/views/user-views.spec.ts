import { App } from '../app';
import type { Action } from '../state/actions';
import { initialState } from '../state/state';
import { frontier, item, NOW, project, testScreen, TestScreen } from '../testing/fixtures';
import { makeTheme } from './theme';

// tui.json's named views (M-1…M-9, :view <name>) and commands, listed in the help.

describe.each([
  [80, 24],
  [120, 36],
])('named views and commands at %ix%i', (columns, rows) => {
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
  const state = () => app.store.state;

  beforeEach(() => {
    t = testScreen(columns, rows, 'tmux-256color');
    app = new App({
      screen: t.screen,
      theme: makeTheme(),
      state: {
        ...initialState({ now: NOW, url: 'http://127.0.0.1:7700' }),
        views: [
          { name: 'urgent', filter: 'pri:high', sort: 'age', desc: true },
          { name: 'stuck', tab: 'blocked' },
        ],
        userCommands: [{ name: 'gh', key: 'f6', open: 'https://github.com/search?q={title}', help: 'search GitHub' }],
      },
      effects: null,
      onQuit: () => undefined,
    });
    dispatch(
      { type: 'projects_loaded', projects: [project('atlas')] },
      {
        type: 'frontier_loaded',
        project: 'atlas',
        frontier: frontier(
          [item(1, { priority: 'high' }), item(2), item(3, { priority: 'high' })],
          [item(9, { blocked_by: ['ATL-1'] })],
        ),
      },
      { type: 'connection', state: 'live' },
    );
  });
  afterEach(() => {
    app.stop();
    t.destroy();
  });

  it('should switch views with M-1 and M-2 and with :view <name>', async () => {
    await press('\x1b1');
    expect(state()).toMatchObject({ tab: 'runnable', filter: 'pri:high', sort: 'age', sortDesc: true });
    expect(t.text()).toContain('view urgent');
    expect(t.text()).not.toContain('ATL-2 ');
    await press('\x1b2');
    expect(state()).toMatchObject({ tab: 'blocked', filter: '', sort: 'rank' });
    await press(':');
    for (const ch of 'view urg') await press(ch);
    expect(t.text()).toContain('view urgent');
    await press('\r');
    expect(state()).toMatchObject({ tab: 'blocked', filter: 'pri:high', sort: 'age' });
    await press(':');
    for (const ch of 'view nope') await press(ch);
    await press('\r');
    expect(state().status?.text).toContain('no view "nope" in tui.json (views: urgent (M-1), stuck (M-2))');
  });

  it('should run a command by its key or :run, and list views and commands in the help', async () => {
    app.onKey(undefined, { name: 'f6', full: 'f6' });
    expect(state().external).toMatchObject({ ref: 'ATL-1', command: 'gh' });
    await press(':');
    for (const ch of 'run gh') await press(ch);
    await press('\r');
    expect(state().external).toMatchObject({ ref: 'ATL-1', command: 'gh' });
    await press('o');
    expect(state().external).toMatchObject({ ref: 'ATL-1', command: null });
    await press('?');
    for (const ch of 'tui.json') await press(ch);
    const help = t.text();
    expect(help).toContain('Your views (tui.json)');
    expect(help).toMatch(/M-1\s+view urgent: \/pri:high · sort age desc/);
    expect(help).toContain('Your commands');
    expect(help).toMatch(/f6\s+gh: search GitHub/);
  });
});
