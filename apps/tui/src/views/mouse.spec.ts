import { App } from '../app';
import { initialState } from '../state/state';
import { frontier, item, NOW, project, testScreen, TestScreen } from '../testing/fixtures';
import { makeTheme } from './theme';

// SGR mouse reports (1-based cells) written to the program's input, through blessed's real mouse parser.
const press = (x: number, y: number) => `\x1b[<0;${x + 1};${y + 1}M\x1b[<0;${x + 1};${y + 1}m`;
const wheel = (down: boolean, x: number, y: number) => `\x1b[<${down ? 65 : 64};${x + 1};${y + 1}M`;

describe('mouse', () => {
  let t: TestScreen;
  let app: App;
  const start = (columns: number, rows: number, mouse = true) => {
    t = testScreen(columns, rows);
    app = new App({
      screen: t.screen,
      theme: makeTheme(),
      state: initialState({ now: NOW }),
      effects: null,
      onQuit: () => undefined,
      mouse,
    });
    const runnable = Array.from({ length: 40 }, (_, i) => item(i + 1));
    app.store.dispatch({ type: 'projects_loaded', projects: [project('atlas')] });
    app.store.dispatch({
      type: 'frontier_loaded',
      project: 'atlas',
      frontier: frontier(runnable, [item(50), item(51)]),
    });
    app.renderNow();
  };
  const send = async (bytes: string) => {
    t.input.write(bytes);
    await new Promise((r) => setImmediate(r));
    app.renderNow();
  };
  const selected = () => t.lines().find((l) => l.startsWith('›')) ?? '';
  afterEach(() => {
    app?.stop();
    t?.destroy();
  });

  it.each([
    [80, 24],
    [120, 36],
  ])('should switch tabs, pick rows, scroll and press dialog buttons at %ix%i', async (columns, rows) => {
    start(columns, rows);
    const tabs = t.lines()[1];
    await send(press(tabs.indexOf('2 Block') + 1, 1));
    expect(t.lines()[1]).toMatch(/\[2 Block(ed)? 2\]/);
    await send(press(tabs.indexOf('1 Run') + 2, 1));
    expect(t.lines()[1]).toMatch(/\[1 Run(nable)? 40\]/);

    // a row: selected; the selected one again: its detail pane opens
    await send(press(10, 3 + 4));
    expect(selected()).toContain('ATL-5 ');
    await send(press(10, 3 + 4));
    expect(t.text()).toContain('Detail');
    await send('\x1b');

    // the wheel moves the selection three rows a notch
    await send(wheel(true, 10, 6));
    expect(selected()).toContain('ATL-8 ');
    await send(wheel(false, 10, 6));
    expect(selected()).toContain('ATL-5 ');

    // the charge dialog's buttons: "No" closes it (the effects are off here, so it is driven to its confirm step)
    const step = {
      item_id: 'ATL-5',
      title: 'Item number 5',
      project: 'atlas',
      priority: 'medium',
      status: 'planned',
      adapter: 'conduct',
      entrypoint: 'run.sh',
    } as never;
    app.store.dispatch({ type: 'key', action: 'charge_selected' });
    app.store.dispatch({ type: 'charge_confirm', step });
    app.renderNow();
    const lines = t.lines();
    const y = lines.findIndex((l) => l.includes('[ No ]'));
    const noX = lines[y].indexOf('[ No ]');
    const yesX = lines[y].indexOf('[ Yes, dispatch ]');
    expect(y).toBeGreaterThan(0);
    await send(press(yesX + 3, y));
    expect(app.store.state.dialog).toMatchObject({ kind: 'charge', phase: 'running' });
    app.store.dispatch({ type: 'charge_done' });
    app.store.dispatch({ type: 'key', action: 'charge_selected' });
    app.store.dispatch({ type: 'charge_confirm', step });
    app.renderNow();
    await send(press(noX + 2, y));
    expect(app.store.state.dialog).toBeNull();
  });

  it('should scroll the help with the wheel', async () => {
    start(80, 24);
    await send('?');
    expect(t.text()).toMatch(/Keys 1-/);
    await send(wheel(true, 40, 10));
    expect(t.text()).toMatch(/Keys 4-/);
  });

  it('should leave the mouse alone unless asked (tui.json "mouse": true)', async () => {
    start(80, 24, false);
    await send(press(10, 3 + 4));
    expect(selected()).toContain('ATL-1 ');
  });
});
