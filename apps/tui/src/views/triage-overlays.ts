import { shownOptions } from '../state/triage';
import { Dialog } from '../state/state';
import { displayWidth, esc, fit, inverse, paint, promptText, Theme, truncate, wrap } from './format';
import type { OverlayContent } from './overlay-content';

// A confirmation's focused default is No.

function buttons(focus: 'no' | 'yes', yesLabel: string): string {
  const no = '[ No ]';
  const yes = `[ ${yesLabel} ]`;
  return focus === 'no' ? `   ${inverse(`>${no}<`)}   ${esc(yes)} ` : `    ${no}   ${inverse(`>${esc(yes)}<`)}`;
}

const PALETTE_ROWS = 12;

export function pickerDialog(
  d: Dialog & { kind: 'picker' },
  width: number,
  height: number,
  theme: Theme,
  cursor: number | null = null,
): OverlayContent {
  const w = Math.min(90, width - 4);
  const prefix = d.purpose === 'palette' ? ':' : 'filter: ';
  const lines = [` ${prefix}${promptText(d.filter, cursor, w - prefix.length - 4)}`, ''];
  if (!d.options) {
    lines.push(` ${paint(theme, 'loading…', 'yellow')}`);
    return { title: d.title, lines, width: w };
  }
  const shown = shownOptions(d);
  const room = Math.max(3, height - 8);
  const start = Math.max(0, Math.min(d.index - room + 1, shown.length - room));
  shown.slice(start, start + room).forEach((o, i) => {
    const mark = o.current ? '● ' : '  ';
    const note = o.note ? `  ${o.note}` : '';
    const text = truncate(`${mark}${o.label}${note}`, w - 4);
    lines.push(start + i === d.index ? inverse(`›${esc(fit(text, w - 4))}`) : ` ${esc(text)}`);
  });
  if (shown.length === 0) lines.push(` ${paint(theme, `nothing matches "${esc(d.filter)}"`, 'gray')}`);
  if (d.purpose === 'palette') while (lines.length < 2 + Math.min(room, PALETTE_ROWS)) lines.push('');
  lines.push('');
  lines.push(paint(theme, ' type to filter · enter takes the highlighted (top) match · ↑↓ move · esc cancels', 'gray'));
  return { title: d.title, lines, width: w };
}

export function inputDialog(
  d: Dialog & { kind: 'input' },
  width: number,
  theme: Theme,
  cursor: number | null = null,
): OverlayContent {
  const w = Math.min(90, width - 4);
  const room = w - displayWidth(d.prompt) - 6;
  const lines = [
    ` ${esc(d.prompt)}: ${promptText(d.value, cursor, room + 1)}`,
    '',
    paint(theme, ' enter submits · esc cancels · ←→ C-a C-e M-b M-f C-w C-u C-k C-y edit', 'gray'),
  ];
  return { title: d.title, lines, width: w };
}

export function triageConfirmDialog(
  d: Dialog & { kind: 'triage-confirm' },
  width: number,
  height: number,
): OverlayContent {
  const w = Math.min(84, width - 4);
  const lines: string[] = [];
  const body: string[] = [];
  for (const l of d.lines) wrap(l, w - 4).forEach((x) => body.push(` ${esc(x)}`));
  const room = Math.max(3, height - 6);
  lines.push(...(body.length > room ? [...body.slice(0, room - 1), ` … and ${body.length - room + 1} more`] : body));
  lines.push('');
  lines.push(buttons(d.focus, d.undo ? 'Yes, undo' : 'Yes'));
  return { title: d.title, lines, width: w };
}

export function refusalDialog(
  d: Dialog & { kind: 'refusal' },
  width: number,
  height: number,
  theme: Theme,
): OverlayContent {
  const w = Math.min(96, width - 4);
  const lines: string[] = [];
  for (const l of d.lines)
    wrap(l, w - 4).forEach((x) => lines.push(` ${paint(theme, esc(x), x.startsWith('✗') ? 'red' : 'white')}`));
  const room = Math.max(3, height - 6);
  if (lines.length <= room) {
    lines.push('', paint(theme, ' enter or esc closes', 'gray'));
    return { title: d.title, lines, width: w };
  }
  const top = Math.min(d.scroll ?? 0, lines.length - (room - 1));
  const out = lines.slice(top, top + room - 1);
  const below = lines.length - top - out.length;
  out.push(
    paint(theme, ` lines ${top + 1}–${top + out.length} of ${lines.length}${below ? ` · ${below} more` : ''}`, 'gray'),
  );
  out.push('', paint(theme, ' j/k scroll · enter or esc closes', 'gray'));
  return { title: d.title, lines: out, width: w };
}
