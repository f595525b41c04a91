import type { KeyAction, KeyBinding, Scope } from './vocabulary';

// One scope at a time is stacked over 'always' (keymap.ts), so only the order inside a scope, and of the dialogs'
// scopes, is seen.

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

export const OVERLAY_KEYS: readonly KeyBinding[] = [
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

  ...lineEditorKeys('comment'),
  { action: 'comment_newline', keys: ['enter'], help: 'a new line in the comment', scope: 'comment' },
  { action: 'input_submit', keys: ['C-s'], help: 'post the comment', scope: 'comment', hint: 'post' },
  { action: 'input_cancel', keys: ['escape'], help: 'cancel (nothing is posted)', scope: 'comment', hint: 'cancel' },
  { action: 'input_backspace', keys: ['backspace'], help: 'delete a character', scope: 'comment' },

  { action: 'view_close', keys: ['escape', 'enter', 'q'], help: 'close', scope: 'view', hint: 'close' },
  { action: 'view_down', keys: ['j', 'down', 'J'], help: 'scroll down', scope: 'view' },
  { action: 'view_up', keys: ['k', 'up', 'K'], help: 'scroll up', scope: 'view' },

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

  { action: 'cursor_down', keys: ['j', 'down'], help: 'move down', scope: 'projects' },
  { action: 'cursor_up', keys: ['k', 'up'], help: 'move up', scope: 'projects' },
  { action: 'project_choose', keys: ['enter'], help: 'open this project', scope: 'projects', hint: 'open' },
  { action: 'help_close', keys: ['escape', 'q'], help: 'close', scope: 'projects', hint: 'close' },
  { action: 'cursor_top', keys: ['g', 'home'], help: 'first project', scope: 'projects' },
  { action: 'cursor_bottom', keys: ['G', 'end'], help: 'last project', scope: 'projects' },
  { action: 'filter_start', keys: ['/'], help: 'filter projects as you type', scope: 'projects', hint: 'filter' },
];
