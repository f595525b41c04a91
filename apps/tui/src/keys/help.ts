import { KEYMAP, stackFor } from './keymap';
import type { KeyAction, KeyBinding, Scope } from './vocabulary';

const KEY_LABELS: Record<string, string> = {
  escape: 'esc',
  enter: 'enter',
  pagedown: 'PgDn',
  pageup: 'PgUp',
  'S-tab': 'S-tab',
  down: '↓',
  up: '↑',
  left: '←',
  right: '→',
};

export function keyLabel(key: string): string {
  return KEY_LABELS[key] ?? key;
}

export interface HelpRow {
  keys: string;
  help: string;
  scope: Scope;
  dangerous: boolean;
}

export const HELP_SECTIONS: readonly { title: string; where: string; scopes: readonly Scope[] }[] = [
  { title: 'Everywhere', where: 'everywhere', scopes: ['always'] },
  { title: 'Main screen', where: 'main screen', scopes: ['global'] },
  { title: 'Lists', where: 'lists', scopes: ['list'] },
  { title: 'Runnable, Blocked, Frozen', where: 'Runnable/Blocked/Frozen', scopes: ['frontier'] },
  { title: 'Machines', where: 'Machines', scopes: ['machines'] },
  { title: 'Events', where: 'Events', scopes: ['events'] },
  { title: 'No project yet', where: 'no project yet', scopes: ['empty'] },
  { title: 'No daemon', where: 'no daemon', scopes: ['failure'] },
  { title: 'Filter', where: 'filter', scopes: ['filter'] },
  { title: 'Help', where: 'help', scopes: ['help'] },
  {
    title: 'Dialogs',
    where: 'dialogs',
    scopes: ['charge', 'code', 'confirm', 'approve', 'revoke', 'decide', 'picker', 'input', 'comment', 'refusal'],
  },
  { title: 'Details and payloads', where: 'detail views', scopes: ['view'] },
  { title: 'Item history', where: 'item history', scopes: ['history'] },
  { title: 'Project picker', where: 'project picker', scopes: ['projects'] },
];

// A key that acts at once on something that matters asks first; inside a dialog the dialog is the asking.
export function asksFirst(b: KeyBinding): boolean {
  return (
    Boolean(b.dangerous) &&
    b.scope !== 'charge' &&
    b.scope !== 'confirm' &&
    b.scope !== 'approve' &&
    b.scope !== 'revoke' &&
    b.scope !== 'decide'
  );
}

function uniqueRows(rows: HelpRow[]): HelpRow[] {
  const seen = new Set<string>();
  return rows.filter((r) => {
    const key = `${r.keys}\u0000${r.help}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function rowOf(b: KeyBinding): HelpRow {
  return { keys: b.keys.map(keyLabel).join(' '), help: b.help, scope: b.scope, dangerous: asksFirst(b) };
}

export function helpSections(
  scope: Scope,
  filter = '',
  keymap: readonly KeyBinding[] = KEYMAP,
  extra: readonly { title: string; rows: HelpRow[] }[] = [],
): { title: string; rows: HelpRow[] }[] {
  const stack = stackFor(scope);
  const needle = filter.trim().toLowerCase();
  const rank = (scopes: readonly Scope[]) => {
    const i = scopes.map((s) => stack.indexOf(s)).filter((x) => x >= 0);
    if (i.length === 0) return stack.length + 1;
    return Math.min(...i) === 0 ? stack.length : Math.min(...i);
  };
  return HELP_SECTIONS.map((section, order) => ({
    title: section.title,
    order,
    rank: rank(section.scopes),
    rows: uniqueRows(keymap.filter((b) => section.scopes.includes(b.scope)).map(rowOf)).filter(
      (r) =>
        !needle ||
        `${r.keys} ${r.help} ${r.scope} ${section.title}${r.dangerous ? ' asks first' : ''}`
          .toLowerCase()
          .includes(needle),
    ),
  }))
    .filter((s) => s.rows.length > 0)
    .sort((a, b) => a.rank - b.rank || a.order - b.order)
    .map(({ title, rows }) => ({ title, rows }))
    .concat(
      extra
        .map((s) => ({
          title: s.title,
          rows: s.rows.filter((r) => !needle || `${r.keys} ${r.help} ${s.title}`.toLowerCase().includes(needle)),
        }))
        .filter((s) => s.rows.length > 0),
    );
}

export function helpRows(scope: Scope, filter = '', keymap: readonly KeyBinding[] = KEYMAP): HelpRow[] {
  return helpSections(scope, filter, keymap).flatMap((s) => s.rows);
}

// Tested against docs/keys.md.
export function readmeKeyTable(keymap: readonly KeyBinding[] = KEYMAP): string {
  const rows: [string, string, string][] = [];
  for (const section of HELP_SECTIONS) {
    const bindings = keymap.filter((x) => section.scopes.includes(x.scope));
    for (const r of uniqueRows(bindings.map(rowOf))) {
      const b = bindings.find((x) => rowOf(x).keys === r.keys && x.help === r.help)!;
      rows.push([
        b.keys.map((k) => `\`${keyLabel(k)}\``).join(' '),
        `${r.help}${r.dangerous ? ' (asks first)' : ''}`,
        section.where,
      ]);
    }
  }
  const head: [string, string, string] = ['keys', 'action', 'where'];
  const widths = [0, 1, 2].map((i) => Math.max(...[head, ...rows].map((r) => r[i].length)));
  const line = (r: [string, string, string]) => `| ${r.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [line(head), `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`, ...rows.map(line)].join('\n');
}

export interface Hint {
  key: string;
  label: string;
  action: KeyAction;
}

const hintCache = new Map<string, Hint[]>();

export function footerHints(
  scope: Scope,
  readOnly: boolean,
  keymap: readonly KeyBinding[] = KEYMAP,
  detailPane = false,
): Hint[] {
  const cacheKey = `${scope}:${readOnly}:${detailPane}`;
  const cached = keymap === KEYMAP ? hintCache.get(cacheKey) : undefined;
  if (cached) return cached;
  const stack = stackFor(scope);
  const out: Hint[] = [];
  const add = (b: KeyBinding) => {
    if (!b.hint || (readOnly && (asksFirst(b) || b.writes))) return;
    out.push({ key: keyLabel(b.keys[0]), label: b.hint, action: b.action });
  };
  if (detailPane) for (const b of keymap) if (b.pane === 'detail' && stack.includes(b.scope)) add(b);
  for (const s of [...stack].reverse().filter((x) => x !== 'global')) {
    for (const b of keymap) {
      if (b.scope !== s || b.pane) continue;
      if (detailPane && b.action === 'detail_open') continue;
      add(b);
    }
  }
  if (stack.includes('global')) for (const b of keymap) if (b.scope === 'global') add(b);
  if (keymap === KEYMAP) hintCache.set(cacheKey, out);
  return out;
}
