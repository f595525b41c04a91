import { appHarness, liveAtlas } from '../testing/app-harness';
import { item, TestScreen } from '../testing/fixtures';

// The readline keys in every prompt, through blessed's key parser on a screen over streams.

const SIZES: [number, number][] = [
  [80, 24],
  [120, 36],
];

const K = {
  left: '\x1b[D',
  right: '\x1b[C',
  up: '\x1b[A',
  down: '\x1b[B',
  home: '\x1b[H',
  end: '\x1b[F',
  Ca: '\x01',
  Ce: '\x05',
  Cb: '\x02',
  Cf: '\x06',
  Mb: '\x1bb',
  Mf: '\x1bf',
  Cw: '\x17',
  Cu: '\x15',
  Ck: '\x0b',
  Cy: '\x19',
  enter: '\r',
  esc: '\x1b',
};

describe('the line editor in every prompt (keys, render)', () => {
  const h = appHarness();
  const { press, type, state } = h;
  let t: TestScreen;
  const start = (columns: number, rows: number) => {
    ({ t } = h.start(
      columns,
      rows,
      liveAtlas([item(2, { title: 'fix the login bug' }), item(3, { title: 'Rate limiter' })]),
    ));
  };
  const line = (needle: string) => t.lines().find((l) => l.includes(needle)) ?? '';

  afterEach(() => h.stop());

  describe.each(SIZES)('at %ix%i', (columns, rows) => {
    it('should edit the title with ←/→, C-a/C-e, M-b/M-f, C-w, C-u, C-k and C-y', async () => {
      start(columns, rows);
      await press('e');
      expect(line('title:')).toContain('title: fix the login bug▏');
      await press(K.Mb, K.Mb);
      expect(line('title:')).toContain('title: fix the ▏login bug');
      await type('new ');
      await press(K.Ca);
      await type('[x] ');
      await press(K.Ce, K.left, K.left, K.left, K.Ck); // cut "bug"
      expect(state().dialog).toMatchObject({ value: '[x] fix the new login ' });
      await press(K.home, K.Mf, K.Mf, K.Cf, K.Cy); // "bug" back after "fix "
      expect(state().dialog).toMatchObject({ value: '[x] fix bugthe new login ' });
      await press(K.Cb, K.right, K.Cw);
      expect(state().dialog).toMatchObject({ value: '[x] fix the new login ' });
      await press(K.end, K.Cu);
      expect(state().dialog).toMatchObject({ value: '' });
      await press(K.Cy);
      expect(state().dialog).toMatchObject({ value: '[x] fix the new login ' });
      await press(K.enter);
      expect(state().triage.run?.commands).toEqual([{ op: 'title', ref: 'ATL-2', to: '[x] fix the new login' }]);
    });

    it('should edit the / filter mid-line and bring back earlier filters with ↑/↓', async () => {
      start(columns, rows);
      await press('/');
      await type('limter');
      await press(K.left, K.left, K.left);
      await type('i');
      expect(state().filter).toBe('limiter');
      expect(line('/lim')).toContain('/limi▏ter');
      await press(K.enter, '/', K.Cu);
      await type('login');
      await press(K.enter, '/', K.Cu, K.up);
      expect(state().filter).toBe('login');
      await press(K.up);
      expect(state().filter).toBe('limiter');
      await press(K.down, K.down);
      expect(state().filter).toBe('');
      expect(state().filtering).toBe(true);
    });

    it('should edit the palette line and walk its history with ↑', async () => {
      start(columns, rows);
      await press(':');
      await type('ATL3');
      await press(K.left, '-');
      expect(line(':ATL')).toContain(':ATL-▏3');
      await press(K.enter);
      expect(state().cursors.runnable.key).toBe('ATL-3');
      await press(':', K.up);
      expect(state().dialog).toMatchObject({ kind: 'picker', purpose: 'palette', filter: 'ATL-3' });
    });
  });
});
