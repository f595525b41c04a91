import { displayWidth } from '@app/client';

import { App } from '../app';
import { initialState } from '../state/state';
import { frontier, item, NOW, project, testScreen, TestScreen } from '../testing/fixtures';
import { makeTheme } from './theme';

// Rows with adjacent emoji: blessed cut a line by its UTF-16 length, so a flag, `🎉🎉` or a family
// emoji (a ZWJ sequence) cost the row its last cells: the age `12s` drawn `12`, Blocked's `+1` drawn `+`, a long
// family title losing its age at 120 columns.
const TITLES = [
  'Flag 🇯🇵 release',
  'Party 🎉🎉 time',
  'Family 👨‍👩‍👧‍👦 plan',
  '👨‍👩‍👧‍👦👨‍👩‍👧‍👦👨‍👩‍👧‍👦 family reunion with a title long enough to be cut 🎉🎉🇯🇵🇯🇵',
];

function start(columns: number, rows: number): { t: TestScreen; app: App } {
  const t = testScreen(columns, rows);
  const app = new App({
    screen: t.screen,
    theme: makeTheme(),
    state: initialState({ now: NOW, url: 'http://127.0.0.1:7700' }),
    effects: null,
    onQuit: () => undefined,
  });
  const created_at = new Date(NOW - 12_000).toISOString();
  const runnable = TITLES.map((title, i) => item(i + 1, { title, created_at }));
  const blocked = TITLES.map((title, i) =>
    item(i + 11, { title, created_at, blocked_by: ['ATL-1', 'ATL-2'], blocked_reasons: [] }),
  );
  app.store.dispatch({ type: 'actor', name: 'admin' });
  app.store.dispatch({ type: 'projects_loaded', projects: [project()] });
  app.store.dispatch({ type: 'frontier_loaded', project: 'atlas', frontier: frontier(runnable, blocked) });
  app.store.dispatch({ type: 'connection', state: 'live' });
  app.renderNow();
  return { t, app };
}

const columnOf = (row: string, token: string) => displayWidth(row.slice(0, row.indexOf(token)));

describe('rows with adjacent emoji keep their last cells', () => {
  let t: TestScreen;
  let app: App;
  afterEach(() => {
    app?.stop();
    t?.destroy();
  });

  it.each([
    [80, 24],
    [120, 36],
  ])('at %ix%i: every row whole, the age and the blocked-by count at their columns', (columns, rows) => {
    ({ t, app } = start(columns, rows));
    let cells = t.cellRows();
    for (const row of cells) expect(displayWidth(row)).toBe(columns);
    let body = cells.filter((r) => /ATL-\d/.test(r));
    expect(body).toHaveLength(TITLES.length);
    const header = cells.find((r) => /^\s+#\s+ref/.test(r))!;
    const age = columnOf(header, 'age') + 3;
    for (const r of body) {
      expect(r).toMatch(/ 12s /);
      expect(columnOf(r, '12s') + 3).toBe(age);
      expect(columnOf(r, ' med ')).toBe(columnOf(header, ' pri '));
    }
    expect(body.find((r) => r.includes('Flag'))).toContain('🇯🇵');
    expect(body.find((r) => r.includes('Party'))).toContain('🎉🎉');

    app.store.dispatch({ type: 'key', action: 'tab_blocked' });
    app.renderNow();
    cells = t.cellRows();
    for (const row of cells) expect(displayWidth(row)).toBe(columns);
    body = cells.filter((r) => /ATL-1\d/.test(r));
    expect(body).toHaveLength(TITLES.length);
    for (const r of body) expect(r).toMatch(/ATL-1 \+1/);
    if (columns >= 120) for (const r of body) expect(r).toMatch(/ 12s $/);
  });
});
