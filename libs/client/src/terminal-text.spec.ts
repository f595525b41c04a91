import { terminalLine, terminalSafe, terminalText } from './terminal-text';

describe('terminal text', () => {
  describe(terminalLine.name, () => {
    it.each([
      ['ESC (CSI: clear the screen)', 'a\u001b[2Jb', 'a\\x1b[2Jb'],
      ['OSC 0 (window title) ended by BEL', '\u001b]0;pwned\u0007', '\\x1b]0;pwned\\x07'],
      ['OSC 52 (clipboard write) ended by ST', '\u001b]52;c;cm0gLXJmIH4=\u001b\\', '\\x1b]52;c;cm0gLXJmIH4=\\x1b\\'],
      ['NUL', 'a\u0000b', 'a\\x00b'],
      ['backspace', 'ab\u0008c', 'ab\\x08c'],
      ['unit separator (last C0)', '\u001f', '\\x1f'],
      ['newline', 'a\nb', 'a\\nb'],
      ['tab', 'a\tb', 'a\\tb'],
      ['carriage return', 'a\rb', 'a\\rb'],
      ['DEL', 'a\u007fb', 'a\\x7fb'],
      ['C1 CSI (U+009B)', '\u009b2J', '\\x9b2J'],
      ['C1 OSC (U+009D) and ST (U+009C)', '\u009d0;x\u009c', '\\x9d0;x\\x9c'],
      ['first C1 (U+0080)', '\u0080', '\\x80'],
      ['right-to-left override', 'abc\u202etxt.exe', 'abc\\u202etxt.exe'],
      ['left-to-right embedding and pop', '\u202aa\u202c', '\\u202aa\\u202c'],
      ['isolates', '\u2066a\u2067b\u2068c\u2069', '\\u2066a\\u2067b\\u2068c\\u2069'],
      ['bidi marks', '\u200e\u200f\u061c', '\\u200e\\u200f\\u061c'],
      ['line and paragraph separators', 'a\u2028b\u2029c', 'a\\u2028b\\u2029c'],
    ])('should show %s as a visible escape', (_what, input, shown) => {
      expect(terminalLine(input)).toBe(shown);
    });

    it('should leave printable text alone: accents, CJK, emoji, Hebrew, backslashes', () => {
      const text = 'Café 東京 🚀 שלום C:\\temp\\x1b ~`!@#$%^&*()';
      expect(terminalLine(text)).toBe(text);
    });

    it('should leave no character below U+0020 or from U+007F to U+009F', () => {
      const all = Array.from({ length: 0xa0 }, (_, i) => String.fromCharCode(i)).join('');
      // eslint-disable-next-line no-control-regex
      expect(terminalLine(all)).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    });

    it('should be idempotent (an escaped text is printable)', () => {
      const once = terminalLine('\u001b[31mred\u202e\n');
      expect(terminalLine(once)).toBe(once);
    });
  });

  describe(terminalText.name, () => {
    it('should keep newlines and tabs of a multi-line text and escape everything else', () => {
      expect(terminalText('line 1\n\tline 2\r\n\u001b[2J\u202e')).toBe('line 1\n\tline 2\\r\n\\x1b[2J\\u202e');
    });
  });

  describe(terminalSafe.name, () => {
    it('should escape every string and key of a wire body and keep its shape', () => {
      const body = {
        items: [{ title: 'x\u001b]0;pwned\u0007', frozen: 0, owner: null, body: 'a\nb' }],
        total: 1,
        payload: { 'k\u001b': ['\u009b'] },
        ok: true,
      };
      expect(terminalSafe(body)).toEqual({
        items: [{ title: 'x\\x1b]0;pwned\\x07', frozen: 0, owner: null, body: 'a\nb' }],
        total: 1,
        payload: { 'k\\x1b': ['\\x9b'] },
        ok: true,
      });
    });
  });
});
