// Pure: one state per screen (only one prompt reads keys at a time). The cursor counts UTF-16 units but always moves
// by whole code points, so a wide character or an emoji is stepped over at once.

export interface LineState {
  text: string;
  cursor: number;
  // the last text cut with C-w, C-u or C-k (C-y puts it back)
  kill: string;
}

export type LineEdit =
  | { op: 'insert'; text: string }
  | {
      op:
        | 'backspace'
        | 'delete'
        | 'left'
        | 'right'
        | 'home'
        | 'end'
        | 'word_left'
        | 'word_right'
        | 'kill_word_back'
        | 'kill_start'
        | 'kill_end'
        | 'yank';
    };

export function lineAt(text: string, cursor: number | null | undefined, kill = ''): LineState {
  const at = cursor === null || cursor === undefined ? text.length : Math.max(0, Math.min(text.length, cursor));
  return { text, cursor: at, kill };
}

function prevPoint(text: string, i: number): number {
  if (i <= 0) return 0;
  const low = text.charCodeAt(i - 1);
  return i >= 2 && low >= 0xdc00 && low <= 0xdfff && isHigh(text.charCodeAt(i - 2)) ? i - 2 : i - 1;
}
function nextPoint(text: string, i: number): number {
  if (i >= text.length) return text.length;
  return isHigh(text.charCodeAt(i)) && i + 1 < text.length ? i + 2 : i + 1;
}
function isHigh(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

const WORD = /[\p{L}\p{N}_]/u;
const isWord = (text: string, i: number) => WORD.test(String.fromCodePoint(text.codePointAt(i) ?? 32));

function wordLeft(text: string, i: number): number {
  let at = i;
  while (at > 0 && !isWord(text, prevPoint(text, at))) at = prevPoint(text, at);
  while (at > 0 && isWord(text, prevPoint(text, at))) at = prevPoint(text, at);
  return at;
}
function wordRight(text: string, i: number): number {
  let at = i;
  while (at < text.length && !isWord(text, at)) at = nextPoint(text, at);
  while (at < text.length && isWord(text, at)) at = nextPoint(text, at);
  return at;
}
function spaceLeft(text: string, i: number): number {
  let at = i;
  while (at > 0 && /\s/.test(text[at - 1])) at--;
  while (at > 0 && !/\s/.test(text[at - 1])) at = prevPoint(text, at);
  return at;
}

export function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\r\n|[\r\n\t]/g, ' ').replace(/[\x00-\x1f\x7f]/g, '');
}

// Pasted text arrives with CR line ends.
export function multiLineText(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\r\n?/g, '\n').replace(/[\x00-\x08\x0b-\x1f\x7f]/g, '');
}

// In multi-line mode (a comment) Home/End and C-u/C-k act on the cursor's line, and inserted text keeps its breaks.
export function editLine(s: LineState, edit: LineEdit, multiLine = false): LineState {
  const { text, cursor } = s;
  const lineStart = multiLine ? text.lastIndexOf('\n', cursor - 1) + 1 : 0;
  const nextBreak = multiLine ? text.indexOf('\n', cursor) : -1;
  const lineEnd = nextBreak < 0 ? text.length : nextBreak;
  const cut = (from: number, to: number, keep: boolean): LineState => ({
    text: text.slice(0, from) + text.slice(to),
    cursor: from,
    kill: keep && to > from ? text.slice(from, to) : s.kill,
  });
  switch (edit.op) {
    case 'insert': {
      const add = multiLine ? multiLineText(edit.text) : oneLine(edit.text);
      return { ...s, text: text.slice(0, cursor) + add + text.slice(cursor), cursor: cursor + add.length };
    }
    case 'backspace':
      return cut(prevPoint(text, cursor), cursor, false);
    case 'delete':
      return cut(cursor, nextPoint(text, cursor), false);
    case 'left':
      return { ...s, cursor: prevPoint(text, cursor) };
    case 'right':
      return { ...s, cursor: nextPoint(text, cursor) };
    case 'home':
      return { ...s, cursor: lineStart };
    case 'end':
      return { ...s, cursor: lineEnd };
    case 'word_left':
      return { ...s, cursor: wordLeft(text, cursor) };
    case 'word_right':
      return { ...s, cursor: wordRight(text, cursor) };
    case 'kill_word_back':
      return cut(spaceLeft(text, cursor), cursor, true);
    case 'kill_start':
      return cut(lineStart, cursor, true);
    case 'kill_end':
      return cut(cursor, lineEnd, true);
    case 'yank':
      return { ...s, text: text.slice(0, cursor) + s.kill + text.slice(cursor), cursor: cursor + s.kill.length };
  }
}

// at = null is the line being typed, kept as `draft`.
export interface HistoryWalk {
  at: number | null;
  draft: string;
}

export function walkHistory(
  entries: readonly string[],
  walk: HistoryWalk,
  text: string,
  direction: 'older' | 'newer',
): { walk: HistoryWalk; text: string } | null {
  if (entries.length === 0) return null;
  if (direction === 'older') {
    const at = walk.at === null ? entries.length - 1 : walk.at - 1;
    if (at < 0) return null;
    return { walk: { at, draft: walk.at === null ? text : walk.draft }, text: entries[at] };
  }
  if (walk.at === null) return null;
  const at = walk.at + 1;
  if (at >= entries.length) return { walk: { at: null, draft: '' }, text: walk.draft };
  return { walk: { at, draft: walk.draft }, text: entries[at] };
}
