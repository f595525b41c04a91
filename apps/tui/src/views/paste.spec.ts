import { appHarness, liveAtlas } from '../testing/app-harness';
import { App } from '../app';
import { item, TestScreen } from '../testing/fixtures';
import { PasteReader } from './paste';

// A pasted text reaches the prompt whole; its line breaks never submit it or run as keys.

describe(PasteReader.name, () => {
  it('should split keys from a bracketed paste, across chunks', () => {
    const r = new PasteReader();
    expect(r.feed('j\x1b[200~one\r')).toEqual([{ kind: 'keys', text: 'j' }]);
    expect(r.feed('two\x1b[201~k')).toEqual([
      { kind: 'paste', text: 'one\rtwo' },
      { kind: 'keys', text: 'k' },
    ]);
  });

  it('should take a chunk with a line break inside it as a paste, a typed enter as a key', () => {
    const r = new PasteReader();
    expect(r.feed('abcd\nefgh')).toEqual([{ kind: 'paste', text: 'abcd\nefgh' }]);
    expect(r.feed('x\r')).toEqual([{ kind: 'keys', text: 'x\r' }]);
    // keys sent in one read: short, or with an escape (enter, then esc or an arrow)
    expect(r.feed('🎉\r\x1b')).toEqual([{ kind: 'keys', text: '🎉\r\x1b' }]);
    expect(r.feed('ATL-42\r:')).toEqual([{ kind: 'keys', text: 'ATL-42\r:' }]);
    expect(r.feed('\r')).toEqual([{ kind: 'keys', text: '\r' }]);
    expect(r.feed('\x1b[A')).toEqual([{ kind: 'keys', text: '\x1b[A' }]);
  });
});

describe.each([
  [80, 24],
  [120, 36],
])('pasting at %ix%i', (columns, rows) => {
  let quit = 0;
  const h = appHarness({ onQuit: () => quit++ });

  let t: TestScreen;
  let app: App;
  // one chunk of bytes, as one read from the terminal
  const write = (bytes: string) => h.press(bytes);
  beforeEach(() => {
    ({ t, app } = h.start(columns, rows, liveAtlas([item(2), item(3), item(4)])));
  });
  afterEach(() => h.stop());

  it('should put a bracketed multi-line paste into the title prompt whole, without submitting it', async () => {
    await write('e');
    await write('\x15'); // C-u
    await write('\x1b[200~first line\r\nsecond line\rq\x1b[201~');
    expect(app.store.state.dialog).toMatchObject({ kind: 'input', value: 'first line second line q' });
    expect(app.store.state.triage.run).toBeNull();
    expect(t.lines().join('\n')).toContain('first line second line q▏');
    expect(quit).toBe(0);
  });

  it('should take a fast multi-line write (no bracketed paste) as a paste too', async () => {
    await write('/');
    await write('Item\nnumber 3');
    expect(app.store.state.filter).toBe('Item number 3');
    expect(app.store.state.filtering).toBe(true);
  });

  it('should drop a paste with no prompt open rather than run it as keys', async () => {
    await write('\x1b[200~jjq\x1b[201~');
    expect(quit).toBe(0);
    expect(app.store.state.cursors.runnable.key).toBe('ATL-2');
    expect(t.lines().join('\n')).toContain('paste ignored');
  });
});
