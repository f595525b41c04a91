import stringWidth from 'string-width';

// `.length` counts UTF-16 units, so a CJK title or an emoji would shift every column after it. Terminals disagree
// about sequences (ZWJ emoji, variation selectors, skin tones, tags): tmux 3.3 draws "❤️" in 1 cell where
// string-width counts 2. displayText drops the invisible joiners and selectors first, so every party agrees on what
// is left.

// The bidi controls among the format characters are escaped before (terminal-text.ts); the skin tone modifiers are
// listed by code point so the class holds no emoji sequence.
// eslint-disable-next-line no-misleading-character-class
const AMBIGUOUS = /[\p{Cf}\ufe00-\ufe0f\u{e0100}-\u{e01ef}\u{1f3fb}-\u{1f3ff}]/gu;
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}]/u;
const REGIONAL = /^\p{Regional_Indicator}/u;
const EMOJI_PRESENTATION = /^\p{Emoji_Presentation}/u;

export function displayText(text: string): string {
  return text.replace(AMBIGUOUS, '');
}

// Cells of one code point: 0 for combining marks and controls, 2 for wide (East Asian Wide/Fullwidth, emoji
// presentation), 1 otherwise. Regional indicators count 1 each (a flag is two of them: 2 cells everywhere).
const cache = new Uint8Array(0x110000);

export function codePointWidth(cp: number): number {
  if (cp < 0x300) return cp < 0x20 || (cp >= 0x7f && cp < 0xa0) ? 0 : 1;
  const cached = cache[cp];
  if (cached !== 0) return cached - 1;
  const ch = String.fromCodePoint(cp);
  let w: number;
  if (ZERO_WIDTH.test(ch)) w = 0;
  else if (REGIONAL.test(ch)) w = 1;
  else if (EMOJI_PRESENTATION.test(ch) || stringWidth(ch) === 2) w = 2;
  else w = 1;
  cache[cp] = w + 1;
  return w;
}

const NARROW_ONLY = /^[\u0020-\u007e]*$/;

export function displayWidth(text: string): number {
  if (NARROW_ONLY.test(text)) return text.length;
  let w = 0;
  for (const ch of text) w += codePointWidth(ch.codePointAt(0)!);
  return w;
}

export function cutToWidth(text: string, width: number): { text: string; width: number } {
  if (NARROW_ONLY.test(text)) {
    const t = text.slice(0, Math.max(0, width));
    return { text: t, width: t.length };
  }
  let used = 0;
  let end = 0;
  for (const ch of text) {
    const w = codePointWidth(ch.codePointAt(0)!);
    if (used + w > width) break;
    used += w;
    end += ch.length;
  }
  return { text: text.slice(0, end), width: used };
}

export function fitWidth(text: string, width: number, align: 'left' | 'right' = 'left'): string {
  if (width <= 0) return '';
  const w = displayWidth(text);
  if (w > width) {
    if (width === 1) return '…';
    const cut = cutToWidth(text, width - 1);
    return `${cut.text}…${' '.repeat(width - 1 - cut.width)}`;
  }
  const pad = ' '.repeat(width - w);
  return align === 'left' ? text + pad : pad + text;
}

export function truncateWidth(text: string, width: number): string {
  if (width <= 0) return '';
  if (displayWidth(text) <= width) return text;
  if (width === 1) return '…';
  return `${cutToWidth(text, width - 1).text}…`;
}
