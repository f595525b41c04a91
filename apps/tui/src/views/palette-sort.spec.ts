import { appHarness, liveAtlas } from '../testing/app-harness';
import { App } from '../app';
import { frontierRowAt, rowCount } from '../state/selectors';
import { item, TestScreen } from '../testing/fixtures';

// The palette completes its commands with Tab, commands before items; `:sort <column> [asc|desc]`,
// a header click toggles the order, and status sorts by the workflow's order.

const SIZES: [number, number][] = [
  [80, 24],
  [120, 36],
];

describe('palette completion and sorting (keys, render)', () => {
  const h = appHarness({ mouse: true });
  const { press, type, state } = h;
  let t: TestScreen;
  let app: App;
  const start = (columns: number, rows: number) => {
    ({ t, app } = h.start(
      columns,
      rows,
      liveAtlas([
        item(1, { title: 'SSO login', status: 'implemented' }),
        item(2, { title: 'Backfill usage', status: 'idea' }),
        item(3, { title: 'Plan drafted', status: 'plan-drafted' }),
        item(4, { title: 'Implementing it', status: 'implementing' }),
      ]),
    ));
  };
  const order = () =>
    Array.from({ length: rowCount(state(), 'runnable') }, (_, i) => frontierRowAt(state(), 'runnable', i)?.status);
  const line = (needle: string) => t.lines().find((l) => l.includes(needle)) ?? '';

  afterEach(() => h.stop());

  describe.each(SIZES)('at %ix%i', (columns, rows) => {
    it('should list commands before items and complete them with Tab, cycling', async () => {
      start(columns, rows);
      await press(':');
      expect(t.lines().join('\n')).toMatch(/sort …[\s\S]*ATL-1 SSO login/);
      await type('so');
      const d = state().dialog as { options: { value: string }[] };
      expect(d.options[0].value).toBe('sort ');
      expect(d.options.map((o) => o.value)).toContain('ATL-1');
      await press('\t');
      expect(line(':sort')).toContain(':sort ▏');
      await type('st');
      await press('\t');
      expect(state().dialog).toMatchObject({ filter: 'sort status' });
      await type(' desc');
      await press('\r');
      expect(state()).toMatchObject({ sort: 'status', sortDesc: true });
      expect(order()).toEqual(['implemented', 'implementing', 'plan-drafted', 'idea']);
      await press(':');
      await type('fil');
      await press('\t');
      expect(state().dialog).toMatchObject({ filter: 'filter ' });
      await press('\t');
      expect((state().dialog as { filter: string }).filter).not.toBe('filter ');
    });

    it('should sort status by the workflow, not the alphabet, and toggle the order on a header click', async () => {
      start(columns, rows);
      await press(':');
      await type('sort status');
      await press('\r');
      expect(order()).toEqual(['idea', 'plan-drafted', 'implementing', 'implemented']);
      expect(line('status↓')).toContain('status↓');
      const x = line('status↓').indexOf('status↓');
      app.onMouse({ action: 'mousedown', button: 'left', x: x + 1, y: 2 });
      expect(state().sortDesc).toBe(true);
      expect(order()).toEqual(['implemented', 'implementing', 'plan-drafted', 'idea']);
      expect(line('status↑')).toContain('status↑');
      const p = line('pri').indexOf('pri');
      app.onMouse({ action: 'mousedown', button: 'left', x: p, y: 2 });
      expect(state()).toMatchObject({ sort: 'priority', sortDesc: false });
    });
  });
});
