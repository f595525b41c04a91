import { appHarness, liveAtlas } from '../testing/app-harness';
import { change, event, item, TestScreen } from '../testing/fixtures';

// The change record in the TUI, rendered on a blessed screen over streams: the Events tab is the project's audit log (who
// changed what, before → after), the detail pane shows the item's last changes, and h lists them all.

const SIZES: [number, number][] = [
  [80, 24],
  [120, 36],
];

describe('the record of every write (render)', () => {
  const h = appHarness({ terminal: 'xterm-256color' });
  const { dispatch, press } = h;
  let t: TestScreen;
  const start = (columns: number, rows: number) => {
    ({ t } = h.start(columns, rows, [
      { type: 'actor', name: 'admin' },
      ...liveAtlas([item(33, { title: 'Rate limiter per plan' }), item(34)]),
    ]));
  };
  const line = (needle: string) => t.lines().find((l) => l.includes(needle)) ?? '';

  afterEach(() => h.stop());

  describe.each(SIZES)('at %ix%i', (columns, rows) => {
    it('should show a change from the command line in the Events tab: who, and what before → after', async () => {
      start(columns, rows);
      dispatch(
        { type: 'events_loaded', events: [event(30, { item_id: 'ATL-34' })] },
        {
          type: 'changes_loaded',
          project: 'atlas',
          changes: [
            change(5, { item_id: 'ATL-33', object_ref: 'ATL-33' }),
            change(40, {
              actor: 'mia',
              session_id: 12,
              harness: 'claude-code',
              path: 'mcp',
              object: 'dependency',
              object_ref: 'ATL-33 → ATL-34',
              action: 'added',
              field: null,
              before: null,
              after: null,
            }),
          ],
        },
      );
      await press('5');
      // newest first: the priority change (5 s ago), the stored event (30 s), the agent's dependency (40 s)
      const priority = line('priority: medium → high');
      expect(priority).toMatch(/ATL-33\s+admin\s/);
      const rowsShown = t.lines();
      const at = (needle: string) => rowsShown.findIndex((l) => l.includes(needle));
      expect(at('priority: medium → high')).toBeLessThan(at('ChargeDecisionMade'));
      expect(at('ChargeDecisionMade')).toBeLessThan(at('dependency ATL-33 → ATL-34 added'));
      expect(line('dependency ATL-33')).toContain(columns >= 120 ? 'mia #12 claude-code' : 'mia #12');
      if (columns >= 100) expect(priority).toMatch(/admin\s+cli\s/);
      // no row without an actor
      expect(t.text()).not.toContain('(no actor)');
      // every row is the screen's width in cells (display-width aware)
      for (const r of t.cellRows()) expect(r.length).toBeLessThanOrEqual(columns);
      // the filter works on who and what
      await press('/', 'm', 'i', 'a');
      expect(t.text()).toContain('dependency ATL-33');
      expect(t.text()).not.toContain('priority: medium → high');
      await press('\x1b');
      expect(t.text()).toContain('priority: medium → high');
      // enter shows the whole record (g: the newest row; the filter kept the selection on mia's row)
      await press('g', '\r');
      expect(t.text()).toContain('Change #5');
      expect(t.text()).toContain('"before": "medium"');
    });

    it('should follow new changes at the top, and count them when scrolled away', async () => {
      start(columns, rows);
      const changes = Array.from({ length: 6 }, (_, i) => change(60 + i, { field: 'title', after: `t${i}` }));
      dispatch({ type: 'changes_loaded', project: 'atlas', changes });
      await press('5');
      expect(line('›')).toContain('title: medium → t0');
      // a new change at the top while the user is there: it is selected
      dispatch({ type: 'changes_loaded', project: 'atlas', changes: [change(2), ...changes] });
      expect(line('›')).toContain('priority: medium → high');
      expect(t.text()).not.toContain('new · g goes to the top');
      // scrolled down: the selection stays, the marker counts what arrived
      await press('j', 'j');
      const held = line('›');
      dispatch({
        type: 'changes_loaded',
        project: 'atlas',
        changes: [change(1, { after: 'low' }), change(0, { after: 'low' }), change(2), ...changes],
      });
      expect(line('›')).toBe(held);
      expect(t.text()).toContain('↑ 2 new · g goes to the top');
      await press('g');
      expect(line('›')).toContain('priority: medium → low');
      expect(t.text()).not.toContain('new · g goes to the top');
    });

    it('should show the item history in the detail pane, and the whole of it on h', async () => {
      start(columns, rows);
      await press('\r');
      dispatch({
        type: 'detail_loaded',
        ref: 'ATL-33',
        data: {
          part: 'history',
          value: [
            change(120, { item_id: 'ATL-33' }),
            change(7200, { field: 'title', before: 'Rate limiter', after: '限流器 per plan', path: 'tui' }),
          ],
        },
      });
      const text = t.text();
      expect(text).toContain('History (h: all)');
      expect(line('priority: medium → high')).toMatch(/ 2m\s+admin via cli\s+priority: medium → high/);
      // wide characters wrap by display width inside the pane's border
      expect(t.cellRows().join('\n')).toContain('限流器 per plan');
      for (const r of t.cellRows()) expect(r.length).toBeLessThanOrEqual(columns);
      // the footer offers h while the pane is open
      expect(t.lines()[rows - 1]).toContain('h history');
      await press('h');
      expect(t.text()).toContain('History of ATL-33');
      expect(t.text()).toContain('loading…');
      const page = Array.from({ length: 40 }, (_, i) =>
        change(100 + i, { field: 'title', before: `b${i}`, after: `\u001b[31mred${i}` }),
      );
      dispatch({ type: 'item_history_loaded', ref: 'ATL-33', changes: page, next: '60', older: false });
      expect(t.text()).toContain('title: b0 → \\x1b[31mred0');
      // stored text never reaches the terminal raw: no escape from a value
      expect(t.text()).not.toContain('\u001b');
      expect(t.text()).toContain('1-');
      await press('j');
      expect(t.text()).not.toContain('title: b0 →');
      expect(t.text()).toContain('title: b1 →');
      // the oldest loaded: G; the older page is asked for; k moves up at once from the last page
      await press('G');
      expect(t.text()).toContain('title: b39 →');
      expect(t.text()).toContain('loading older…');
      await press('k');
      expect(t.text()).not.toContain('title: b39 →');
      expect(t.text()).toContain('title: b38 →');
      await press('\x1b');
      expect(t.text()).not.toContain('History of ATL-33');
      for (const r of t.cellRows()) expect(r.length).toBeLessThanOrEqual(columns);
    });
  });
});
