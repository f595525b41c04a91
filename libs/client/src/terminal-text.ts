// Stored text (titles, names, reasons, bodies, error messages echoing them) comes from other people. Written raw to
// a terminal, an ESC or C1 byte starts a control sequence (clear the screen, retitle the window, write the
// clipboard) and a bidi override reorders what is shown. Every such character is shown as a visible escape instead.

// C0, DEL, C1; bidi embeddings, overrides, isolates and marks; U+2028 and U+2029.
// eslint-disable-next-line no-control-regex
const TERMINAL_UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

const NAMED: Readonly<Record<string, string>> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };

function visibleEscape(char: string): string {
  const named = NAMED[char];
  if (named) return named;
  const code = char.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

export function terminalLine(text: string): string {
  return text.replace(TERMINAL_UNSAFE, visibleEscape);
}

// A multi-line text view (an item's body): newlines and tabs stay, everything else unsafe is escaped (CR too, so a
// line cannot overwrite itself).
export function terminalText(text: string): string {
  return text.replace(TERMINAL_UNSAFE, (char) => (char === '\n' || char === '\t' ? char : visibleEscape(char)));
}

export function terminalSafe<T>(value: T): T {
  if (typeof value === 'string') return terminalText(value) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => terminalSafe(v)) as T;
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([k, v]) => [terminalText(k), terminalSafe(v)]),
    ) as T;
  }
  return value;
}
