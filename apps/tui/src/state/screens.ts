import { changeWhat, changeWho } from '@app/client';

import type { KeyAction } from '../keys/keymap';
import type { Action } from './actions';
import { actorLabel, pickerProjects, selectedConnected, selectedEvent, selectedMachine, formatWhen } from './selectors';
import { Detail, Dialog, State, StatusTone, Tab } from './state';

// reduce.ts asks these first; null means "not mine".

export interface ScreensHelpers {
  relocate: (state: State, tab: Tab) => State;
  status: (state: State, text: string, tone: StatusTone) => State;
}

const DETAIL_CACHE_SIZE = 24;

export function cacheDetail(cache: Record<string, Detail>, detail: Detail): Record<string, Detail> {
  const next = { ...cache };
  delete next[detail.ref];
  next[detail.ref] = detail;
  const keys = Object.keys(next);
  for (let i = 0; i < keys.length - DETAIL_CACHE_SIZE; i++) delete next[keys[i]];
  return next;
}

function openView(state: State, title: string, lines: string[]): State {
  return { ...state, dialog: { kind: 'view', title, lines, scroll: 0 } };
}

type PickerDialog = Dialog & { kind: 'projects' };

function movePicker(state: State, d: PickerDialog, delta: number): State {
  const rows = pickerProjects(state, d);
  const max = Math.max(0, rows.length - 1);
  const index = Math.min(Math.max(d.index + delta, 0), max);
  return { ...state, dialog: { ...d, index, key: rows[index]?.id ?? null } };
}

export function pickerFollow(state: State, d: PickerDialog): State {
  const rows = pickerProjects(state, d);
  const at = d.key ? rows.findIndex((p) => p.id === d.key) : -1;
  const index = at >= 0 ? at : Math.min(d.index, Math.max(0, rows.length - 1));
  return { ...state, dialog: { ...d, index, key: rows[index]?.id ?? d.key ?? null } };
}

function pickerKey(state: State, d: PickerDialog, action: KeyAction): State | null {
  switch (action) {
    case 'cursor_down':
      return movePicker(state, d, 1);
    case 'cursor_up':
      return movePicker(state, d, -1);
    case 'cursor_top':
      return movePicker(state, d, -Infinity);
    case 'cursor_bottom':
      return movePicker(state, d, Infinity);
    case 'filter_start':
      return { ...state, dialog: { ...d, filtering: true } };
    case 'filter_accept':
      return { ...state, dialog: { ...d, filtering: false } };
    case 'filter_cancel':
      return pickerFollow(state, { ...d, filtering: false, filter: '' });
    default:
      return null;
  }
}

function dialogKey(state: State, action: KeyAction): State | null {
  const d = state.dialog;
  if (d?.kind === 'projects') return pickerKey(state, d, action);
  if (d?.kind === 'confirm-revoke') {
    if (action === 'dialog_toggle') return { ...state, dialog: { ...d, focus: d.focus === 'no' ? 'yes' : 'no' } };
    if (action === 'dialog_yes' || action === 'dialog_no' || action === 'dialog_activate') {
      if (d.busy) return state;
      const yes = action === 'dialog_yes' || (action === 'dialog_activate' && d.focus === 'yes');
      return { ...state, dialog: yes ? { ...d, busy: true } : null };
    }
  }
  // the item is not known yet: y waits for it (the dialog says so), n and esc cancel at once
  if (d?.kind === 'charge' && d.phase === 'loading') {
    if (action === 'dialog_yes') return { ...state, dialog: { ...d, queued: 'yes' } };
    if (action === 'dialog_no') return { ...state, dialog: null };
  }
  if (d?.kind === 'view') {
    if (action === 'view_close') return { ...state, dialog: null };
    if (action === 'view_down' || action === 'view_up') {
      const step = action === 'view_down' ? 1 : -1;
      const scroll = Math.min(Math.max(0, d.scroll + step), Math.max(0, d.lines.length - 1));
      return scroll === d.scroll ? state : { ...state, dialog: { ...d, scroll } };
    }
  }
  return null;
}

export function reduceScreensKey(state: State, action: KeyAction, h: ScreensHelpers): State | null {
  const inDialog = dialogKey(state, action);
  if (inDialog) return inDialog;
  switch (action) {
    case 'machines_view': {
      const next: State = { ...state, machinesView: state.machinesView === 'pending' ? 'connected' : 'pending' };
      return h.relocate(next, 'machines');
    }
    case 'machine_open': {
      const request = selectedMachine(state);
      const m = selectedConnected(state);
      if (request) {
        return openView(state, 'Machine request', [
          `name        ${request.machine_name}`,
          `machine id  ${request.machine_id}`,
          `from        ${request.client_address}`,
          `org         ${request.org ?? '(any: chosen at approval)'}`,
          `asked at    ${formatWhen(request.created_at, state.now)}`,
          `expires at  ${formatWhen(request.expires_at, state.now)}`,
          `yours       ${request.claimed_by_caller ? 'yes (you opened or decided it)' : 'no'}`,
          '',
          'Compare the name and id with what `svc connect` shows on that machine. a approves with the code it shows; d denies (no code needed).',
        ]);
      }
      if (m) {
        return openView(state, 'Connected machine', [
          `name        ${m.machine_name}`,
          `machine id  ${m.machine_id}`,
          `person      ${m.actor}`,
          `org         ${m.org}`,
          `credential  ${m.token_prefix}…`,
          `connected   ${formatWhen(m.created_at, state.now)}`,
          `last used   ${m.last_used_at ? formatWhen(m.last_used_at, state.now) : 'never'}`,
          `expires     ${m.expires_at ? formatWhen(m.expires_at, state.now) : 'never'}`,
          '',
          'x revokes its credential (asks first): its next request is refused.',
        ]);
      }
      return h.status(state, 'no machine selected', 'warn');
    }
    case 'machine_revoke': {
      if (state.readOnly) return h.status(state, 'read-only: revoke is disabled (--read-only)', 'warn');
      const m = selectedConnected(state);
      if (!m) {
        return h.status(
          state,
          state.machinesView === 'pending'
            ? 'revoke applies to connected machines: m shows them'
            : 'no connected machine selected',
          'warn',
        );
      }
      return {
        ...state,
        dialog: {
          kind: 'confirm-revoke',
          machineId: m.machine_id,
          machineName: m.machine_name,
          focus: 'no',
          busy: false,
        },
      };
    }
    case 'event_open': {
      const e = selectedEvent(state);
      if (!e) return h.status(state, 'no event selected', 'warn');
      const c = e.change;
      if (c) {
        return openView(state, `Change #${c.id}`, [
          `time     ${c.at}`,
          `who      ${changeWho(c)}`,
          `change   ${changeWhat(c)}`,
          `object   ${c.object}${c.object_ref ? ` ${c.object_ref}` : ''} ${c.action}`,
          `item     ${c.item_id ?? '-'}`,
          `project  ${c.project ?? '-'}`,
          `via      ${c.path}`,
          `session  ${c.session_id ?? '-'}${c.harness ? ` (${c.harness})` : ''}`,
          `through  ${c.credential ? `${c.credential.kind} #${c.credential.id}` : '-'}`,
          '',
          ...JSON.stringify({ before: c.before ?? null, after: c.after ?? null }, null, 2).split('\n'),
        ]);
      }
      return openView(state, `${e.name} #${e.id}`, [
        `time     ${formatWhen(e.created_at, state.now)}`,
        `event    ${e.name} (${e.kind})`,
        `project  ${e.project ?? '-'}`,
        `item     ${e.item_id ?? '-'}`,
        `actor    ${actorLabel(state, e.actor_id) || '-'}`,
        `session  ${e.session_id ?? '-'}`,
        '',
        ...JSON.stringify(e.payload ?? {}, null, 2).split('\n'),
      ]);
    }
    case 'events_reads': {
      const next = h.relocate({ ...state, showReads: !state.showReads }, 'events');
      return h.status(
        next,
        next.showReads ? 'showing FrontierComputed reads' : 'FrontierComputed reads hidden',
        'info',
      );
    }
    default:
      return null;
  }
}

export function reduceScreensInput(state: State, edit: (text: string) => string): State | null {
  const d = state.dialog;
  if (d?.kind !== 'projects' || !d.filtering) return null;
  return pickerFollow(state, { ...d, filter: edit(d.filter ?? '') });
}

export function reduceScreensAction(state: State, action: Action, h: ScreensHelpers): State | null {
  switch (action.type) {
    case 'connected_loaded':
      return h.relocate({ ...state, connected: action.machines }, 'machines');
    case 'actors_loaded': {
      const actorNames = { ...state.actorNames };
      for (const a of action.actors) actorNames[String(a.actor_id)] = a.name;
      return { ...state, actorNames };
    }
    case 'view_open':
      return openView(state, action.title, action.lines);
    case 'revoke_done':
      return state.dialog?.kind === 'confirm-revoke' ? { ...state, dialog: null } : state;
    default:
      return null;
  }
}
