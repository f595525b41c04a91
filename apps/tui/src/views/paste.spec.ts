import { App } from '../app';
import type { Action } from '../state/actions';
import { initialState } from '../state/state';
import { frontier, item, NOW, project, testScreen, TestScreen } from '../testing/fixtures';
import { PasteReader } from './paste';
import { makeTheme } from './theme';

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
  let t: TestScreen;
  let app: App;
  let quit = 0;
  const dispatch = (...actions: Action[]) => {
    actions.forEach((a) => app.store.dispatch(a));
    app.renderNow();
  };
  const write = async (bytes: string) => {
    t.input.write(bytes);
    await new Promise((r) => setImmediate(r));
    app.renderNow();
  };
  beforeEach(() => {
    t = testScreen(columns, rows, 'tmux-256color');
    app = new App({
      screen: t.screen,
      theme: makeTheme(),
      state: initialState({ now: NOW, url: 'http://127.0.0.1:7700' }),
      effects: null,
      onQuit: () => quit++,
    });
    dispatch(
      { type: 'projects_loaded', projects: [project('atlas')] },
      { type: 'frontier_loaded', project: 'atlas', frontier: frontier([item(2), item(3), item(4)]) },
      { type: 'connection', state: 'live' },
    );
  });
  afterEach(() => {
    app.stop();
    t.destroy();
  });

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
