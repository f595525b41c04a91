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
  'picker',
  'input',
  'decide',
  'refusal',
  'view',
  'revoke',
  'history',
  'comment',
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
  'line_delete',
  'line_left',
  'line_right',
  'line_home',
  'line_end',
  'line_word_left',
  'line_word_right',
  'line_kill_word_back',
  'line_kill_start',
  'line_kill_end',
  'line_yank',
  'history_older',
  'history_newer',
  'copy_ref',
  'open_link',
  'view_number',
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
  // triage (issue 25)
  'status_pick',
  'status_next',
  'priority_up',
  'priority_down',
  'priority_pick',
  'title_edit',
  'body_edit',
  'item_new',
  'block_toggle',
  'freeze_toggle',
  'claim_release',
  'undo',
  'redo',
  'dependency_add',
  'mark_toggle',
  'mark_range',
  'palette',
  'jump_back',
  'dep_tree',
  'edge_next',
  'edge_prev',
  'edge_remove',
  'picker_up',
  'picker_down',
  'picker_complete',
  'picker_choose',
  'picker_cancel',
  'input_submit',
  'input_cancel',
  'refusal_close',
  'refusal_down',
  'refusal_up',
  'machines_view',
  'machine_open',
  'machine_revoke',
  'event_open',
  'events_reads',
  'view_close',
  'view_down',
  'view_up',
  // issue 36: the item's change record
  'history_open',
  // issues 37 and 39: comments on an item
  'comment_add',
  'comment_newline',
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
  // writes to the daemon: hidden from the footer and refused under --read-only
  writes?: boolean;
  // 'detail': the hint shows (first) only while the detail pane is open
  pane?: 'detail';
}

// The readline keys of the line editor (state/line-editor.ts), the same in every prompt.
function lineEditorKeys(scope: Scope): KeyBinding[] {
  const line = (action: KeyAction, keys: string[], help: string): KeyBinding => ({ action, keys, help, scope });
  return [
    line('line_left', ['left', 'C-b'], 'cursor one character left'),
    line('line_right', ['right', 'C-f'], 'cursor one character right'),
    line('line_home', ['home', 'C-a'], 'cursor to the start of the line'),
    line('line_end', ['end', 'C-e'], 'cursor to the end of the line'),
    line('line_word_left', ['M-b', 'M-left', 'C-left'], 'cursor one word left'),
    line('line_word_right', ['M-f', 'M-right', 'C-right'], 'cursor one word right'),
    line('line_delete', ['delete'], 'delete the character under the cursor'),
    line('line_kill_word_back', ['C-w'], 'cut the word before the cursor'),
    line('line_kill_start', ['C-u'], 'cut to the start of the line'),
    line('line_kill_end', ['C-k'], 'cut to the end of the line'),
    line('line_yank', ['C-y'], 'paste the last cut text'),
  ];
}

export const KEYMAP: readonly KeyBinding[] = [
  { action: 'force_quit', keys: ['C-c'], help: 'quit at once, from anywhere', scope: 'always' },

  { action: 'quit', keys: ['q'], help: 'quit (the daemon keeps running)', scope: 'global', hint: 'quit' },
  { action: 'help', keys: ['?'], help: 'all keys (type to search)', scope: 'global', hint: 'help' },
  { action: 'tab_runnable', keys: ['1'], help: 'Runnable tab', scope: 'global' },
  { action: 'tab_blocked', keys: ['2'], help: 'Blocked tab', scope: 'global' },
  { action: 'tab_frozen', keys: ['3'], help: 'Frozen tab', scope: 'global' },
  { action: 'tab_machines', keys: ['4'], help: 'Machines tab (pending machine requests)', scope: 'global' },
  {
    action: 'tab_events',
    keys: ['5'],
    help: "Events tab (the project's audit log: who changed what, live)",
    scope: 'global',
  },
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
  {
    action: 'back',
    keys: ['escape'],
    help: 'back: close the detail pane, clear the filter',
    scope: 'frontier',
    hint: 'close',
    pane: 'detail',
  },
  {
    action: 'detail_toggle',
    keys: ['p'],
    help: 'show or hide the detail pane',
    scope: 'frontier',
    hint: 'hide',
    pane: 'detail',
  },
  {
    action: 'detail_scroll_down',
    keys: ['J'],
    help: 'scroll the detail pane down',
    scope: 'frontier',
    hint: 'scroll',
    pane: 'detail',
  },
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
    action: 'open_link',
    keys: ['o'],
    help: "open the item's link (github_issue, else the first URL in its body) with the opener (tui.json)",
    scope: 'frontier',
  },
  {
    action: 'view_number',
    keys: ['M-1', 'M-2', 'M-3', 'M-4', 'M-5', 'M-6', 'M-7', 'M-8', 'M-9'],
    help: "tui.json's named views, in their order (also :view <name>)",
    scope: 'list',
  },
  {
    action: 'charge_top',
    keys: ['c'],
    help: 'charge the top runnable item',
    scope: 'frontier',
    dangerous: true,
    hint: 'charge top',
  },
  {
    action: 'charge_selected',
    keys: ['C'],
    help: 'charge the selected item',
    scope: 'frontier',
    dangerous: true,
    hint: 'charge sel.',
  },
  {
    action: 'deploy_approve',
    keys: ['A'],
    help: "approve the deployment stage the selected item's run awaits, from the detail pane",
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
    help: 'deny the selected request (no code needed)',
    scope: 'machines',
    dangerous: true,
    hint: 'deny',
  },

  { action: 'demo_import', keys: ['i'], help: 'import the bundled demo backlog', scope: 'empty', hint: 'import demo' },

  { action: 'refresh', keys: ['r'], help: 'try again', scope: 'failure', hint: 'retry' },
  { action: 'quit', keys: ['q', 'escape'], help: 'quit', scope: 'failure', hint: 'quit' },

  ...lineEditorKeys('filter'),
  { action: 'history_older', keys: ['up'], help: 'an earlier filter', scope: 'filter' },
  {
    action: 'history_newer',
    keys: ['down'],
    help: 'a later filter (past the last: back to the list)',
    scope: 'filter',
  },
  {
    action: 'filter_accept',
    keys: ['enter'],
    help: 'keep the filter, back to the list',
    scope: 'filter',
    hint: 'keep',
  },
  { action: 'filter_cancel', keys: ['escape'], help: 'clear the filter', scope: 'filter', hint: 'clear' },
  { action: 'input_backspace', keys: ['backspace'], help: 'delete a character', scope: 'filter' },

  { action: 'help_close', keys: ['escape', '?'], help: 'close the help', scope: 'help', hint: 'close' },
  { action: 'cursor_down', keys: ['down'], help: 'scroll the help down', scope: 'help', hint: 'scroll' },
  { action: 'cursor_up', keys: ['up'], help: 'scroll the help up', scope: 'help' },
  { action: 'page_down', keys: ['pagedown', 'C-d'], help: 'scroll the help a page down', scope: 'help' },
  { action: 'page_up', keys: ['pageup', 'C-u'], help: 'scroll the help a page up', scope: 'help' },
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

  ...lineEditorKeys('code'),
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

  // ---- triage (issue 25): every write goes through the SvcApi function the command line uses
  {
    action: 'status_pick',
    keys: ['s'],
    help: 'status: pick a stage (opens on the next one; a backward or terminal move is confirmed, No focused)',
    scope: 'frontier',
    hint: 'status',
    writes: true,
  },
  {
    action: 'status_next',
    keys: ['S'],
    help: 'status: move to the next stage (a terminal stage is confirmed, No focused)',
    scope: 'frontier',
    writes: true,
  },
  {
    action: 'priority_up',
    keys: ['+'],
    help: 'priority up (low → medium → high)',
    scope: 'frontier',
    hint: 'prio',
    writes: true,
  },
  { action: 'priority_down', keys: ['-'], help: 'priority down', scope: 'frontier', writes: true },
  { action: 'priority_pick', keys: ['='], help: 'priority: pick one', scope: 'frontier', writes: true },
  { action: 'title_edit', keys: ['e'], help: 'edit the title inline', scope: 'frontier', writes: true },
  {
    action: 'body_edit',
    keys: ['E'],
    help: 'edit the body in $VISUAL / $EDITOR (the TUI waits); what changed is written back',
    scope: 'frontier',
    writes: true,
  },
  {
    action: 'item_new',
    keys: ['n'],
    help: 'new item in this project: title, priority, optionally blocked by (fuzzy pick)',
    scope: 'frontier',
    hint: 'new',
    writes: true,
  },
  {
    action: 'block_toggle',
    keys: ['b'],
    help: 'block with a reason, or unblock',
    dangerous: true,
    scope: 'frontier',
    hint: 'block',
    writes: true,
  },
  {
    action: 'freeze_toggle',
    keys: ['f'],
    help: 'freeze, or unfreeze',
    scope: 'frontier',
    dangerous: true,
    writes: true,
  },
  {
    action: 'claim_release',
    keys: ['u'],
    help: "release the item's claim (your own; an admin: any)",
    scope: 'frontier',
    dangerous: true,
    writes: true,
  },
  {
    action: 'undo',
    keys: ['z'],
    help: 'undo the last change made in this TUI (shows the inverse write first)',
    scope: 'frontier',
    hint: 'undo',
    writes: true,
  },
  {
    action: 'redo',
    keys: ['C-r'],
    help: 'redo: make the change undone last again (shows it first)',
    scope: 'frontier',
    writes: true,
  },
  {
    action: 'dependency_add',
    keys: ['D'],
    help: 'add a dependency: the selected item waits on a fuzzy-picked item (activation, status:done)',
    scope: 'frontier',
    writes: true,
  },
  {
    action: 'mark_toggle',
    keys: ['space'],
    help: 'mark / unmark the row (actions apply to all marked)',
    scope: 'frontier',
  },
  { action: 'mark_range', keys: ['V'], help: 'mark the range from the last mark to this row', scope: 'frontier' },
  {
    action: 'dep_tree',
    keys: ['t'],
    help: 'dependency tree, 3 levels up and down with gate points, epic tasks; enter jumps / opens',
    scope: 'frontier',
    hint: 'tree',
  },
  {
    action: 'edge_next',
    keys: ['L'],
    help: 'select the next dependency edge in the detail pane (enter jumps to the other item)',
    scope: 'frontier',
  },
  { action: 'edge_prev', keys: ['H'], help: 'select the previous dependency edge', scope: 'frontier' },
  {
    action: 'edge_remove',
    keys: ['d'],
    help: 'remove the selected dependency edge',
    scope: 'frontier',
    dangerous: true,
    writes: true,
  },
  {
    action: 'palette',
    keys: [':'],
    help: 'palette: :ATL-20, :item ATL-20, :project beta, :sort age, :filter pri:high @me (tab completes)',
    scope: 'global',
  },
  { action: 'jump_back', keys: ['backspace', 'C-o'], help: 'back to where the last : jump left from', scope: 'global' },

  ...lineEditorKeys('picker'),
  {
    action: 'picker_up',
    keys: ['up', 'C-p'],
    help: 'previous choice (the palette, typed nothing: its history)',
    scope: 'picker',
  },
  { action: 'picker_down', keys: ['down', 'C-n'], help: 'next choice', scope: 'picker' },
  {
    action: 'picker_complete',
    keys: ['tab'],
    help: 'complete: the palette takes the highlighted candidate, again the next (other pickers: next choice)',
    scope: 'picker',
  },
  {
    action: 'picker_choose',
    keys: ['enter'],
    help: 'take the highlighted choice (the top match)',
    scope: 'picker',
    hint: 'choose',
  },
  { action: 'picker_cancel', keys: ['escape'], help: 'cancel', scope: 'picker', hint: 'cancel' },
  { action: 'input_backspace', keys: ['backspace'], help: 'delete a character of the filter', scope: 'picker' },

  ...lineEditorKeys('input'),
  { action: 'input_submit', keys: ['enter'], help: 'submit', scope: 'input', hint: 'submit' },
  { action: 'input_cancel', keys: ['escape'], help: 'cancel', scope: 'input', hint: 'cancel' },
  { action: 'input_backspace', keys: ['backspace'], help: 'delete a character', scope: 'input' },

  { action: 'dialog_yes', keys: ['y'], help: 'yes: make the change', scope: 'decide', dangerous: true, hint: 'yes' },
  { action: 'dialog_no', keys: ['n', 'escape'], help: 'no: change nothing', scope: 'decide', hint: 'no' },
  { action: 'dialog_toggle', keys: ['tab', 'left', 'right', 'h', 'l'], help: 'move the focus', scope: 'decide' },
  { action: 'dialog_activate', keys: ['enter'], help: 'press the focused button', scope: 'decide' },

  { action: 'refusal_close', keys: ['escape', 'enter', 'q'], help: 'close', scope: 'refusal', hint: 'close' },
  { action: 'refusal_down', keys: ['j', 'down', 'J', 'pagedown'], help: 'scroll the refusals down', scope: 'refusal' },
  { action: 'refusal_up', keys: ['k', 'up', 'K', 'pageup'], help: 'scroll the refusals up', scope: 'refusal' },
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
    help: "revoke the selected connected machine's credential",
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
  // issue 36: who changed the item, what (before → after), when and through which path
  {
    action: 'history_open',
    keys: ['h'],
    help: "the selected item's full history: every change, who, before → after, when, via (older pages load as you scroll)",
    scope: 'frontier',
    hint: 'history',
    pane: 'detail',
  },
  { action: 'view_close', keys: ['escape', 'q', 'h'], help: 'close', scope: 'history', hint: 'close' },
  {
    action: 'view_down',
    keys: ['j', 'down', 'J'],
    help: 'scroll down (loads older changes at the end)',
    scope: 'history',
    hint: 'scroll',
  },
  { action: 'view_up', keys: ['k', 'up', 'K'], help: 'scroll up', scope: 'history' },
  { action: 'page_down', keys: ['pagedown', 'C-d'], help: 'a page down', scope: 'history' },
  { action: 'page_up', keys: ['pageup', 'C-u'], help: 'a page up', scope: 'history' },
  { action: 'cursor_top', keys: ['g', 'home'], help: 'newest change', scope: 'history' },
  { action: 'cursor_bottom', keys: ['G', 'end'], help: 'oldest loaded change (loads older)', scope: 'history' },
  { action: 'filter_start', keys: ['/'], help: 'filter projects as you type', scope: 'projects', hint: 'filter' },
  // issues 37 and 39: a comment on the item (a note, not a change: allowed while someone else holds it)
  {
    action: 'comment_add',
    keys: ['m'],
    help: 'comment on the selected item (several lines; shown newest first in the detail pane)',
    scope: 'frontier',
    writes: true,
  },
  ...lineEditorKeys('comment'),
  { action: 'comment_newline', keys: ['enter'], help: 'a new line in the comment', scope: 'comment' },
  { action: 'input_submit', keys: ['C-s'], help: 'post the comment', scope: 'comment', hint: 'post' },
  { action: 'input_cancel', keys: ['escape'], help: 'cancel (nothing is posted)', scope: 'comment', hint: 'cancel' },
  { action: 'input_backspace', keys: ['backspace'], help: 'delete a character', scope: 'comment' },
];

export const DANGEROUS_ACTIONS: ReadonlySet<KeyAction> = new Set(
  KEYMAP.filter(
    (b) =>
      b.dangerous &&
      b.scope !== 'charge' &&
      b.scope !== 'confirm' &&
      b.scope !== 'approve' &&
      b.scope !== 'revoke' &&
      b.scope !== 'decide',
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
  ['always', 'picker'],
  ['always', 'input'],
  ['always', 'decide'],
  ['always', 'refusal'],
  ['always', 'view'],
  ['always', 'revoke'],
  ['always', 'history'],
  ['always', 'comment'],
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

// The `?` overlay and the key table in docs/keys.md are grouped in these sections, in this order.
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

// Two dialogs' "move the focus" is one line of help.
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

// The `?` overlay: the sections, those of the active stack first, each binding once; a substring filter on the
// keys, the text and the section.
export function helpSections(
  scope: Scope,
  filter = '',
  keymap: readonly KeyBinding[] = KEYMAP,
  // tui.json's views and commands (state/user-views.ts), after the built-in sections
  extra: readonly { title: string; rows: HelpRow[] }[] = [],
): { title: string; rows: HelpRow[] }[] {
  const stack = stackFor(scope);
  const needle = filter.trim().toLowerCase();
  const rank = (scopes: readonly Scope[]) => {
    const i = scopes.map((s) => stack.indexOf(s)).filter((x) => x >= 0);
    if (i.length === 0) return stack.length + 1;
    // the tab's own keys, then list moves, then global ones, then the keys that work everywhere
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

// The rows of the overlay, flat, in section order.
export function helpRows(scope: Scope, filter = '', keymap: readonly KeyBinding[] = KEYMAP): HelpRow[] {
  return helpSections(scope, filter, keymap).flatMap((s) => s.rows);
}

// The key table of docs/keys.md (tested against that file): one row per binding, in section order.
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

// The footer's hints for what has the focus, most important first: the open detail pane's, then the active
// scope's, then the main screen's. Dangerous keys are left out in read-only mode.
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
