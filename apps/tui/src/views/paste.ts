// blessed splits what arrives into key presses, so a pasted line break was `enter`: a multi-line paste submitted its
// first line and ran the rest as commands. A paste goes to the prompt whole and is never read as keys.

export const PASTE_ON = '\x1b[?2004h';
export const PASTE_OFF = '\x1b[?2004l';
const START = '\x1b[200~';
const END = '\x1b[201~';

export type InputPart = { kind: 'keys'; text: string } | { kind: 'paste'; text: string };

// A terminal without bracketed paste sends a paste in one write. Keys typed fast (or sent by a slow terminal in one
// read) are shorter or carry escapes (enter, then an arrow).
// eslint-disable-next-line no-control-regex
const LINE_THEN_TEXT = /[\r\n][^\x00-\x1f\x7f]{3}/;
const pasted = (keys: string) => keys.length >= 8 && !keys.includes('\x1b') && LINE_THEN_TEXT.test(keys);

export class PasteReader {
  private buffer: string | null = null;

  feed(chunk: string): InputPart[] {
    const out: InputPart[] = [];
    let rest = chunk;
    while (rest) {
      if (this.buffer === null) {
        const at = rest.indexOf(START);
        const keys = at < 0 ? rest : rest.slice(0, at);
        if (keys) out.push(pasted(keys) ? { kind: 'paste', text: keys } : { kind: 'keys', text: keys });
        if (at < 0) break;
        this.buffer = '';
        rest = rest.slice(at + START.length);
      } else {
        const at = rest.indexOf(END);
        if (at < 0) {
          this.buffer += rest;
          break;
        }
        out.push({ kind: 'paste', text: this.buffer + rest.slice(0, at) });
        this.buffer = null;
        rest = rest.slice(at + END.length);
      }
    }
    return out;
  }
}

interface InputStream {
  emit(event: string | symbol, ...args: unknown[]): boolean;
}

export function readPastes(input: InputStream, onPaste: (text: string) => void): void {
  const reader = new PasteReader();
  const emit = input.emit.bind(input);
  input.emit = (event: string | symbol, ...args: unknown[]): boolean => {
    if (event !== 'data') return emit(event, ...args);
    const chunk = args[0];
    for (const part of reader.feed(Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk))) {
      if (part.kind === 'keys') emit('data', Buffer.from(part.text, 'utf8'));
      else onPaste(part.text);
    }
    return true;
  };
}
