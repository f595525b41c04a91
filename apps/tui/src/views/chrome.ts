import { footerHints } from '../keys/help';
import { activeScope, bucketTotal, detailVisible, rowCount, wipSuppressed } from '../state/selectors';
import { ConnectionState, State, TAB_LABELS, TABS } from '../state/state';
import { promptCursor } from '../state/prompt';
import { bold, displayWidth, esc, inverse, paint, promptText, Theme, truncate } from './format';

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

// While the stream is down the rows are the last ones read: say from when (local time, HH:MM).
export function dataAsOf(state: State): string | null {
  if ((state.connection !== 'offline' && state.connection !== 'reconnecting') || state.dataAt === null) return null;
  const d = new Date(state.dataAt);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `data as of ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export function headerLine(state: State, width: number, theme: Theme): string {
  const f = state.frontier;
  const project = state.project ?? (state.projects?.length === 0 ? '(no project)' : '…');
  const parts: { plain: string; tagged: string }[] = [];
  const add = (plain: string, tagged = esc(plain)) => parts.push({ plain, tagged });
  const name = truncate(project, Math.max(8, Math.floor(width / 3)));
  add(`svc ${name}`, bold(`svc ${esc(name)}`) + (state.readOnly ? paint(theme, ' [read-only]', 'yellow') : ''));
  if (state.readOnly) parts[0].plain += ' [read-only]';
  if (f) {
    add(
      `runnable ${bucketTotal(state, 'runnable')} · blocked ${bucketTotal(state, 'blocked')} · frozen ${bucketTotal(state, 'frozen')}`,
    );
    const suppressed = wipSuppressed(state);
    const full = f.wip_active >= f.wip_cap;
    const wip = `WIP ${f.wip_active}/${f.wip_cap}${suppressed ? ` · ${suppressed} suppressed` : ''}${full ? ' (full)' : ''}`;
    add(wip, paint(theme, esc(wip), full ? 'yellow' : 'white'));
  }
  const conn = CONNECTION[state.connection];
  add(`${conn.glyph} ${conn.word}`, connectionLabel(state, theme));
  const asOf = dataAsOf(state);
  if (asOf) add(asOf, paint(theme, esc(asOf), 'yellow'));
  const badge = state.machines.length;
  if (badge) add(`! ${badge} machine request${badge === 1 ? '' : 's'}`, machineBadge(state, theme));
  const sep = '  ';
  const total = () => parts.reduce((s, p) => s + displayWidth(p.plain), 0) + sep.length * (parts.length - 1) + 1;
  while (total() > width && parts.length > 2) {
    const drop = parts.findIndex((p, i) => i > 0 && (p.plain.startsWith('runnable') || p.plain.startsWith('WIP')));
    if (drop < 0) break;
    parts.splice(drop, 1);
  }
  return ` ${parts.map((p) => p.tagged).join(sep)}`;
}

// Tab labels from the widest layout down to the one that fits: full words, then the words without the gaps, then
// short words that still read ("Run", "Block", "Frozen"), then the key and the count alone. Never cut mid-word.
const TAB_SHORT: Record<(typeof TABS)[number], string> = {
  runnable: 'Run',
  blocked: 'Block',
  frozen: 'Frozen',
  machines: 'Mach',
  events: 'Events',
};

export interface TabSpan {
  tab: (typeof TABS)[number];
  start: number;
  end: number;
}

function tabLayout(state: State, width: number): { texts: string[]; gap: string; spans: TabSpan[] } {
  const count = (tab: (typeof TABS)[number]) => (tab === 'events' ? '' : ` ${rowCountUnfiltered(state, tab)}`);
  const layouts: { text: (tab: (typeof TABS)[number], i: number) => string; gap: string }[] = [
    { text: (tab, i) => `${i + 1} ${TAB_LABELS[tab]}${count(tab)}`, gap: ' ' },
    { text: (tab, i) => `${i + 1} ${TAB_SHORT[tab]}${count(tab)}`, gap: ' ' },
    { text: (tab, i) => `${i + 1} ${TAB_SHORT[tab]}${count(tab)}`, gap: '' },
    { text: (tab, i) => `${i + 1}${count(tab)}`, gap: '' },
  ];
  let chosen = layouts[layouts.length - 1];
  for (const l of layouts) {
    const total = 1 + TABS.reduce((s, tab, i) => s + displayWidth(l.text(tab, i)) + 2, 0) + l.gap.length * 4;
    if (total <= width) {
      chosen = l;
      break;
    }
  }
  const texts = TABS.map((tab, i) => chosen.text(tab, i));
  const spans: TabSpan[] = [];
  let x = 1;
  TABS.forEach((tab, i) => {
    const w = displayWidth(texts[i]) + 2;
    spans.push({ tab, start: x, end: x + w });
    x += w + chosen.gap.length;
  });
  return { texts, gap: chosen.gap, spans };
}

export function tabSpans(state: State, width: number): TabSpan[] {
  return tabLayout(state, width).spans;
}

export function tabsLine(state: State, width: number): string {
  const { texts, gap } = tabLayout(state, width);
  const labels = TABS.map((tab, i) => (tab === state.tab ? inverse(`[${esc(texts[i])}]`) : ` ${esc(texts[i])} `));
  return ` ${labels.join(gap)}`;
}

function rowCountUnfiltered(state: State, tab: (typeof TABS)[number]): number {
  if (tab === 'machines') return state.machinesView === 'connected' ? state.connected.length : state.machines.length;
  if (tab === 'events') return state.events.length;
  return bucketTotal(state, tab);
}

export function statusLine(state: State, width: number, theme: Theme): string {
  const n = rowCount(state, state.tab);
  if (state.filtering || (state.filter && !state.status)) {
    const tail = `  (${n} match${n === 1 ? '' : 'es'}${state.filtering ? ', enter keeps, esc clears' : ''})`;
    if (!state.filtering) return ` ${paint(theme, esc(truncate(`/${state.filter}${tail}`, width - 2)), 'cyan')}`;
    const room = Math.max(8, width - 3 - Math.min(displayWidth(tail), Math.floor(width / 2)));
    return ` ${paint(theme, `/${promptText(state.filter, promptCursor(state), room)}${esc(truncate(tail, width - 3 - room))}`, 'cyan')}`;
  }
  if (state.importing) return ` ${esc('importing the demo backlog…')}`;
  if (!state.status) return '';
  const filter = state.filter ? `/${state.filter} (${n})  ` : '';
  const tone = state.status.tone;
  const prefix = tone === 'error' ? 'error: ' : tone === 'warn' ? 'warning: ' : tone === 'ok' ? 'ok: ' : '';
  const color = tone === 'error' ? 'red' : tone === 'warn' ? 'yellow' : tone === 'ok' ? 'green' : 'white';
  const message = truncate(filter + prefix + state.status.text, width - 2);
  const head = message.slice(0, filter.length);
  return ` ${head ? paint(theme, esc(head), 'cyan') : ''}${paint(theme, esc(message.slice(filter.length)), color)}`;
}

// When the hints do not all fit, the last ones give way and `? help` says how many more keys it lists: a hint is
// never dropped silently.
export function footerLine(state: State, width: number, theme: Theme): string {
  const scope = activeScope(state);
  const hints = footerHints(scope, state.readOnly, theme.keymap, detailVisible(state) && scope === 'frontier');
  const help = hints.find((h) => h.action === 'help');
  const rest = hints.filter((h) => h !== help);
  const cells = (h: { key: string; label: string }) => displayWidth(h.key) + 1 + displayWidth(h.label);
  const render = (h: { key: string; label: string }) => `${paint(theme, bold(esc(h.key)), 'cyan')} ${esc(h.label)}`;
  let used = 1;
  const shown: string[] = [];
  let dropped = 0;
  for (let i = 0; i < rest.length; i++) {
    const helpLabel = help ? { key: help.key, label: `${help.label} (+${rest.length - i} more)` } : null;
    const reserve = helpLabel ? cells(helpLabel) + 2 : 0;
    const len = cells(rest[i]) + 2;
    const last = i === rest.length - 1;
    if (used + len + (last ? (help ? cells(help) + 2 : 0) : reserve) > width) {
      dropped = rest.length - i;
      break;
    }
    used += len;
    shown.push(render(rest[i]));
  }
  if (help) shown.push(render(dropped > 0 ? { key: help.key, label: `${help.label} (+${dropped} more)` } : help));
  return ` ${shown.join('  ')}`;
}
