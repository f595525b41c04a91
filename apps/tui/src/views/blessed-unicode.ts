import { codePointWidth, displayWidth } from '@app/client';

// blessed 0.1.81 (2015) has its own width tables: it draws an emoji (🚀, ✅) in one cell where every current
// terminal draws two, so the rest of the row shifts right and runs into the detail pane's border. Its content
// parser and its screen writer ask three members of its unicode module (which cells are wide, which are zero-width,
// how wide a string is); they are pointed at the one measure the views lay out with (libs/client display-width.ts),
// so blessed's cell grid, the views' columns and the terminal agree.

interface BlessedUnicode {
  charWidth: (str: string | number, i?: number) => number;
  strWidth: (str: string) => number;
  combining: Record<number, boolean>;
  chars: { all: unknown };
  codePointAt: (str: string, i: number) => number;
  __svcDisplayWidth?: boolean;
}

const MAYBE_WIDE = /[\u1100-\u{10ffff}]/u;

export function patchBlessedUnicode(): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const unicode = require('blessed/lib/unicode') as BlessedUnicode;
  if (unicode.__svcDisplayWidth) return;
  unicode.__svcDisplayWidth = true;
  const pointOf = (str: string | number, i = 0) => (typeof str === 'number' ? str : unicode.codePointAt(str, i));
  unicode.charWidth = (str, i) => {
    const point = pointOf(str, i);
    // blessed turns tabs into spaces before it measures; a stray one counts as its tab width would
    return point === 0x09 ? 8 : codePointWidth(point);
  };
  unicode.strWidth = (str) => displayWidth(str);
  // element.render asks `combining[point]` for every cell to keep zero-width marks in the cell before
  unicode.combining = new Proxy({} as Record<number, boolean>, {
    get: (_target, key) => {
      if (typeof key !== 'string') return undefined;
      const point = Number(key);
      return point >= 0x300 && codePointWidth(point) === 0 ? true : undefined;
    },
  });
  // parseContent: `content.replace(chars.all, '$1\x03')` puts a filler cell after every wide character
  unicode.chars.all = {
    [Symbol.replace]: (content: string, replacement: string) => {
      if (!MAYBE_WIDE.test(content)) return content;
      const filler = replacement === '??' ? '??' : null;
      let out = '';
      for (const ch of content) {
        if (codePointWidth(ch.codePointAt(0)!) === 2) out += filler ?? `${ch}\x03`;
        else out += ch;
      }
      return out;
    },
  };
}
