import { terminalLine } from '@app/client';

// Text helpers for blessed tag strings: widths are counted on the raw text, then it is escaped and painted.

export interface Theme {
  color: boolean;
}

export function themeFromEnv(env: NodeJS.ProcessEnv = process.env): Theme {
  // https://no-color.org: any non-empty NO_COLOR turns colour off; glyphs and words still carry every signal
  return { color: !(env.NO_COLOR !== undefined && env.NO_COLOR !== '') };
}

export function esc(text: string): string {
  return text.replace(/[{}]/g, (c) => (c === '{' ? '{open}' : '{close}'));
}

// Control characters would move the cursor and bidi overrides reorder the line; titles and bodies come from other
// people: shown as visible escapes, as the command line shows them (libs/client terminal-text.ts).
export function clean(text: string): string {
  return terminalLine(text);
}

export function fit(text: string, width: number, align: 'left' | 'right' = 'left'): string {
  if (width <= 0) return '';
  const t = clean(text);
  if (t.length > width) return width === 1 ? '…' : `${t.slice(0, width - 1)}…`;
  return align === 'left' ? t.padEnd(width) : t.padStart(width);
}

export function truncate(text: string, width: number): string {
  const t = clean(text);
  if (width <= 0) return '';
  return t.length > width ? `${t.slice(0, Math.max(0, width - 1))}…` : t;
}

export function paint(theme: Theme, text: string, fg: string): string {
  return theme.color ? `{${fg}-fg}${text}{/${fg}-fg}` : text;
}

export function bold(text: string): string {
  return `{bold}${text}{/bold}`;
}

export function inverse(text: string): string {
  return `{inverse}${text}{/inverse}`;
}

// Word-wraps plain text into lines of at most width characters.
export function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  const w = Math.max(8, width);
  for (const raw of text.replace(/\r/g, '').split('\n')) {
    const line = clean(raw.replace(/\t/g, '  '));
    if (line.length <= w) {
      out.push(line);
      continue;
    }
    let rest = line;
    while (rest.length > w) {
      let cut = rest.lastIndexOf(' ', w);
      if (cut <= w / 3) cut = w;
      out.push(rest.slice(0, cut).trimEnd());
      rest = rest.slice(cut).trimStart();
    }
    if (rest) out.push(rest);
  }
  return out;
}

export const PRIORITY_COLOR: Record<string, string> = { high: 'red', medium: 'yellow', low: 'gray' };
export const PRIORITY_SHORT: Record<string, string> = { high: 'high', medium: 'med', low: 'low' };
