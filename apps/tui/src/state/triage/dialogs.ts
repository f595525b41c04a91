import type { Action } from '../actions';
import type { PickerOption, State, TriageCommand, TriageDialog } from '../state';
import { BUCKETS, COMMENT_MAX, KeyAction, rowByRef, status, TriageHelpers } from './common';
import { confirm, runOrConfirm, startRun } from './commands';
import { jumpTo } from './navigation';
import { paletteOptions, runPalette } from './palette';
import { TASK_PREFIX, taskView } from '../tree';

export function filteredOptions(options: readonly PickerOption[] | null, filter: string): PickerOption[] {
  if (!options) return [];
  const needle = filter.trim().toLowerCase();
  if (!needle) return [...options];
  const hits = options.filter((o) => `${o.value} ${o.label} ${o.note ?? ''}`.toLowerCase().includes(needle));
  const exact = hits.filter((o) => o.value.toLowerCase() === needle);
  const prefix = hits.filter((o) => o.value.toLowerCase() !== needle && o.value.toLowerCase().startsWith(needle));
  return [...exact, ...prefix, ...hits.filter((o) => !exact.includes(o) && !prefix.includes(o))];
}

export function shownOptions(d: Extract<TriageDialog, { kind: 'picker' }>): PickerOption[] {
  if (d.purpose === 'palette') return d.options ?? [];
  return filteredOptions(d.options, d.filter);
}

export function picker(
  state: State,
  purpose: Extract<TriageDialog, { kind: 'picker' }>['purpose'],
  refs: string[],
  title: string,
  options: PickerOption[] | null,
  extra: Partial<Extract<TriageDialog, { kind: 'picker' }>> = {},
): State {
  return { ...state, dialog: { kind: 'picker', purpose, refs, title, options, filter: '', index: 0, ...extra } };
}

export const PRIORITY_OPTIONS: PickerOption[] = [
  { value: 'high', label: 'high' },
  { value: 'medium', label: 'medium' },
  { value: 'low', label: 'low' },
];

export function reduceDialogKey(state: State, action: KeyAction, helpers: TriageHelpers): State | null {
  switch (action) {
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
      if (d.purpose !== 'palette') return reduceDialogKey(state, 'picker_down', helpers);
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
    case 'input_submit':
      return submit(state);
    default:
      return null;
  }
}

export function pickerOptionsArrived(state: State, action: Extract<Action, { type: 'picker_options' }>): State {
  const d = state.dialog;
  if (d?.kind !== 'picker' || d.purpose !== action.purpose || d.refs.join() !== action.refs.join()) return state;
  if (d.purpose !== 'status') return { ...state, dialog: { ...d, options: action.options, index: 0 } };
  const index = d.filter ? 0 : nextStageIndex(action.options);
  const opened: State = { ...state, dialog: { ...d, options: action.options, index } };
  if (!d.next) return opened;
  const chosen = action.options[index];
  if (!chosen || chosen.current)
    return status({ ...state, dialog: null }, `${d.refs[0]} is at the workflow's last stage`, 'info');
  return chooseStage(opened, d.refs, action.options, chosen);
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

// A backward move or one to a terminal stage asks first, naming from → to, with No focused.
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
