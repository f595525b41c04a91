import type { Action } from './actions';
import { indexOfKey, keyAt, rowCount, selectedItem } from './selectors';
import {
  FrontierTab,
  PickerOption,
  State,
  StatusTone,
  TriageCommand,
  TriageDialog,
  TriageResult,
  TriageState,
  UNDO_DEPTH,
} from './state';
import { KEYMAP } from '../keys/keymap';
import { reduceEdgeKey } from './edge-select';
import { sortHelp, SORT_KEYS, SortKey, sortKeyOf } from './list-query';
import { TASK_PREFIX, taskView, treeOptions } from './tree';
import { applyView, userCommand } from './user-views';
import type { FrontierItemWire } from '../wire';

// The triage actions of issue 25 as a pure state machine: each key opens a dialog state (picker, input,
// confirmation, refusal), the dialog's answer becomes a run of commands, and the effects report each command's
// outcome back as triage_done. Nothing here talks to the daemon.

export const PRIORITY_ORDER = ['low', 'medium', 'high'] as const;
const BUCKETS: readonly FrontierTab[] = ['runnable', 'blocked', 'frozen'];
export const OPERATOR_BLOCK = 'blocked by operator';
// The longest comment typed in the TUI (a longer one: `svc items comment <ref> --file`).
export const COMMENT_MAX = 8000;

type KeyAction = Extract<Action, { type: 'key' }>['action'];

function status(state: State, text: string, tone: StatusTone): State {
  return { ...state, status: { text, tone, at: state.now } };
}

function triage(state: State, patch: Partial<TriageState>): State {
  return { ...state, triage: { ...state.triage, ...patch } };
}

export function rowByRef(state: State, ref: string): { row: FrontierItemWire; tab: FrontierTab } | null {
  for (const tab of BUCKETS) {
    const row = state.frontier?.[tab].find((r) => r.item_id === ref);
    if (row) return { row, tab };
  }
  return null;
}

// The operator block's reason, when the item is operator-blocked ("" for a block without one), else null.
export function operatorBlock(row: FrontierItemWire): string | null {
  const r = row.blocked_reasons.find((x) => x === OPERATOR_BLOCK || x.startsWith(`${OPERATOR_BLOCK}: `));
  if (r === undefined) return null;
  return r.length > OPERATOR_BLOCK.length ? r.slice(OPERATOR_BLOCK.length + 2) : '';
}

// What an action applies to: the marked rows, else the selected one.
export function targets(state: State): string[] {
  if (state.triage.marked.length > 0) return state.triage.marked;
  const item = selectedItem(state);
  return item ? [item.item_id] : [];
}

// The command in words, and as the `svc` command line that does the same.
export function describeCommand(c: TriageCommand): { text: string; cli: string } {
  switch (c.op) {
    case 'status':
      return { text: `move ${c.ref} to ${c.to}`, cli: `svc items status ${c.ref} ${c.to}` };
    case 'priority':
      return { text: `set the priority of ${c.ref} to ${c.to}`, cli: `svc items update ${c.ref} priority ${c.to}` };
    case 'title':
      return { text: `retitle ${c.ref} "${c.to}"`, cli: `svc items update ${c.ref} title '…'` };
    case 'block':
      return { text: `block ${c.ref}: ${c.reason}`, cli: `svc items block ${c.ref} --reason '…'` };
    case 'unblock':
      return { text: `unblock ${c.ref}`, cli: `svc items unblock ${c.ref}` };
    case 'freeze':
      return { text: `freeze ${c.ref}`, cli: `svc items freeze ${c.ref}` };
    case 'unfreeze':
      return { text: `unfreeze ${c.ref}`, cli: `svc items unfreeze ${c.ref}` };
    case 'release':
      return {
        text: `release the claim of ${c.holder} (session ${c.session}) on ${c.ref}`,
        cli: `POST /v1/sessions/${c.session}/release`,
      };
    case 'create':
      return {
        text: `create "${c.title}" in ${c.project} (${c.priority})${c.blockedBy ? `, blocked by ${c.blockedBy}` : ''}`,
        cli: `svc items create --project ${c.project} --title '…' --priority ${c.priority}`,
      };
    case 'dep-add':
      return {
        text: `${c.dependent} waits on ${c.blocker} (${c.gate_point}, ${c.satisfaction})`,
        // the same edge the undo makes: its gate point and satisfaction, not the defaults (issue 39)
        cli: `svc items dependency add ${c.dependent} ${c.blocker} --gate-point ${c.gate_point} --satisfaction ${c.satisfaction}`,
      };
    case 'dep-remove':
      return {
        text: `remove the edge: ${c.dependent} no longer waits on ${c.blocker} at ${c.gate_point}`,
        cli: `svc items dependency remove ${c.dependent} ${c.blocker} --gate-point ${c.gate_point}`,
      };
    case 'body':
      return { text: `rewrite the body of ${c.ref}`, cli: `svc items update ${c.ref} body --stdin` };
    case 'section':
      return { text: `rewrite section ${c.name} of ${c.ref}`, cli: `svc sections upsert ${c.ref} ${c.name} --stdin` };
    case 'comment':
      return { text: `comment on ${c.ref}`, cli: `svc items comment ${c.ref} -` };
  }
}

// Filter as you type, substring by default (TUI.md §4): the choices whose value, label or note hold the text,
// exact value matches first.
export function filteredOptions(options: readonly PickerOption[] | null, filter: string): PickerOption[] {
  if (!options) return [];
  const needle = filter.trim().toLowerCase();
  if (!needle) return [...options];
  const hits = options.filter((o) => `${o.value} ${o.label} ${o.note ?? ''}`.toLowerCase().includes(needle));
  const exact = hits.filter((o) => o.value.toLowerCase() === needle);
  const prefix = hits.filter((o) => o.value.toLowerCase() !== needle && o.value.toLowerCase().startsWith(needle));
  return [...exact, ...prefix, ...hits.filter((o) => !exact.includes(o) && !prefix.includes(o))];
}

// The choices a picker shows: the palette's are its own (paletteOptions computed them from the text), the other
// pickers' are filtered as you type.
export function shownOptions(d: Extract<TriageDialog, { kind: 'picker' }>): PickerOption[] {
  if (d.purpose === 'palette') return d.options ?? [];
  return filteredOptions(d.options, d.filter);
}

function picker(
  state: State,
  purpose: Extract<TriageDialog, { kind: 'picker' }>['purpose'],
  refs: string[],
  title: string,
  options: PickerOption[] | null,
  extra: Partial<Extract<TriageDialog, { kind: 'picker' }>> = {},
): State {
  return { ...state, dialog: { kind: 'picker', purpose, refs, title, options, filter: '', index: 0, ...extra } };
}

function confirm(
  state: State,
  title: string,
  lines: string[],
  commands: TriageCommand[],
  undo = false,
  redo = false,
): State {
  return { ...state, dialog: { kind: 'triage-confirm', title, lines, commands, focus: 'no', undo, redo } };
}

// Starts a run: the effects see a new run id and send the commands.
export function startRun(state: State, commands: TriageCommand[], undo = false, redo = false): State {
  if (commands.length === 0) return { ...state, dialog: null };
  const id = state.triage.runs + 1;
  return {
    ...triage(state, { run: { id, commands, undo, ...(redo ? { redo } : {}) }, runs: id }),
    dialog: null,
    status: {
      text: `${describeCommand(commands[0]).text}${commands.length > 1 ? ` (+${commands.length - 1})` : ''}…`,
      tone: 'info',
      at: state.now,
    },
  };
}

// Several items: one confirmation listing them; one item: at once.
function runOrConfirm(state: State, title: string, commands: TriageCommand[]): State {
  if (commands.length <= 1) return startRun(state, commands);
  return confirm(
    state,
    title,
    [`${commands.length} items:`, ...commands.map((c) => `  ${describeCommand(c).text}`)],
    commands,
  );
}

const PRIORITY_OPTIONS: PickerOption[] = [
  { value: 'high', label: 'high' },
  { value: 'medium', label: 'medium' },
  { value: 'low', label: 'low' },
];

function shiftPriority(state: State, refs: string[], delta: 1 | -1): State {
  const commands: TriageCommand[] = [];
  const unchanged: string[] = [];
  for (const ref of refs) {
    const row = rowByRef(state, ref)?.row;
    if (!row) continue;
    const at = PRIORITY_ORDER.indexOf(row.priority as (typeof PRIORITY_ORDER)[number]);
    const to = PRIORITY_ORDER[Math.min(PRIORITY_ORDER.length - 1, Math.max(0, (at < 0 ? 1 : at) + delta))];
    if (to === row.priority) unchanged.push(ref);
    else commands.push({ op: 'priority', ref, to });
  }
  if (commands.length === 0) {
    return status(state, `${unchanged.join(', ')} already at ${delta > 0 ? 'high' : 'low'} priority`, 'warn');
  }
  return runOrConfirm(state, ' Priority ', commands);
}

// the keys that write to the daemon, as the keymap marks them (refused under --read-only, hidden from the footer)
const WRITES: ReadonlySet<KeyAction> = new Set(KEYMAP.filter((b) => b.writes).map((b) => b.action));

// Rows of the current tab between two refs (inclusive), in list order.
function range(state: State, tab: FrontierTab, from: string, to: string): string[] {
  const rows = state.frontier?.[tab] ?? [];
  const a = rows.findIndex((r) => r.item_id === from);
  const b = rows.findIndex((r) => r.item_id === to);
  if (a < 0 || b < 0) return [to];
  const [lo, hi] = a <= b ? [a, b] : [b, a];
  return rows.slice(lo, hi + 1).map((r) => r.item_id);
}

function markedStatus(state: State): State {
  const n = state.triage.marked.length;
  return status(
    state,
    n === 0 ? 'no row marked' : `${n} marked (+): s, +, -, =, b, f apply to all · space unmarks · esc clears`,
    'info',
  );
}

// What the reducer lends the triage machine (kept there: the list bookkeeping every tab shares).
export interface TriageHelpers {
  selectProject(state: State, project: string): State;
  // after the filter or the tab changed: find each tab's selected row again, refresh the detail pane
  settle(state: State): State;
}

// A key of the triage block, or a key inside one of its dialogs; null: not a triage key.
export function reduceTriageKey(state: State, action: KeyAction, helpers: TriageHelpers): State | null {
  if (WRITES.has(action) && state.readOnly) {
    return status(state, 'read-only: changes are disabled (started with --read-only)', 'warn');
  }
  const refs = targets(state);
  const one = refs.length === 1 ? rowByRef(state, refs[0])?.row : undefined;
  const needItem = (): State => status(state, 'no item selected', 'warn');
  switch (action) {
    case 'status_pick':
    case 'status_next':
      if (refs.length === 0) return needItem();
      return picker(
        state,
        'status',
        refs,
        ` Status of ${refs.length === 1 ? refs[0] : `${refs.length} items`} `,
        null,
        {
          next: action === 'status_next',
        },
      );
    case 'priority_up':
    case 'priority_down':
      if (refs.length === 0) return needItem();
      return shiftPriority(state, refs, action === 'priority_up' ? 1 : -1);
    case 'priority_pick':
      if (refs.length === 0) return needItem();
      return picker(
        state,
        'priority',
        refs,
        ` Priority of ${refs.length === 1 ? refs[0] : `${refs.length} items`} `,
        PRIORITY_OPTIONS.map((o) => ({ ...o, current: one?.priority === o.value })),
      );
    case 'title_edit': {
      const item = selectedItem(state);
      if (!item) return needItem();
      return {
        ...state,
        dialog: {
          kind: 'input',
          purpose: 'title',
          refs: [item.item_id],
          title: ` Title of ${item.item_id} `,
          prompt: 'title',
          value: item.title,
        },
      };
    }
    case 'comment_add': {
      const item = selectedItem(state);
      if (!item) return needItem();
      return {
        ...state,
        dialog: {
          kind: 'input',
          purpose: 'comment',
          refs: [item.item_id],
          title: ` Comment on ${item.item_id} `,
          prompt: 'comment',
          value: '',
        },
      };
    }
    case 'item_new':
      if (!state.project) return status(state, 'no project open', 'warn');
      return {
        ...state,
        dialog: {
          kind: 'input',
          purpose: 'new-title',
          refs: [],
          title: ` New item in ${state.project} `,
          prompt: 'title',
          value: '',
        },
      };
    case 'block_toggle': {
      if (refs.length === 0) return needItem();
      const rows = refs.map((r) => rowByRef(state, r)?.row).filter((r): r is FrontierItemWire => Boolean(r));
      const blocked = rows.filter((r) => operatorBlock(r) !== null);
      // every target operator-blocked: unblock them (asks first); otherwise block the rest with one reason
      if (rows.length > 0 && blocked.length === rows.length) {
        return confirm(
          state,
          ' Unblock ',
          blocked.map((r) => `unblock ${r.item_id} (blocked: ${operatorBlock(r) || 'no reason given'})`),
          blocked.map((r) => ({ op: 'unblock', ref: r.item_id })),
        );
      }
      const toBlock = rows.filter((r) => operatorBlock(r) === null).map((r) => r.item_id);
      return {
        ...state,
        dialog: {
          kind: 'input',
          purpose: 'block',
          refs: toBlock,
          title: ` Block ${toBlock.length === 1 ? toBlock[0] : `${toBlock.length} items`} `,
          prompt: 'reason',
          value: '',
        },
      };
    }
    case 'freeze_toggle': {
      if (refs.length === 0) return needItem();
      const commands: TriageCommand[] = refs.map((ref) =>
        rowByRef(state, ref)?.tab === 'frozen' ? { op: 'unfreeze', ref } : { op: 'freeze', ref },
      );
      return confirm(
        state,
        ' Freeze ',
        [
          ...commands.map((c) => describeCommand(c).text),
          '',
          'A frozen item leaves the active frontier until it is unfrozen.',
        ],
        commands,
      );
    }
    case 'claim_release': {
      if (refs.length === 0) return needItem();
      const commands: TriageCommand[] = [];
      const missing: string[] = [];
      for (const ref of refs) {
        const claim = state.claims[ref];
        if (!claim) missing.push(ref);
        else commands.push({ op: 'release', ref, session: claim.session_id, holder: claim.actor ?? claim.harness });
      }
      if (commands.length === 0) return status(state, `${missing.join(', ')}: not claimed, nothing to release`, 'warn');
      return confirm(
        state,
        ' Release claim ',
        [
          ...commands.map((c) => describeCommand(c).text),
          ...(missing.length ? ['', `not claimed (skipped): ${missing.join(', ')}`] : []),
          '',
          'The item goes back to the frontier; the session keeps running.',
        ],
        commands,
      );
    }
    case 'undo': {
      const last = state.triage.undo[state.triage.undo.length - 1];
      if (!last) return status(state, 'nothing to undo (no change made in this TUI yet)', 'info');
      return confirm(
        state,
        ' Undo ',
        [
          'The last change is reversed by its inverse write:',
          ...last.map((c) => `  ${describeCommand(c).text}`),
          ...last.slice(0, 3).map((c) => `  (${describeCommand(c).cli})`),
        ],
        last,
        true,
      );
    }
    case 'redo': {
      const last = state.triage.redo[state.triage.redo.length - 1];
      if (!last) return status(state, 'nothing to redo (z undoes a change; C-r makes it again)', 'info');
      return confirm(
        state,
        ' Redo ',
        [
          'The change undone last is made again:',
          ...last.map((c) => `  ${describeCommand(c).text}`),
          ...last.slice(0, 3).map((c) => `  (${describeCommand(c).cli})`),
        ],
        last,
        false,
        true,
      );
    }
    case 'body_edit': {
      const item = selectedItem(state);
      if (!item) return needItem();
      // the effects open the editor (the screen is suspended meanwhile)
      return status(state, `opening ${item.item_id} in the editor…`, 'info');
    }
    case 'dependency_add': {
      const item = selectedItem(state);
      if (!item) return needItem();
      return picker(state, 'dependency', [item.item_id], ` ${item.item_id} waits on… `, null);
    }
    case 'mark_toggle': {
      const item = selectedItem(state);
      if (!item) return state;
      const marked = state.triage.marked.includes(item.item_id)
        ? state.triage.marked.filter((r) => r !== item.item_id)
        : [...state.triage.marked, item.item_id];
      return markedStatus(triage(state, { marked, anchor: item.item_id }));
    }
    case 'mark_range': {
      const item = selectedItem(state);
      if (!item || (state.tab !== 'runnable' && state.tab !== 'blocked' && state.tab !== 'frozen')) return state;
      const anchor = state.triage.anchor ?? item.item_id;
      const add = range(state, state.tab, anchor, item.item_id);
      return markedStatus(
        triage(state, { marked: [...new Set([...state.triage.marked, ...add])], anchor: item.item_id }),
      );
    }
    case 'palette':
      return picker(state, 'palette', [], ' : ', paletteOptions(state, ''));
    case 'edge_next':
    case 'edge_prev':
    case 'edge_remove':
      return reduceEdgeKey(state, action);
    case 'dep_tree': {
      const item = selectedItem(state);
      if (!item) return needItem();
      // the tree is built from the detail pane's parts: opening it loads them (options stay null until then)
      const opened = helpers.settle({ ...state, detailOpen: true, treeEdges: {} });
      return picker(
        opened,
        'tree',
        [item.item_id],
        ` Dependencies of ${item.item_id} `,
        treeOptions(opened, item.item_id),
      );
    }
    case 'picker_up':
    case 'picker_down': {
      const d = state.dialog;
      if (d?.kind !== 'picker') return state;
      const n = shownOptions(d).length;
      if (n === 0) return state;
      const index = (d.index + (action === 'picker_down' ? 1 : n - 1)) % n;
      return { ...state, dialog: { ...d, index } };
    }
    case 'picker_complete': {
      // Tab: the palette's line becomes the highlighted candidate, again: the next one (the list stays as it was);
      // other pickers: the next choice
      const d = state.dialog;
      if (d?.kind !== 'picker') return state;
      if (d.purpose !== 'palette') return reduceTriageKey(state, 'picker_down', helpers);
      const list = d.completion ?? shownOptions(d);
      if (list.length === 0) return state;
      const index = d.completion ? (d.index + 1) % list.length : Math.min(d.index, list.length - 1);
      return {
        ...state,
        line: { ...state.line, cursor: null },
        dialog: { ...d, filter: list[index].value, options: list, index, completion: list },
      };
    }
    case 'refusal_down':
    case 'refusal_up': {
      const d = state.dialog;
      if (d?.kind !== 'refusal') return state;
      const scroll = Math.max(0, Math.min(d.lines.length - 1, (d.scroll ?? 0) + (action === 'refusal_down' ? 3 : -3)));
      return { ...state, dialog: { ...d, scroll } };
    }
    case 'picker_cancel':
    case 'input_cancel':
    case 'refusal_close':
      return { ...state, dialog: null };
    case 'picker_choose':
      return choose(state, helpers);
    case 'jump_back':
      return jumpBack(state, helpers);
    case 'input_submit':
      return submit(state);
    default:
      return null;
  }
}

function choose(state: State, helpers: TriageHelpers): State {
  const d = state.dialog;
  if (d?.kind !== 'picker') return state;
  if (d.purpose === 'palette') return runPalette(state, d.filter, shownOptions(d)[d.index], helpers);
  if (!d.options) return state;
  const chosen = filteredOptions(d.options, d.filter)[d.index];
  if (d.purpose === 'tree' && chosen) {
    if (!chosen.value) return state;
    const closed = { ...state, dialog: null };
    if (chosen.value.startsWith(TASK_PREFIX)) {
      const opened = taskView(closed, d.refs[0], Number(chosen.value.slice(TASK_PREFIX.length)));
      return opened ?? status(state, `${chosen.label.trim()}: no longer in ${d.refs[0]}`, 'warn');
    }
    if (chosen.value === d.refs[0]) return closed;
    const jumped = jumpTo(closed, chosen.value, helpers);
    if (!jumped)
      return status(closed, `${chosen.value}: not in this project's frontier (${chosen.note ?? ''})`, 'warn');
    return status(jumped, `${chosen.value} is in ${jumped.tab} · backspace goes back`, 'info');
  }
  if (!chosen)
    return {
      ...state,
      dialog: { ...d },
      status: { text: `nothing matches "${d.filter}"`, tone: 'warn', at: state.now },
    };
  switch (d.purpose) {
    case 'status':
      return chooseStage(state, d.refs, d.options, chosen);
    case 'priority':
      return runOrConfirm(
        state,
        ' Priority ',
        d.refs.map((ref) => ({ op: 'priority', ref, to: chosen.value })),
      );
    case 'new-priority': {
      const draft = { title: d.draft?.title ?? '', priority: chosen.value };
      return picker(state, 'new-blocker', [], ' Blocked by (optional) ', blockerOptions(state, null), { draft });
    }
    case 'new-blocker': {
      const draft = d.draft ?? { title: '', priority: 'medium' };
      return startRun(state, [
        {
          op: 'create',
          project: state.project ?? '',
          title: draft.title,
          priority: draft.priority,
          blockedBy: chosen.value === '' ? null : chosen.value,
        },
      ]);
    }
    case 'dependency':
      return startRun(state, [
        {
          op: 'dep-add',
          dependent: d.refs[0],
          blocker: chosen.value,
          gate_point: 'activation',
          satisfaction: 'status:done',
        },
      ]);
  }
  return state;
}

// A stage chosen for some items: a forward move runs at once; a backward one or one to a terminal stage asks
// first, naming from → to, with No focused (issue 39).
function chooseStage(state: State, refs: string[], options: PickerOption[], chosen: PickerOption): State {
  const at = (stage: string | undefined) => options.findIndex((o) => o.value === stage);
  const to = at(chosen.value);
  const moves = refs.map((ref) => ({
    ref,
    from: rowByRef(state, ref)?.row.status ?? options.find((o) => o.current)?.value,
  }));
  if (refs.length === 1 && (chosen.current || moves[0].from === chosen.value))
    return status({ ...state, dialog: null }, `${refs[0]} is already ${chosen.value}`, 'info');
  const moving = moves.filter((m) => m.from !== chosen.value);
  const commands: TriageCommand[] = moving.map((m) => ({ op: 'status', ref: m.ref, to: chosen.value }));
  const backward = moving.filter((m) => at(m.from) >= 0 && to < at(m.from));
  if (!chosen.terminal && backward.length === 0) return runOrConfirm(state, ' Status ', commands);
  const lines = moving.map(
    (m) => `${m.ref}: ${m.from ?? '?'} → ${chosen.value}${backward.includes(m) ? ' (backward)' : ''}`,
  );
  lines.push('');
  if (backward.length > 0)
    lines.push(
      `A backward move: ${backward.length === 1 ? 'the item goes back' : `${backward.length} items go back`} in the workflow.`,
    );
  if (chosen.terminal) lines.push(`${chosen.value} is a terminal stage: the item leaves the frontier.`);
  return confirm(state, ' Status ', lines, commands);
}

// The stage after the item's current one (the picker opens there); the current one when it is the last.
export function nextStageIndex(options: readonly PickerOption[]): number {
  const current = options.findIndex((o) => o.current);
  if (current < 0) return 0;
  return Math.min(options.length - 1, current + 1);
}

function submit(state: State): State {
  const d = state.dialog;
  if (d?.kind !== 'input') return state;
  const value = d.value.trim();
  switch (d.purpose) {
    case 'title': {
      if (!value) return status(state, 'a title cannot be empty', 'warn');
      const row = rowByRef(state, d.refs[0])?.row;
      if (row && row.title === value) return { ...state, dialog: null };
      return startRun(state, [{ op: 'title', ref: d.refs[0], to: value }]);
    }
    case 'block':
      if (!value) return status(state, 'give a reason: it is shown wherever the item is listed as blocked', 'warn');
      return runOrConfirm(
        state,
        ' Block ',
        d.refs.map((ref) => ({ op: 'block', ref, reason: value })),
      );
    case 'comment':
      if (!value) return status(state, 'an empty comment is not posted (esc cancels)', 'warn');
      return startRun(state, [{ op: 'comment', ref: d.refs[0], body: d.value.trim() }]);
    case 'new-title':
      if (!value) return status(state, 'a title cannot be empty', 'warn');
      return picker(state, 'new-priority', [], ' Priority ', PRIORITY_OPTIONS, {
        index: 1, // medium, the default
        draft: { title: value, priority: 'medium' },
      });
  }
}

// The choices of a "blocked by" / "waits on" picker: this project's items first (runnable, blocked, frozen),
// the item itself left out. Other projects' items are added by the effects when they load.
export function blockerOptions(state: State, self: string | null, none = true): PickerOption[] {
  const out: PickerOption[] = none ? [{ value: '', label: '(none)', note: 'no dependency' }] : [];
  for (const tab of BUCKETS) {
    for (const r of state.frontier?.[tab] ?? []) {
      if (r.item_id === self) continue;
      out.push({
        value: r.item_id,
        label: `${r.item_id} ${r.title}`,
        note: `${r.status}${tab === 'runnable' ? '' : `, ${tab}`}`,
      });
    }
  }
  return out;
}

// ---- the : palette
const PALETTE_VERBS = ['item', 'project', 'sort', 'filter', 'view', 'run'];
const PALETTE_HELP: Record<string, string> = {
  item: 'jump to an item',
  project: 'switch project',
  sort: '<column> [asc|desc]',
  filter: 'pri:high status:planned @me words',
  view: "<name>: one of tui.json's views",
  run: "<name>: one of tui.json's commands, on the selected item",
};

export function paletteOptions(state: State, text: string): PickerOption[] {
  const t = text.trim();
  const [verb, ...rest] = t.split(/\s+/);
  const arg = rest.join(' ');
  if (verb === 'project' || (rest.length === 0 && 'project'.startsWith(verb) && verb.length > 1 && !/\d/.test(verb))) {
    const projects = (state.projects ?? []).map((p) => ({
      value: `project ${p.id}`,
      label: `project ${p.id}`,
      note: p.name,
    }));
    return verb === 'project' ? projects.filter((o) => o.value.includes(arg)) : projects;
  }
  if (verb === 'sort') {
    const [word = '', dir = ''] = arg.toLowerCase().split(/\s+/);
    const suffix = dir && 'desc'.startsWith(dir) ? ' desc' : dir && 'asc'.startsWith(dir) ? ' asc' : '';
    return SORT_KEYS.filter((k) => k.startsWith(word)).map((k) => ({
      value: `sort ${k}${suffix}`,
      label: `sort ${k}${suffix}`,
      note: `${sortHelp(k)}${(state.sort ?? 'rank') === k ? ' · current' : ''}`,
    }));
  }
  if (verb === 'view') {
    return state.views
      .filter((v) => v.name.startsWith(arg))
      .map((v, i) => ({
        value: `view ${v.name}`,
        label: `view ${v.name}`,
        note: [v.tab, v.filter && `/${v.filter}`, v.sort && `sort ${v.sort}${v.desc ? ' desc' : ''}`, `M-${i + 1}`]
          .filter(Boolean)
          .join(' · '),
      }));
  }
  if (verb === 'run') {
    return state.userCommands
      .filter((c) => c.name.startsWith(arg))
      .map((c) => ({
        value: `run ${c.name}`,
        label: `run ${c.name}`,
        note: c.help ?? (c.run ? `$ ${c.run}` : `open ${c.open ?? ''}`),
      }));
  }
  if (verb === 'filter') {
    return [
      { value: `filter ${arg}`.trimEnd(), label: `filter ${arg}`.trimEnd(), note: 'pri:high status:planned @me words' },
    ];
  }
  const needle = (verb === 'item' ? arg : t).toLowerCase();
  const items: PickerOption[] = [];
  for (const tab of BUCKETS) {
    for (const r of state.frontier?.[tab] ?? []) {
      if (needle && !`${r.item_id} ${r.title}`.toLowerCase().includes(needle)) continue;
      items.push({ value: r.item_id, label: `${r.item_id} ${r.title}`, note: tab });
    }
  }
  const exact = items.filter((o) => o.value.toLowerCase() === needle);
  const history = state.triage.history
    .slice()
    .reverse()
    .filter((h) => !t || h.startsWith(t))
    .map((h) => ({ value: h, label: h, note: 'history' }));
  // commands first when the text is the start of one (`:so` → sort, before an item titled "SSO…")
  const verbs = PALETTE_VERBS.filter((v) => v.startsWith(t.toLowerCase())).map((v) => ({
    value: `${v} `,
    label: `${v} …`,
    note: `command: ${PALETTE_HELP[v]}`,
  }));
  const others = items.filter((o) => !exact.includes(o));
  if (!t) return [...history, ...verbs, ...others].slice(0, 200);
  return [...exact, ...verbs, ...history, ...others].slice(0, 200);
}

// Jumps to an item in whatever tab it lives, remembering where it left from.
export function jumpTo(state: State, ref: string, helpers: TriageHelpers): State | null {
  const found = rowByRef(state, ref);
  if (!found) return null;
  const back = [...state.triage.back, { tab: state.tab, key: state.cursors[state.tab].key }].slice(-50);
  const index = (state.frontier?.[found.tab] ?? []).findIndex((r) => r.item_id === found.row.item_id);
  return helpers.settle({
    ...triage(state, { back }),
    tab: found.tab,
    filter: '',
    filtering: false,
    cursors: { ...state.cursors, [found.tab]: { key: found.row.item_id, index } },
  });
}

function runPalette(state: State, typed: string, top: PickerOption | undefined, helpers: TriageHelpers): State {
  const text = typed.trim();
  const history = text ? [...state.triage.history.filter((h) => h !== text), text].slice(-50) : state.triage.history;
  const closed = triage({ ...state, dialog: null }, { history });
  // a whole command as typed runs as typed; a partial one takes the top completion
  const whole = /^(item|project|filter|sort|view|run)\s+\S/.test(text) || /^[A-Za-z][A-Za-z0-9]*-\d+$/.test(text);
  const line = whole ? text : (top?.value ?? text);
  const [verb, ...rest] = line.trim().split(/\s+/);
  if (verb === 'sort') {
    const key = sortKeyOf(rest[0] ?? '');
    const dir = (rest[1] ?? 'asc').toLowerCase();
    if (!key || !['asc', 'desc'].includes(dir) || rest.length > 2)
      return status(closed, `sort by one of: ${SORT_KEYS.join(', ')} [asc|desc]`, 'warn');
    return sortBy(closed, key, dir === 'desc', helpers);
  }
  if (verb === 'filter') {
    const filter = rest.join(' ');
    const filtered = helpers.settle({ ...closed, filter, filtering: false });
    return status(filtered, filter ? `filter: ${filter} · esc clears it` : 'filter cleared', 'info');
  }
  if (verb === 'view') return applyView(closed, { type: 'view_apply', name: rest[0] ?? '' }, helpers);
  if (verb === 'run') return userCommand(closed, rest[0] ?? '');
  if (verb === 'project') {
    const id = rest[0] ?? '';
    if (!state.projects?.some((p) => p.id === id)) return status(closed, `no project "${id}"`, 'warn');
    if (id === state.project) return closed;
    return helpers.selectProject(closed, id);
  }
  const ref = (verb === 'item' ? rest[0] : verb) ?? '';
  if (!ref) return closed;
  const jumped = jumpTo(closed, ref.toUpperCase(), helpers) ?? jumpTo(closed, ref, helpers);
  if (!jumped) return status(closed, `${ref}: not in this project's frontier (runnable, blocked or frozen)`, 'warn');
  return status(jumped, `${ref.toUpperCase()} is in ${jumped.tab} · backspace goes back`, 'info');
}

// `:sort <key> [asc|desc]` and a click on a column's header (a second click reverses it).
export function sortBy(state: State, key: SortKey, desc: boolean, helpers: TriageHelpers): State {
  const sorted = helpers.settle({ ...state, sort: key, sortDesc: desc });
  const how = key === 'rank' ? 'rank (the frontier order)' : `${key}: ${sortHelp(key)}`;
  return status(sorted, `sorted by ${how}${desc ? ', reversed (desc)' : ''}`, 'info');
}

export function jumpBack(state: State, helpers: TriageHelpers): State {
  const back = state.triage.back;
  const last = back[back.length - 1];
  if (!last) return status(state, 'nothing to go back to', 'info');
  const next = triage(state, { back: back.slice(0, -1) });
  return helpers.settle({
    ...next,
    tab: last.tab,
    cursors: { ...next.cursors, [last.tab]: { ...next.cursors[last.tab], key: last.key } },
  });
}

// Typing into a picker's filter or an input's value.
export function reduceTriageInput(state: State, edit: (text: string) => string): State | null {
  const d = state.dialog;
  if (d?.kind === 'picker') {
    const filter = edit(d.filter);
    const options = d.purpose === 'palette' ? paletteOptions(state, filter) : d.options;
    return { ...state, dialog: { ...d, filter, options, index: 0, completion: undefined } };
  }
  if (d?.kind === 'input') {
    const value = edit(d.value);
    return value.length > (d.purpose === 'comment' ? COMMENT_MAX : 500) ? state : { ...state, dialog: { ...d, value } };
  }
  return null;
}

// The effects' answers: a picker's choices, a run's outcome.
export function reduceTriageAction(state: State, action: Action, helpers: TriageHelpers): State | null {
  switch (action.type) {
    case 'picker_options': {
      const d = state.dialog;
      if (d?.kind !== 'picker' || d.purpose !== action.purpose || d.refs.join() !== action.refs.join()) return state;
      if (d.purpose !== 'status') return { ...state, dialog: { ...d, options: action.options, index: 0 } };
      // the stage picker opens on the next stage; `S` takes it at once (same confirmations)
      const index = d.filter ? 0 : nextStageIndex(action.options);
      const opened: State = { ...state, dialog: { ...d, options: action.options, index } };
      if (!d.next) return opened;
      const chosen = action.options[index];
      if (!chosen || chosen.current)
        return status({ ...state, dialog: null }, `${d.refs[0]} is at the workflow's last stage`, 'info');
      return chooseStage(opened, d.refs, action.options, chosen);
    }
    case 'triage_start':
      return startRun(state, action.commands);
    case 'triage_done': {
      if (state.triage.run?.id !== action.id) return state;
      const run = state.triage.run;
      const done = action.results.filter((r) => r.ok);
      const refused = action.results.filter((r) => !r.ok);
      const inverses = done
        .map((r) => r.inverse)
        .filter((c): c is TriageCommand => Boolean(c))
        .reverse();
      const undo =
        run.undo || inverses.length === 0 ? state.triage.undo : [...state.triage.undo, inverses].slice(-UNDO_DEPTH);
      // an undo that went through leaves the stack; one refused stays, to try again once the gate passes
      const popped = run.undo && refused.length === 0 ? undo.slice(0, -1) : undo;
      // an undo done goes on the redo stack (its inverses make the change again); a redo done leaves it; any other
      // change empties it, as in every editor
      let redo = state.triage.redo;
      if (run.undo && refused.length === 0 && inverses.length > 0) redo = [...redo, inverses].slice(-UNDO_DEPTH);
      else if (run.redo && refused.length === 0) redo = redo.slice(0, -1);
      else if (!run.undo && !run.redo && done.length > 0) redo = [];
      const created = done.find((r) => r.created)?.created ?? null;
      // one item changed: the selection follows it (a priority or stage change re-sorts it); block, unblock,
      // freeze and unfreeze move it out of the tab shown: the cursor stays in the tab, on the row after it, so
      // triage goes on down the list (issue 39)
      const only = action.results.length === 1 && done.length === 1 ? done[0].command : null;
      const leaves = only !== null && BUCKET_MOVES.has(only.op) && 'ref' in only ? only.ref : null;
      const followed = only && 'ref' in only && !leaves ? only.ref : null;
      let next = triage(state, {
        run: null,
        undo: popped,
        redo,
        marked: refused.length === 0 ? [] : state.triage.marked,
        arriving: created ?? followed ?? state.triage.arriving,
        arrivingTab: created ? createdTab(state, done) : followed ? null : state.triage.arrivingTab,
      });
      if (leaves) next = stepPast(next, leaves);
      // the stream may have shown the change before the daemon's answers came back: select it now, not at the next
      // frontier change
      if (next.triage.arriving) next = selectArrived(next, helpers);
      if (refused.length === 0) {
        const text =
          done.length === 1
            ? done[0].message
            : `${done.length} changes made (${done.map((r) => r.message).join('; ')})`;
        return status(next, run.undo ? `undone: ${text}` : run.redo ? `redone: ${text}` : text, 'ok');
      }
      // refusals in words: one alone, with its detail; several, as a summary of what was refused and why
      const lines: string[] = [];
      if (action.results.length > 1) {
        const made = done.length > 0 ? ` · ${done.length} of ${action.results.length} done` : '';
        lines.push(`${refused.length} of ${action.results.length} refused${made}.`, '');
      }
      for (const r of refused) {
        lines.push(`✗ ${describeCommand(r.command).text}: ${r.message}`);
        for (const l of r.detail ?? []) lines.push(`    ${l}`);
      }
      // nobody answered: the daemon is unreachable, and nothing was refused (issue 39)
      if (refused.every((r) => r.unreachable)) {
        const head = `Not sent: ${refused[0].message}`;
        const words = lines.map((l) => l.replace(/ refused([ .])/, ' not sent$1'));
        next = status(
          next,
          `not sent: the daemon is unreachable (${refused.length} change${refused.length > 1 ? 's' : ''})`,
          'error',
        );
        const tail = run.undo
          ? 'The undo stays on the stack (z tries again).'
          : 'Nothing changed; try again once it is back.';
        return {
          ...next,
          dialog: { kind: 'refusal', title: ' Daemon unreachable ', lines: [head, '', ...words, '', tail] },
        };
      }
      if (run.undo) lines.push('', 'The undo was refused; it stays on the stack (z tries again).');
      next = status(next, `refused: ${refused[0].message}`, 'error');
      return { ...next, dialog: { kind: 'refusal', title: run.undo ? ' Undo refused ' : ' Refused ', lines } };
    }
    default:
      return null;
  }
}

const BUCKET_MOVES = new Set<TriageCommand['op']>(['block', 'unblock', 'freeze', 'unfreeze']);

// The cursor of the tab shown moves off `ref` to the row after it (the one before when it was the last).
function stepPast(state: State, ref: string): State {
  const tab = state.tab;
  const at = indexOfKey(state, tab, ref);
  if (at < 0 || state.cursors[tab].key !== ref) return state;
  const n = rowCount(state, tab);
  const index = at + 1 < n ? at + 1 : at - 1;
  if (index < 0) return state;
  // selected by key: when the frontier drops the item, the row after it is found one place up
  return { ...state, cursors: { ...state.cursors, [tab]: { key: keyAt(state, tab, index), index } } };
}

// Where a created item will live: an item created waiting on an open item (one the frontier shows) is blocked;
// until the frontier shows it there, an answer from between the create and the dependency still has it runnable.
function createdTab(state: State, done: readonly TriageResult[]): FrontierTab | null {
  const create = done.find((r) => r.created)?.command;
  if (create?.op !== 'create' || !create.blockedBy) return null;
  return rowByRef(state, create.blockedBy) ? 'blocked' : null;
}

// A created item has arrived in the frontier: select it, in whatever tab it lives.
export function selectArrived(state: State, helpers: TriageHelpers): State {
  const ref = state.triage.arriving;
  const found = ref ? rowByRef(state, ref) : null;
  if (!ref || !found) return state;
  // an older frontier answer still shows it where it was: wait for the one that shows the change
  if (state.triage.arrivingTab && found.tab !== state.triage.arrivingTab) return state;
  const jumped = jumpTo(triage(state, { arriving: null, arrivingTab: null }), ref, helpers);
  return jumped ? { ...jumped, triage: { ...jumped.triage, back: state.triage.back } } : state;
}
