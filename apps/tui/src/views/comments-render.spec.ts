import { App } from '../app';
import { appHarness, liveAtlas } from '../testing/app-harness';
import { TriageCommand } from '../state/state';
import { item, NOW, TestScreen } from '../testing/fixtures';
import type { ItemCommentWire, ItemWire } from '../wire';

// Comments in the detail pane (newest first, who, how long ago, stored text made safe) and `m`,
// which writes one with the line editor over several lines, through blessed's key parser on a screen over streams.

const SIZES: [number, number][] = [
  [80, 24],
  [120, 36],
];

const comment = (id: number, body: string, overrides: Partial<ItemCommentWire> = {}): ItemCommentWire => ({
  id: String(id),
  item_id: 'ATL-2',
  author: 'alice',
  session_id: null,
  harness: null,
  path: 'cli',
  body,
  created_at: new Date(NOW - 3 * 60_000).toISOString(),
  ...overrides,
});

// The item as GET /v1/items/:ref answers it, as far as the pane reads it.
const detailItem = (comments: ItemCommentWire[], count = comments.length) =>
  ({ item_id: 'ATL-2', title: 'fix the login bug', body: '', comments, comment_count: count }) as unknown as ItemWire;

describe('comments in the TUI (render, keys)', () => {
  const h = appHarness();
  const { dispatch, press, type, state } = h;
  let t: TestScreen;
  let app: App;
  const start = (columns: number, rows: number) => {
    ({ t, app } = h.start(
      columns,
      rows,
      liveAtlas([item(2, { title: 'fix the login bug' }), item(3, { title: 'Rate limiter' })]),
    ));
  };

  afterEach(() => h.stop());

  describe.each(SIZES)('at %ix%i', (columns, rows) => {
    it('should add a comment of several lines with m and show it, newest first, in the detail pane', async () => {
      start(columns, rows);
      await press('\r');
      dispatch({
        type: 'detail_loaded',
        ref: 'ATL-2',
        data: { part: 'item', value: detailItem([comment(1, 'an older note')]) },
      });
      expect(t.text()).toContain('Comments (1, newest first');
      expect(t.text()).toContain('alice · 3m ago');

      await press('m');
      expect(t.text()).toContain('Comment on ATL-2');
      expect(t.text()).toContain('C-s posts');
      // the keys line wraps in the box, never cut
      expect(t.text()).toContain('C-k C-y edit');
      // enter breaks the line; the readline keys edit the cursor's line
      await type('looks good');
      await press('\r');
      await type('ship it');
      await press('\x01'); // C-a: the start of this line, not of the comment
      await type('then ');
      expect(state().dialog).toEqual(expect.objectContaining({ kind: 'input', value: 'looks good\nthen ship it' }));
      expect(t.text()).toContain('looks good');
      expect(t.text()).toContain('then ▏ship it');
      expect(t.text()).toContain('2 lines');

      await press('\x13'); // C-s posts
      expect(state().dialog).toBeNull();
      const run = state().triage.run!;
      expect(run.commands).toEqual<TriageCommand[]>([
        { op: 'comment', ref: 'ATL-2', body: 'looks good\nthen ship it' },
      ]);
      // the effects post it and reload the pane (faked here: effects.spec and the e2e run the real ones)
      dispatch(
        {
          type: 'triage_done',
          id: run.id,
          results: [{ command: run.commands[0], ok: true, message: 'ATL-2: comment 2 posted', inverse: null }],
        },
        {
          type: 'detail_loaded',
          ref: 'ATL-2',
          data: {
            part: 'item',
            value: detailItem([
              comment(2, 'looks good\nthen ship it', {
                author: 'admin',
                path: 'tui',
                created_at: new Date(NOW).toISOString(),
              }),
              comment(1, 'an older note'),
            ]),
          },
        },
      );
      const text = t.text();
      expect(text).toContain('Comments (2, newest first');
      expect(text).toContain('admin · just now');
      expect(text.indexOf('admin · just now')).toBeLessThan(text.indexOf('alice · 3m ago'));
      expect(text).toContain('   looks good');
      expect(text).toContain('   then ship it');
      // a comment is not undone from the TUI
      expect(state().triage.undo).toEqual([]);
      for (const r of t.cellRows()) expect(r.length).toBeLessThanOrEqual(columns);
    });

    it('should keep the lines of a pasted block in the comment', async () => {
      start(columns, rows);
      await press('\r');
      await press('m');
      app.onPaste('pasted one\r\npasted two');
      expect(state().dialog).toEqual(expect.objectContaining({ value: 'pasted one\npasted two' }));
      expect(t.text()).toContain('2 lines');
    });

    it('should cancel with esc, refuse an empty comment, and show stored control characters escaped', async () => {
      start(columns, rows);
      await press('\r');
      await press('m');
      await press('\x13');
      expect(state().status?.text).toContain('an empty comment is not posted');
      expect(state().dialog).toEqual(expect.objectContaining({ kind: 'input', purpose: 'comment' }));
      await type('never mind');
      await press('\x1b');
      expect(state().dialog).toBeNull();
      expect(state().triage.run).toBeNull();

      dispatch({
        type: 'detail_loaded',
        ref: 'ATL-2',
        data: {
          part: 'item',
          value: detailItem(
            [
              comment(9, 'evil \u001b]0;owned\u0007 \u001b[31mred', {
                author: 'mallory\u001b[2J',
                session_id: 4,
                harness: 'codex',
              }),
            ],
            12,
          ),
        },
      });
      const text = t.text();
      expect(text).toContain('Comments (12, newest first');
      expect(text).toContain('#4 codex');
      expect(text).toContain('11 older');
      expect(text).not.toContain('\u001b');
      expect(text).toContain('\\x1b[31mred');
    });
  });
});
