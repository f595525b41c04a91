// Every key binding of the TUI, as data: the dispatcher, the `?` overlay and the footer hints all read this table.

export const SCOPES = [
  'always',
  'global',
  'list',
  'frontier',
  'machines',
  'events',
  'empty',
  'failure',
  'filter',
  'help',
  'charge',
  'code',
  'confirm',
  'approve',
  'projects',
  'view',
  'revoke',
] as const;
export type Scope = (typeof SCOPES)[number];

export const KEY_ACTIONS = [
  'quit',
  'force_quit',
  'help',
  'tab_runnable',
  'tab_blocked',
  'tab_frozen',
  'tab_machines',
  'tab_events',
  'tab_next',
  'tab_prev',
  'refresh',
  'project_switch',
  'cursor_down',
  'cursor_up',
  'cursor_top',
  'cursor_bottom',
  'page_down',
  'page_up',
  'back',
  'detail_open',
  'detail_toggle',
  'detail_scroll_down',
  'detail_scroll_up',
  'filter_start',
  'filter_accept',
  'filter_cancel',
  'input_backspace',
  'copy_ref',
  'charge_top',
  'charge_selected',
  'machine_approve',
  'machine_deny',
  'deploy_approve',
  'dialog_yes',
  'dialog_no',
  'dialog_toggle',
  'dialog_activate',
  'code_submit',
  'code_cancel',
  'help_close',
  'project_choose',
  'demo_import',
  'machines_view',
  'machine_open',
  'machine_revoke',
  'event_open',
  'events_reads',
  'view_close',
  'view_down',
  'view_up',
] as const;
export type KeyAction = (typeof KEY_ACTIONS)[number];

export interface KeyBinding {
  action: KeyAction;
  // blessed key names: a printable character as typed ('C', '?', '/'), or a named key ('enter', 'escape', 'C-c')
  keys: string[];
  help: string;
  scope: Scope;
  dangerous?: boolean;
  // a short label for the footer; bindings without one only show in the `?` overlay
  hint?: string;
}

export const KEYMAP: readonly KeyBinding[] = [
  { action: 'force_quit', keys: ['C-c'], help: 'quit at once, from anywhere', scope: 'always' },

  { action: 'quit', keys: ['q'], help: 'quit (the daemon keeps running)', scope: 'global', hint: 'quit' },
  { action: 'help', keys: ['?'], help: 'all keys (type to search)', scope: 'global', hint: 'help' },
  { action: 'tab_runnable', keys: ['1'], help: 'Runnable tab', scope: 'global' },
  { action: 'tab_blocked', keys: ['2'], help: 'Blocked tab', scope: 'global' },
  { action: 'tab_frozen', keys: ['3'], help: 'Frozen tab', scope: 'global' },
  { action: 'tab_machines', keys: ['4'], help: 'Machines tab (pending machine requests)', scope: 'global' },
  { action: 'tab_events', keys: ['5'], help: 'Events tab (live event log)', scope: 'global' },
  { action: 'tab_next', keys: ['tab', ']'], help: 'next tab', scope: 'global', hint: 'tabs' },
  { action: 'tab_prev', keys: ['S-tab', '['], help: 'previous tab', scope: 'global' },
  { action: 'refresh', keys: ['r'], help: 'refresh now', scope: 'global' },
  { action: 'project_switch', keys: ['P'], help: 'switch project', scope: 'global', hint: 'project' },

  { action: 'cursor_down', keys: ['j', 'down'], help: 'move down', scope: 'list' },
  { action: 'cursor_up', keys: ['k', 'up'], help: 'move up', scope: 'list' },
  { action: 'cursor_top', keys: ['g', 'home'], help: 'first row', scope: 'list' },
  { action: 'cursor_bottom', keys: ['G', 'end'], help: 'last row', scope: 'list' },
  { action: 'page_down', keys: ['pagedown', 'C-d'], help: 'page down', scope: 'list' },
  { action: 'page_up', keys: ['pageup', 'C-u'], help: 'page up', scope: 'list' },

  {
    action: 'detail_open',
    keys: ['enter'],
    help: 'open the detail pane of the selected item',
    scope: 'frontier',
    hint: 'detail',
  },
  { action: 'back', keys: ['escape'], help: 'back: close the detail pane, clear the filter', scope: 'frontier' },
  { action: 'detail_toggle', keys: ['p'], help: 'show or hide the detail pane', scope: 'frontier' },
  { action: 'detail_scroll_down', keys: ['J'], help: 'scroll the detail pane down', scope: 'frontier' },
  { action: 'detail_scroll_up', keys: ['K'], help: 'scroll the detail pane up', scope: 'frontier' },
  {
    action: 'filter_start',
    keys: ['/'],
    help: 'filter by ref or title as you type',
    scope: 'frontier',
    hint: 'filter',
  },
  { action: 'copy_ref', keys: ['y'], help: 'copy the ref (OSC 52 clipboard)', scope: 'frontier' },
  {
    action: 'charge_top',
    keys: ['c'],
    help: 'charge the top runnable item (asks first)',
    scope: 'frontier',
    dangerous: true,
    hint: 'charge top',
  },
  {
    action: 'charge_selected',
    keys: ['C'],
    help: 'charge the selected item (asks first)',
    scope: 'frontier',
    dangerous: true,
    hint: 'charge sel.',
  },
  {
    action: 'deploy_approve',
    keys: ['A'],
    help: "approve the deployment stage the selected item's run awaits (detail pane; asks first)",
    scope: 'frontier',
    dangerous: true,
  },

  {
    action: 'machine_approve',
    keys: ['a'],
    help: 'approve the selected request: type the code the machine shows',
    scope: 'machines',
    dangerous: true,
    hint: 'approve',
  },
  {
    action: 'machine_deny',
    keys: ['d'],
    help: 'deny the selected request (asks first; no code needed)',
    scope: 'machines',
    dangerous: true,
    hint: 'deny',
  },

  { action: 'demo_import', keys: ['i'], help: 'import the bundled demo backlog', scope: 'empty', hint: 'import demo' },

  { action: 'refresh', keys: ['r'], help: 'try again', scope: 'failure', hint: 'retry' },
  { action: 'quit', keys: ['q', 'escape'], help: 'quit', scope: 'failure', hint: 'quit' },

  {
    action: 'filter_accept',
    keys: ['enter', 'down'],
    help: 'keep the filter, back to the list',
    scope: 'filter',
    hint: 'keep',
  },
  { action: 'filter_cancel', keys: ['escape'], help: 'clear the filter', scope: 'filter', hint: 'clear' },
  { action: 'input_backspace', keys: ['backspace'], help: 'delete a character', scope: 'filter' },

  { action: 'help_close', keys: ['escape', '?'], help: 'close the help', scope: 'help', hint: 'close' },
  { action: 'input_backspace', keys: ['backspace'], help: 'delete a character of the search', scope: 'help' },

  { action: 'dialog_yes', keys: ['y'], help: 'yes: dispatch', scope: 'charge', dangerous: true, hint: 'yes' },
  {
    action: 'dialog_no',
    keys: ['n', 'escape'],
    help: 'no: cancel (recorded as operator_cancelled)',
    scope: 'charge',
    hint: 'no',
  },
  { action: 'dialog_toggle', keys: ['tab', 'left', 'right', 'h', 'l'], help: 'move the focus', scope: 'charge' },
  { action: 'dialog_activate', keys: ['enter'], help: 'press the focused button', scope: 'charge' },

  { action: 'code_submit', keys: ['enter'], help: 'submit the code', scope: 'code', hint: 'submit' },
  { action: 'code_cancel', keys: ['escape'], help: 'cancel', scope: 'code', hint: 'cancel' },
  { action: 'input_backspace', keys: ['backspace'], help: 'delete a character', scope: 'code' },

  { action: 'dialog_yes', keys: ['y'], help: 'yes: deny the request', scope: 'confirm', dangerous: true, hint: 'yes' },
  { action: 'dialog_no', keys: ['n', 'escape'], help: 'no: keep the request pending', scope: 'confirm', hint: 'no' },
  { action: 'dialog_toggle', keys: ['tab', 'left', 'right', 'h', 'l'], help: 'move the focus', scope: 'confirm' },
  { action: 'dialog_activate', keys: ['enter'], help: 'press the focused button', scope: 'confirm' },

  {
    action: 'dialog_yes',
    keys: ['y'],
    help: 'yes: approve the stage (same as svc approve)',
    scope: 'approve',
    dangerous: true,
    hint: 'yes',
  },
  { action: 'dialog_no', keys: ['n', 'escape'], help: 'no: leave the run halted', scope: 'approve', hint: 'no' },
  { action: 'dialog_toggle', keys: ['tab', 'left', 'right', 'h', 'l'], help: 'move the focus', scope: 'approve' },
  { action: 'dialog_activate', keys: ['enter'], help: 'press the focused button', scope: 'approve' },

  { action: 'cursor_down', keys: ['j', 'down'], help: 'move down', scope: 'projects' },
  { action: 'cursor_up', keys: ['k', 'up'], help: 'move up', scope: 'projects' },
  { action: 'project_choose', keys: ['enter'], help: 'open this project', scope: 'projects', hint: 'open' },
  { action: 'help_close', keys: ['escape', 'q'], help: 'close', scope: 'projects', hint: 'close' },

  // issue 26 (screens): machine details, connected machines and revoke, the events filter and payload, read-only
  // views, the project picker's filter and g/G
  {
    action: 'machine_open',
    keys: ['enter'],
    help: 'show the full name and id of the selected machine',
    scope: 'machines',
    hint: 'details',
  },
  {
    action: 'machines_view',
    keys: ['m'],
    help: 'switch between pending requests and connected machines',
    scope: 'machines',
    hint: 'pending/connected',
  },
  {
    action: 'machine_revoke',
    keys: ['x'],
    help: "revoke the selected connected machine's credential (asks first)",
    scope: 'machines',
    dangerous: true,
    hint: 'revoke',
  },
  { action: 'filter_start', keys: ['/'], help: 'filter events as you type', scope: 'events', hint: 'filter' },
  { action: 'back', keys: ['escape'], help: 'clear the filter', scope: 'events' },
  {
    action: 'event_open',
    keys: ['enter'],
    help: 'show the payload of the selected event',
    scope: 'events',
    hint: 'payload',
  },
  { action: 'events_reads', keys: ['f'], help: 'show or hide FrontierComputed reads', scope: 'events', hint: 'reads' },
  { action: 'view_close', keys: ['escape', 'enter', 'q'], help: 'close', scope: 'view', hint: 'close' },
  { action: 'view_down', keys: ['j', 'down', 'J'], help: 'scroll down', scope: 'view' },
  { action: 'view_up', keys: ['k', 'up', 'K'], help: 'scroll up', scope: 'view' },
  {
    action: 'dialog_yes',
    keys: ['y'],
    help: 'yes: revoke the credential',
    scope: 'revoke',
    dangerous: true,
    hint: 'yes',
  },
  { action: 'dialog_no', keys: ['n', 'escape'], help: 'no: keep the machine connected', scope: 'revoke', hint: 'no' },
  { action: 'dialog_toggle', keys: ['tab', 'left', 'right', 'h', 'l'], help: 'move the focus', scope: 'revoke' },
  { action: 'dialog_activate', keys: ['enter'], help: 'press the focused button', scope: 'revoke' },
  { action: 'cursor_top', keys: ['g', 'home'], help: 'first project', scope: 'projects' },
  { action: 'cursor_bottom', keys: ['G', 'end'], help: 'last project', scope: 'projects' },
  { action: 'filter_start', keys: ['/'], help: 'filter projects as you type', scope: 'projects', hint: 'filter' },
];

export const DANGEROUS_ACTIONS: ReadonlySet<KeyAction> = new Set(
  KEYMAP.filter(
    (b) =>
      b.dangerous && b.scope !== 'charge' && b.scope !== 'confirm' && b.scope !== 'approve' && b.scope !== 'revoke',
  ).map((b) => b.action),
);

// Scopes stacked at once: the first binding found wins, so a key may appear only once in a stack.
export const SCOPE_STACKS: readonly (readonly Scope[])[] = [
  ['always', 'frontier', 'list', 'global'],
  ['always', 'machines', 'list', 'global'],
  ['always', 'events', 'list', 'global'],
  ['always', 'empty', 'global'],
  ['always', 'failure'],
  ['always', 'filter'],
  ['always', 'help'],
  ['always', 'charge'],
  ['always', 'code'],
  ['always', 'confirm'],
  ['always', 'approve'],
  ['always', 'projects'],
  ['always', 'view'],
  ['always', 'revoke'],
];

export class KeymapError extends Error {}

// A duplicate key in one scope, or in two scopes that are active together, stops the TUI at start.
export function validateKeymap(keymap: readonly KeyBinding[] = KEYMAP): void {
  const problems: string[] = [];
  for (const stack of SCOPE_STACKS) {
    const seen = new Map<string, KeyBinding>();
    for (const binding of keymap) {
      if (!stack.includes(binding.scope)) continue;
      for (const key of binding.keys) {
        const other = seen.get(key);
        if (other && !(other.action === binding.action && other.scope === binding.scope)) {
          problems.push(
            `key "${key}" is bound to ${other.action} (${other.scope}) and ${binding.action} (${binding.scope})`,
          );
        }
        seen.set(key, binding);
      }
    }
  }
  for (const binding of keymap) {
    if (new Set(binding.keys).size !== binding.keys.length) problems.push(`${binding.action} lists a key twice`);
    if (binding.keys.length === 0) problems.push(`${binding.action} has no key`);
  }
  if (problems.length > 0) throw new KeymapError(`invalid keymap: ${[...new Set(problems)].join('; ')}`);
}

export function stackFor(scope: Scope): readonly Scope[] {
  return SCOPE_STACKS.find((stack) => stack[1] === scope) ?? ['always', scope];
}

export function resolveKey(key: string, scope: Scope, keymap: readonly KeyBinding[] = KEYMAP): KeyBinding | null {
  for (const s of stackFor(scope)) {
    const found = keymap.find((b) => b.scope === s && b.keys.includes(key));
    if (found) return found;
  }
  return null;
}

// Normalizes blessed's (ch, key) pair into one name: printable characters as typed, other keys by name.
export function keyName(
  ch: string | undefined,
  key: { name?: string; full?: string; ctrl?: boolean; meta?: boolean; shift?: boolean },
): string | null {
  if (key.name === 'return') return null; // blessed reports \r twice: as 'enter' and as 'return'
  if (key.name === 'linefeed') return 'enter';
  if (ch && ch.length === 1 && !key.ctrl && !key.meta && ch >= ' ' && ch !== '\x7f' && key.name !== 'space') return ch;
  if (key.name === 'space') return 'space';
  return key.full ?? key.name ?? null;
}

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

// The `?` overlay: every binding of the active stack first, then the rest, filtered by a substring.
export function helpRows(scope: Scope, filter = '', keymap: readonly KeyBinding[] = KEYMAP): HelpRow[] {
  const stack = stackFor(scope);
  const needle = filter.trim().toLowerCase();
  const rows = keymap
    .filter((b) => b.scope !== 'help')
    .map((b) => ({
      keys: b.keys.map(keyLabel).join(' '),
      help: b.help,
      scope: b.scope,
      dangerous: Boolean(b.dangerous),
      // most specific scope first: the tab's own keys, then list moves, then global ones
      rank: stack.includes(b.scope) ? (b.scope === 'always' ? stack.length : stack.indexOf(b.scope)) : stack.length + 1,
    }))
    .filter((r) => !needle || `${r.keys} ${r.help} ${r.scope}`.toLowerCase().includes(needle));
  rows.sort((a, b) => a.rank - b.rank);
  return rows.map(({ keys, help, scope: s, dangerous }) => ({ keys, help, scope: s, dangerous }));
}

const hintCache = new Map<string, { key: string; label: string }[]>();

export function footerHints(
  scope: Scope,
  readOnly: boolean,
  keymap: readonly KeyBinding[] = KEYMAP,
): { key: string; label: string }[] {
  const cacheKey = `${scope}:${readOnly}`;
  const cached = keymap === KEYMAP ? hintCache.get(cacheKey) : undefined;
  if (cached) return cached;
  const stack = stackFor(scope);
  const out: { key: string; label: string }[] = [];
  for (const s of [...stack].reverse().filter((x) => x !== 'global')) {
    for (const b of keymap) {
      if (b.scope !== s || !b.hint) continue;
      if (readOnly && b.dangerous && !['charge', 'confirm', 'approve', 'revoke'].includes(s)) continue;
      out.push({ key: keyLabel(b.keys[0]), label: b.hint });
    }
  }
  if (stack.includes('global')) {
    for (const b of keymap) if (b.scope === 'global' && b.hint) out.push({ key: keyLabel(b.keys[0]), label: b.hint });
  }
  if (keymap === KEYMAP) hintCache.set(cacheKey, out);
  return out;
}
