import { codePointWidth, displayWidth } from '@app/client';

// blessed 0.1.81 draws an emoji in one cell where every current terminal draws two, so the rest of the row runs
// into the detail pane's border. The three members of its unicode module its parser and writer ask are pointed at
// the one measure the views lay out with (display-width.ts), so blessed's grid, the views and the terminal agree.

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
  patchBlessedWrap();
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

// blessed cuts and aligns a line by its length in UTF-16 units (element.js `_wrapContent`, `_align`) but draws a
// surrogate pair in one cell and a combining mark in none, so a row with emoji lost its last cells. Before blessed
// cuts, every multi-unit cell is swapped for one Private Use placeholder (a Private Use character already in the text
// too, so every placeholder maps back), and swapped back after.
const PUA_FIRST = 0xe000;
const PUA_LAST = 0xf8ff;
// anything at or past U+0300 (combining marks, surrogates, Private Use): plain text goes to blessed untouched
const needsPlaceholders = (text: string) => {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) >= 0x300) return true;
  return false;
};
const PLACEHOLDERS = /[\ue000-\uf8ff]/g;

interface WrappedLines extends Array<string> {
  fake: string[];
  real: string[];
}

function toCells(content: string): { text: string; back: string[] } | null {
  const back: string[] = [];
  const index = new Map<string, number>();
  let out = '';
  let cell = '';
  const flush = () => {
    if (!cell) return;
    const point = cell.codePointAt(0)!;
    if (cell.length > 1 || (point >= PUA_FIRST && point <= PUA_LAST)) {
      let n = index.get(cell);
      if (n === undefined) {
        n = back.length;
        if (PUA_FIRST + n > PUA_LAST) throw new RangeError('too many distinct cells');
        back.push(cell);
        index.set(cell, n);
      }
      out += String.fromCharCode(PUA_FIRST + n);
    } else out += cell;
    cell = '';
  };
  try {
    for (const ch of content) {
      const point = ch.codePointAt(0)!;
      // a combining mark stays in the cell before it, as blessed's render puts it (`combining[point]`)
      if (cell && point >= 0x300 && codePointWidth(point) === 0 && ch !== '\x03') cell += ch;
      else {
        flush();
        cell = ch;
      }
    }
    flush();
  } catch {
    return null;
  }
  return { text: out, back };
}

export function patchBlessedWrap(): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Element = require('blessed/lib/widgets/element') as {
    prototype: { _wrapContent: (content: string, width: number) => WrappedLines; __svcCells?: boolean };
  };
  const proto = Element.prototype;
  if (proto.__svcCells) return;
  proto.__svcCells = true;
  const original = proto._wrapContent;
  proto._wrapContent = function (this: unknown, content: string, width: number): WrappedLines {
    if (!content || !needsPlaceholders(content)) return original.call(this, content, width);
    const cells = toCells(content);
    if (!cells) return original.call(this, content, width);
    const restore = (line: string) => line.replace(PLACEHOLDERS, (p) => cells.back[p.charCodeAt(0) - PUA_FIRST] ?? p);
    const out = original.call(this, cells.text, width);
    for (let i = 0; i < out.length; i++) out[i] = restore(out[i]);
    out.fake = out.fake.map(restore);
    return out;
  };
}
