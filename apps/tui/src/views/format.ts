import { cutToWidth, displayText, displayWidth, fitWidth, terminalLine, truncateWidth } from '@app/client';

import { makeTheme, Role, Theme } from './theme';

// Widths are display widths counted on the raw text, before it is escaped and painted. Never `.length` for layout.

export { displayWidth };
export type { Theme } from './theme';
export { themeFromEnv } from './theme';

// Painting off: the selected (inverted) row is drawn without colours.
export const PLAIN: Theme = makeTheme({ color: false });

export function esc(text: string): string {
  return text.replace(/[{}]/g, (c) => (c === '{' ? '{open}' : '{close}'));
}

// Titles and bodies come from other people: control characters and bidi overrides are shown as visible escapes
// (terminal-text.ts), and the joiners terminals disagree about are dropped (displayText).
export function clean(text: string): string {
  return displayText(terminalLine(text));
}

export function promptText(text: string, cursor: number | null, room: number): string {
  const at = cursor === null ? text.length : Math.min(text.length, Math.max(0, cursor));
  let before = clean(text.slice(0, at));
  let after = clean(text.slice(at));
  const space = Math.max(4, room - 1);
  if (displayWidth(before) + displayWidth(after) > space) {
    const keepAfter = Math.min(displayWidth(after), Math.floor(space / 3));
    after = displayWidth(after) > keepAfter ? truncateWidth(after, keepAfter) : after;
    const left = space - displayWidth(after);
    if (displayWidth(before) > left) before = `…${tailWidth(before, left - 1)}`;
  }
  return `{bold}${esc(before)}{/bold}▏{bold}${esc(after)}{/bold}`;
}

function tailWidth(text: string, width: number): string {
  const points = [...text];
  let out = '';
  for (let i = points.length - 1; i >= 0; i--) {
    if (displayWidth(points[i] + out) > width) break;
    out = points[i] + out;
  }
  return out;
}

export function fit(text: string, width: number, align: 'left' | 'right' = 'left'): string {
  return fitWidth(clean(text), width, align);
}

export function truncate(text: string, width: number): string {
  return truncateWidth(clean(text), width);
}

export function paint(theme: Theme, text: string, fg: string): string {
  if (!theme.color) return text;
  const c = theme.palette[fg as Role] ?? fg;
  return c === 'default' ? text : `{${c}-fg}${text}{/${c}-fg}`;
}

export function bold(text: string): string {
  return `{bold}${text}{/bold}`;
}

export function inverse(text: string): string {
  return `{inverse}${text}{/inverse}`;
}

export function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  const w = Math.max(8, width);
  for (const raw of text.replace(/\r/g, '').split('\n')) {
    const line = clean(raw.replace(/\t/g, '  '));
    if (displayWidth(line) <= w) {
      out.push(line);
      continue;
    }
    let rest = line;
    while (displayWidth(rest) > w) {
      const head = cutToWidth(rest, w).text;
      let cut = head.lastIndexOf(' ');
      if (cut <= head.length / 3) cut = head.length;
      out.push(rest.slice(0, cut).trimEnd());
      rest = rest.slice(cut).trimStart();
    }
    if (rest) out.push(rest);
  }
  return out;
}

export const PRIORITY_COLOR: Record<string, string> = { high: 'red', medium: 'yellow', low: 'gray' };
export const PRIORITY_SHORT: Record<string, string> = { high: 'high', medium: 'med', low: 'low' };
