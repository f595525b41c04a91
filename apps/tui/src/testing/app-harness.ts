import { App } from '../app';
import type { Action } from '../state/actions';
import { initialState, State } from '../state/state';
import { makeTheme } from '../views/theme';
import type { FrontierItemWire } from '../wire';
import { frontier, NOW, project, testScreen, TestScreen } from './fixtures';

// Keys go through blessed's own parser (the input stream).

export interface AppHarnessOptions {
  terminal?: string;
  mouse?: boolean;
  onQuit?: () => void;
}

export interface AppHarness {
  start(columns: number, rows: number, actions: Action[]): { t: TestScreen; app: App };
  dispatch(...actions: Action[]): void;
  press(...keys: string[]): Promise<void>;
  type(text: string): Promise<void>;
  text(): string;
  state(): State;
  stop(): void;
}

export function liveAtlas(runnable: FrontierItemWire[]): Action[] {
  return [
    { type: 'projects_loaded', projects: [project('atlas')] },
    { type: 'frontier_loaded', project: 'atlas', frontier: frontier(runnable) },
    { type: 'connection', state: 'live' },
  ];
}

export function appHarness(options: AppHarnessOptions = {}): AppHarness {
  let current: { t: TestScreen; app: App } | null = null;
  const running = () => {
    if (current === null) throw new Error('start the app first');
    return current;
  };
  const dispatch = (...actions: Action[]) => {
    const { app } = running();
    actions.forEach((a) => app.store.dispatch(a));
    app.renderNow();
  };
  const press = async (...keys: string[]) => {
    const { t, app } = running();
    for (const k of keys) {
      t.input.write(k);
      await new Promise((r) => setImmediate(r));
    }
    app.renderNow();
  };
  return {
    start(columns, rows, actions) {
      const t = testScreen(columns, rows, options.terminal ?? 'tmux-256color');
      const app = new App({
        screen: t.screen,
        theme: makeTheme(),
        state: initialState({ now: NOW, url: 'http://127.0.0.1:7700' }),
        effects: null,
        onQuit: options.onQuit ?? (() => undefined),
        mouse: options.mouse,
      });
      current = { t, app };
      dispatch(...actions);
      return current;
    },
    dispatch,
    press,
    type: (text) => press(...[...text]),
    text: () => running().t.lines().join('\n'),
    state: () => running().app.store.state,
    stop() {
      current?.app.stop();
      current?.t.destroy();
      current = null;
    },
  };
}
