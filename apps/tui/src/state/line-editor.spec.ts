import { editLine, LineEdit, lineAt, LineState, walkHistory } from './line-editor';

// The shared line editor, without a screen: state in, state out.

const apply = (s: LineState, ...edits: (LineEdit['op'] | string)[]) =>
  edits.reduce(
    (acc, e) => editLine(acc, e.startsWith('+') ? { op: 'insert', text: e.slice(1) } : ({ op: e } as LineEdit)),
    s,
  );

describe('line editor', () => {
  it('should move by character, word and line ends, and insert at the cursor', () => {
    let s = lineAt('fix the login bug', null);
    expect(s.cursor).toBe(17);
    s = apply(s, 'word_left');
    expect(s.cursor).toBe(14);
    s = apply(s, 'word_left', 'word_left', '+new ');
    expect(s.text).toBe('fix new the login bug');
    s = apply(s, 'home', '+[x] ', 'end', '+!');
    expect(s.text).toBe('[x] fix new the login bug!');
    s = apply(s, 'home', 'word_right');
    expect(s.cursor).toBe(2);
    s = apply(s, 'left', 'right', 'right', 'backspace');
    expect(s.text).toBe('[x fix new the login bug!');
  });

  it('should cut with C-w, C-u and C-k and put the cut back with C-y', () => {
    let s = apply(lineAt('deploy to staging now', null), 'kill_word_back');
    expect(s).toMatchObject({ text: 'deploy to staging ', kill: 'now' });
    s = apply(s, 'home', 'yank');
    expect(s.text).toBe('nowdeploy to staging ');
    s = apply(s, 'word_right', 'kill_end');
    expect(s).toMatchObject({ text: 'nowdeploy', kill: ' to staging ' });
    s = apply(lineAt('abc def', 4), 'kill_start');
    expect(s).toMatchObject({ text: 'def', cursor: 0, kill: 'abc ' });
  });

  it('should step over a wide character or an emoji whole, and keep a pasted text on one line', () => {
    let s = apply(lineAt('a🎉b', null), 'left', 'left');
    expect(s.cursor).toBe(1);
    s = apply(s, 'delete');
    expect(s.text).toBe('ab');
    s = apply(lineAt('x', null), '+line one\nline two\r\n\tend');
    expect(s.text).toBe('xline one line two  end');
  });

  it('should keep line breaks in multi-line mode (a comment), Home/End and C-u/C-k acting on the cursor line', () => {
    let s = editLine(lineAt('', null), { op: 'insert', text: 'one\r\ntwo\tx\u0007' }, true);
    expect(s.text).toBe('one\ntwo\tx');
    s = editLine(s, { op: 'home' }, true);
    expect(s.cursor).toBe(4);
    s = editLine(s, { op: 'kill_end' }, true);
    expect([s.text, s.kill]).toEqual(['one\n', 'two\tx']);
    s = editLine(editLine(s, { op: 'left' }, true), { op: 'home' }, true);
    expect(s.cursor).toBe(0);
    s = editLine(editLine(s, { op: 'end' }, true), { op: 'kill_start' }, true);
    expect([s.text, s.cursor]).toEqual(['\n', 0]);
  });

  it('should walk the history up and back down to the line being typed', () => {
    const h = ['sort age', 'filter pri:high'];
    const up = walkHistory(h, { at: null, draft: '' }, 'fi', 'older')!;
    expect(up.text).toBe('filter pri:high');
    const up2 = walkHistory(h, up.walk, up.text, 'older')!;
    expect(up2.text).toBe('sort age');
    expect(walkHistory(h, up2.walk, up2.text, 'older')).toBeNull();
    const down = walkHistory(h, up2.walk, up2.text, 'newer')!;
    expect(down.text).toBe('filter pri:high');
    expect(walkHistory(h, down.walk, down.text, 'newer')!.text).toBe('fi');
  });
});
