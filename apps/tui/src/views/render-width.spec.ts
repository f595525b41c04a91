import { displayWidth } from '@app/client';

import { App } from '../app';
import { initialState } from '../state/state';
import { frontier, item, machineRequest, NOW, project, testScreen, TestScreen } from '../testing/fixtures';
import { makeTheme } from './theme';

// Titles the terminal draws wider or narrower than their length: CJK (2 cells each), emoji (2), combining marks (0),
// right-to-left scripts, a ZWJ sequence and a variation selector (dropped: terminals disagree about them).
const TITLES = [
  '請求書テンプレート',
  'Rocket 🚀 launch checklist',
  'Cafe\u0301 de\u0301ja\u0300 vu',
  'שלום עולם: right to left',
  'مرحبا بالعالم',
  'Coder 👩‍💻 and ❤️ heart',
  'Done ✅ fast ⚡ tea ☕',
  '한국어 제목과 日本語のタイトル、とても長いタイトルが切られる場所を確かめる請求書テンプレート、二百桁の画面でも切られるようにもっと長くする',
  'Flag 🇫🇷 and thumbs 👍🏽',
];

function start(columns: number, rows: number, detail = false): { t: TestScreen; app: App } {
  const t = testScreen(columns, rows);
  const app = new App({
    screen: t.screen,
    theme: makeTheme(),
    state: initialState({ now: NOW, url: 'http://127.0.0.1:7700' }),
    effects: null,
    onQuit: () => undefined,
  });
  const runnable = TITLES.map((title, i) =>
    item(i + 1, { title, priority: i % 2 ? 'low' : 'high', status: i % 3 ? 'planned' : '実装中' }),
  );
  app.store.dispatch({ type: 'actor', name: 'admin' });
  app.store.dispatch({ type: 'projects_loaded', projects: [project('atlas', 'アトラス請求')] });
  app.store.dispatch({ type: 'frontier_loaded', project: 'atlas', frontier: frontier(runnable) });
  app.store.dispatch({
    type: 'machines_loaded',
    requests: [machineRequest(1, { machine_name: 'ビルド機 🚀 box' })],
  });
  app.store.dispatch({ type: 'connection', state: 'live' });
  if (detail) {
    // the longest title: wrapped in the pane, never run into its border
    app.store.dispatch({ type: 'select', index: 7 });
    app.store.dispatch({ type: 'key', action: 'detail_open' });
  }
  app.renderNow();
  return { t, app };
}

// The display column where `token` starts in a row.
const columnOf = (row: string, token: string) => displayWidth(row.slice(0, row.indexOf(token)));

describe('render width (CJK, emoji, combining, RTL)', () => {
  let t: TestScreen;
  let app: App;
  afterEach(() => {
    app?.stop();
    t?.destroy();
  });

  describe.each([
    [80, 24],
    [120, 36],
    [200, 50],
  ])('at %ix%i', (columns, rows) => {
    it('should draw every row exactly the screen wide with the columns lined up', () => {
      ({ t, app } = start(columns, rows));
      const cells = t.cellRows();
      expect(cells).toHaveLength(rows);
      for (const row of cells) expect(displayWidth(row)).toBe(columns);
      const header = cells.findIndex((r) => /^\s+#\s+ref/.test(r));
      const body = cells.slice(header + 1, header + 1 + TITLES.length);
      expect(body.every((r) => /ATL-\d/.test(r))).toBe(true);
      // every priority starts where the header's `pri` does
      const pri = columnOf(cells[header], 'pri ');
      for (const r of body) expect(columnOf(r, r.includes(' high ') ? ' high ' : ' low ') + 1).toBe(pri);
      // the long CJK title is cut with an ellipsis, inside its column
      expect(body.find((r) => r.includes('한국어'))).toContain('…');
      // nothing of the dropped joiners and selectors reaches the screen
      // eslint-disable-next-line no-misleading-character-class
      expect(cells.join('')).not.toMatch(/[\u200d\ufe0f\u{1f3fb}-\u{1f3ff}]/u);
    });

    it('should keep the detail pane border in one column on every row', () => {
      ({ t, app } = start(columns, rows, true));
      const cells = t.cellRows();
      for (const row of cells) expect(displayWidth(row)).toBe(columns);
      // the whole title shows in the pane, its end included
      expect(cells.join('')).toContain('長くする');
      if (columns >= 120) {
        // side by side: the pane's left border is one column on every body row
        const border = cells.slice(3, rows - 3).map((r) => columnOf(r, '│'));
        expect(new Set(border).size).toBe(1);
        const right = cells.slice(3, rows - 3).map((r) => displayWidth(r.slice(0, r.lastIndexOf('│'))));
        expect(new Set(right)).toEqual(new Set([columns - 1]));
      } else {
        const below = cells.findIndex((r) => r.includes('Detail'));
        expect(below).toBeGreaterThan(3);
        for (const r of cells.slice(below + 1, rows - 3)) {
          expect(r.startsWith('│')).toBe(true);
          expect(displayWidth(r.slice(0, r.lastIndexOf('│')))).toBe(columns - 1);
        }
      }
    });

    it('should keep the machines rows and the tab labels whole', () => {
      ({ t, app } = start(columns, rows));
      app.store.dispatch({ type: 'key', action: 'tab_machines' });
      app.renderNow();
      const cells = t.cellRows();
      for (const row of cells) expect(displayWidth(row)).toBe(columns);
      expect(cells.join('\n')).toContain('ビルド機 🚀 box');
      // whole words on the tabs line, never `Runna`/`Block`/`Froze` cut mid-word
      expect(cells[1]).not.toMatch(/Runna\b|Froze\b/);
      expect(cells[1]).toMatch(/4 Mach(ines)? 1/);
    });
  });
});
