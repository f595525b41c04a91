import { footerHints } from '../keys/keymap';
import { activeScope, rowCount, wipSuppressed } from '../state/selectors';
import { ConnectionState, State, TAB_LABELS, TABS } from '../state/state';
import { bold, esc, inverse, paint, Theme, truncate } from './format';

const CONNECTION: Record<ConnectionState, { glyph: string; word: string; color: string }> = {
  connecting: { glyph: '○', word: 'connecting', color: 'yellow' },
  live: { glyph: '●', word: 'live', color: 'green' },
  reconnecting: { glyph: '◌', word: 'reconnecting', color: 'yellow' },
  offline: { glyph: '✕', word: 'offline', color: 'red' },
};

export function connectionLabel(state: State, theme: Theme): string {
  const c = CONNECTION[state.connection];
  return paint(theme, `${c.glyph} ${c.word}`, c.color);
}

export function machineBadge(state: State, theme: Theme): string {
  const n = state.machines.length;
  if (n === 0) return '';
  return paint(theme, bold(`! ${n} machine request${n === 1 ? '' : 's'}`), 'yellow');
}

// Line 1: project, bucket counts, WIP, connection, pending machine requests. Parts drop from the right when narrow.
export function headerLine(state: State, width: number, theme: Theme): string {
  const f = state.frontier;
  const project = state.project ?? (state.projects?.length === 0 ? '(no project)' : '…');
  const parts: { plain: string; tagged: string }[] = [];
  const add = (plain: string, tagged = esc(plain)) => parts.push({ plain, tagged });
  add(`svc ${project}`, bold(`svc ${esc(project)}`) + (state.readOnly ? paint(theme, ' [read-only]', 'yellow') : ''));
  if (state.readOnly) parts[0].plain += ' [read-only]';
  if (f) {
    add(`runnable ${f.runnable.length} · blocked ${f.blocked.length} · frozen ${f.frozen.length}`);
    const suppressed = wipSuppressed(state);
    const full = f.wip_active >= f.wip_cap;
    const wip = `WIP ${f.wip_active}/${f.wip_cap}${suppressed ? ` · ${suppressed} suppressed` : ''}${full ? ' (full)' : ''}`;
    add(wip, paint(theme, esc(wip), full ? 'yellow' : 'white'));
  }
  const conn = CONNECTION[state.connection];
  add(`${conn.glyph} ${conn.word}`, connectionLabel(state, theme));
  const badge = state.machines.length;
  if (badge) add(`! ${badge} machine request${badge === 1 ? '' : 's'}`, machineBadge(state, theme));
  // keep the connection and the badge; drop counts, then WIP when narrow
  const sep = '  ';
  const total = () => parts.reduce((s, p) => s + p.plain.length, 0) + sep.length * (parts.length - 1) + 1;
  while (total() > width && parts.length > 2) {
    const drop = parts.findIndex((p, i) => i > 0 && (p.plain.startsWith('runnable') || p.plain.startsWith('WIP')));
    if (drop < 0) break;
    parts.splice(drop, 1);
  }
  return ` ${parts.map((p) => p.tagged).join(sep)}`;
}

// Line 2: the tabs; the active one is bracketed as well as inverted, so it shows without colour.
export function tabsLine(state: State, width: number): string {
  const labels = TABS.map((tab, i) => {
    const count = tab === 'events' ? '' : ` ${rowCountUnfiltered(state, tab)}`;
    const text = width < 90 ? `${i + 1} ${TAB_LABELS[tab].slice(0, 5)}${count}` : `${i + 1} ${TAB_LABELS[tab]}${count}`;
    return tab === state.tab ? inverse(`[${esc(text)}]`) : ` ${esc(text)} `;
  });
  return ` ${labels.join(' ')}`;
}

function rowCountUnfiltered(state: State, tab: (typeof TABS)[number]): number {
  if (tab === 'machines') return state.machines.length;
  if (tab === 'events') return state.events.length;
  return state.frontier?.[tab].length ?? 0;
}

export function statusLine(state: State, width: number, theme: Theme): string {
  const n = rowCount(state, state.tab);
  if (state.filtering || (state.filter && !state.status)) {
    const cursor = state.filtering ? '▏' : '';
    const text = `/${state.filter}${cursor}  (${n} match${n === 1 ? '' : 'es'}${state.filtering ? ', enter keeps, esc clears' : ''})`;
    return ` ${paint(theme, esc(truncate(text, width - 2)), 'cyan')}`;
  }
  if (state.importing) return ` ${esc('importing the demo backlog…')}`;
  if (!state.status) return '';
  // a kept filter stays in view, shortened, in front of the outcome of the last action
  const filter = state.filter ? `/${state.filter} (${n})  ` : '';
  const tone = state.status.tone;
  const prefix = tone === 'error' ? 'error: ' : tone === 'warn' ? 'warning: ' : tone === 'ok' ? 'ok: ' : '';
  const color = tone === 'error' ? 'red' : tone === 'warn' ? 'yellow' : tone === 'ok' ? 'green' : 'white';
  const message = truncate(filter + prefix + state.status.text, width - 2);
  const head = message.slice(0, filter.length);
  return ` ${head ? paint(theme, esc(head), 'cyan') : ''}${paint(theme, esc(message.slice(filter.length)), color)}`;
}

export function footerLine(state: State, width: number, theme: Theme): string {
  const hints = footerHints(activeScope(state), state.readOnly);
  let used = 1;
  const out: string[] = [];
  for (const h of hints) {
    const len = h.key.length + 1 + h.label.length + 2;
    if (used + len > width) break;
    used += len;
    out.push(`${paint(theme, bold(esc(h.key)), 'cyan')} ${esc(h.label)}`);
  }
  return ` ${out.join('  ')}`;
}
