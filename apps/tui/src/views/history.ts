import { changeWhat, changeWho } from '@app/client';

import { formatAge } from '../state/selectors';
import type { ItemHistoryDialog, State } from '../state/state';
import type { ChangeRecordWire } from '../wire';
import { displayWidth, esc, fit, paint, Theme, truncate, wrap } from './format';
import type { OverlayContent } from './overlay-content';

function ago(change: ChangeRecordWire, now: number): string {
  const age = formatAge(change.at, now);
  return age ? `${age} ago` : '';
}

export function historyPaneLines(changes: ChangeRecordWire[], now: number, width: number): string[] {
  const out: string[] = [];
  for (const c of changes) {
    wrap(`${formatAge(c.at, now) || '?'}  ${changeWho(c)} via ${c.path}  ${changeWhat(c)}`, width - 3).forEach((l, i) =>
      out.push(`${i === 0 ? ' ' : '   '}${esc(l)}`),
    );
  }
  return out;
}

export function historyDialog(
  d: ItemHistoryDialog,
  state: State,
  width: number,
  height: number,
  theme: Theme,
): OverlayContent {
  const w = Math.min(110, width - 2);
  const inner = w - 4;
  const room = Math.max(1, height - 6);
  const lines: string[] = [];
  const changes = d.changes ?? [];
  const whoWidth = Math.min(24, Math.max(3, ...changes.map((c) => displayWidth(changeWho(c)))));
  const when = 8;
  const via = 6;
  const what = Math.max(8, inner - when - whoWidth - via - 3);
  lines.push(
    paint(theme, ` ${fit('when', when)} ${fit('who', whoWidth)} ${fit('via', via)} ${fit('change', what)}`, 'gray'),
  );
  const scroll = Math.min(d.scroll, Math.max(0, changes.length - room));
  for (const c of changes.slice(scroll, scroll + room)) {
    lines.push(
      ` ${esc(`${fit(ago(c, state.now), when)} ${fit(changeWho(c), whoWidth)} ${fit(c.path, via)} ${fit(changeWhat(c), what)}`)}`,
    );
  }
  if (d.changes === null && !d.error) lines.push(paint(theme, ' loading…', 'gray'));
  else if (changes.length === 0 && !d.error) lines.push(' no change recorded yet');
  if (d.error) lines.push(` ${paint(theme, esc(truncate(`could not load: ${d.error}`, inner)), 'red')}`);
  const range = changes.length > 0 ? `${scroll + 1}-${Math.min(changes.length, scroll + room)}/${changes.length}` : '';
  const more = d.loading && d.changes !== null ? ' · loading older…' : d.next ? ' · more below (j)' : '';
  lines.push(paint(theme, ` ${range}${more} · j/k scroll · esc closes`, 'gray'));
  return {
    title: ` ${truncate(`History of ${d.ref}`, w - 4)} (newest first) `,
    lines,
    width: w,
    scrollMax: Math.max(0, changes.length - room),
  };
}
