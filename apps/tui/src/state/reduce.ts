import type * as MachineAuthorizationModels from '@app/contracts/machine-authorization/models';

import type { EventWire } from '../wire';
import { helpSections } from '../keys/keymap';

import type { Action, DetailPart } from './actions';
import {
  activeScope,
  actorLabel,
  detailVisible,
  indexOfKey,
  keyAt,
  pickerProjects,
  rowCount,
  selectedConnected,
  selectedEvent,
  selectedItem,
  selectedMachine,
} from './selectors';
import {
  Cursor,
  Detail,
  Dialog,
  EVENTS_CAPACITY,
  isFrontierTab,
  State,
  STATUS_TTL_MS,
  StatusTone,
  Tab,
  TABS,
} from './state';

const FILTERED_TABS: readonly Tab[] = ['runnable', 'blocked', 'frozen', 'events'];
// details kept for moving back and forth without a blank pane
const DETAIL_CACHE_SIZE = 24;

function setCursor(state: State, tab: Tab, index: number): State {
  const n = rowCount(state, tab);
  const clamped = n === 0 ? 0 : Math.min(Math.max(index, 0), n - 1);
  const cursor: Cursor = { index: clamped, key: keyAt(state, tab, clamped) };
  const old = state.cursors[tab];
  if (old.index === cursor.index && old.key === cursor.key) return state;
  return { ...state, cursors: { ...state.cursors, [tab]: cursor }, detailScroll: 0 };
}

// After the rows changed: keep the selected item selected wherever it moved; if it left, stay at the same height.
function relocate(state: State, tab: Tab): State {
  const cursor = state.cursors[tab];
  if (cursor.key !== null) {
    const at = indexOfKey(state, tab, cursor.key);
    if (at >= 0) {
      if (at === cursor.index) return state;
      return { ...state, cursors: { ...state.cursors, [tab]: { key: cursor.key, index: at } } };
    }
  }
  const n = rowCount(state, tab);
  const index = n === 0 ? 0 : Math.min(cursor.index, n - 1);
  return { ...state, cursors: { ...state.cursors, [tab]: { index, key: keyAt(state, tab, index) } } };
}

function relocateAll(state: State, tabs: readonly Tab[]): State {
  return tabs.reduce(relocate, state);
}

function withDetailFor(state: State): State {
  const item = selectedItem(state);
  if (!item) return state.detail === null ? state : { ...state, detail: null };
  if (state.detail?.ref === item.item_id) return state;
  // seen a moment ago: shown at once (the effects refetch it), so j/k never blank the pane
  const cached = state.detailCache[item.item_id];
  if (cached) return { ...state, detail: { ...cached, errors: [] }, detailScroll: 0 };
  const detail: Detail = {
    ref: item.item_id,
    explain: null,
    item: null,
    edges: null,
    dbClaim: null,
    pipeline: null,
    epicTasks: null,
    errors: [],
    version: 0,
  };
  return { ...state, detail, detailScroll: 0 };
}

function applyDetail(detail: Detail, data: DetailPart): Detail {
  const next = { ...detail, version: detail.version + 1 };
  switch (data.part) {
    case 'explain':
      return { ...next, explain: data.value };
    case 'item':
      return { ...next, item: data.value };
    case 'edges':
      return { ...next, edges: data.edges };
    case 'dbClaim':
      return { ...next, dbClaim: data.value };
    case 'pipeline':
      return { ...next, pipeline: data.value };
    case 'epicTasks':
      return { ...next, epicTasks: data.value };
    case 'error':
      return { ...next, errors: [...detail.errors, data.message] };
  }
}

function cacheDetail(cache: Record<string, Detail>, detail: Detail): Record<string, Detail> {
  const next = { ...cache };
  delete next[detail.ref];
  next[detail.ref] = detail;
  const keys = Object.keys(next);
  for (let i = 0; i < keys.length - DETAIL_CACHE_SIZE; i++) delete next[keys[i]];
  return next;
}

const NUMERIC_ID = /^[0-9]+$/;

// Newest first: recorded events by id (bigint strings: by length, then lexically); a live item notice (no id of
// the daemon's) by the time it arrived.
function newerFirst(a: EventWire, b: EventWire): number {
  if (!NUMERIC_ID.test(a.id) || !NUMERIC_ID.test(b.id)) {
    if (a.created_at !== b.created_at) return a.created_at < b.created_at ? 1 : -1;
  }
  return a.id.length !== b.id.length ? b.id.length - a.id.length : a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

function mergeEvents(current: EventWire[], incoming: EventWire[]): EventWire[] {
  if (incoming.length === 0) return current;
  const seen = new Set(current.map((e) => e.id));
  const fresh = incoming.filter((e) => !seen.has(e.id));
  if (fresh.length === 0) return current;
  const all = [...fresh, ...current];
  all.sort(newerFirst);
  return all.slice(0, EVENTS_CAPACITY);
}

function moveTab(state: State, tab: Tab): State {
  if (tab === state.tab) return state;
  // the filter may have changed since this tab was shown: find its selected item again
  const next = relocate({ ...state, tab, filtering: false }, tab);
  return isFrontierTab(tab) && next.detailOpen ? withDetailFor(next) : next;
}

function moveBy(state: State, delta: number): State {
  const next = setCursor(state, state.tab, state.cursors[state.tab].index + delta);
  return next.detailOpen ? withDetailFor(next) : next;
}

// The help overlay scrolls by lines; the view stops it at the last page.
function scrollHelp(state: State, delta: number): State {
  const d = state.dialog;
  if (d?.kind !== 'help') return state;
  const max = helpSections(activeScope({ ...state, dialog: null }), d.filter).reduce(
    (n, s) => n + s.rows.length + 2,
    0,
  );
  const scroll = Math.min(Math.max(0, (d.scroll ?? 0) + delta), max);
  return scroll === (d.scroll ?? 0) ? state : { ...state, dialog: { ...d, scroll } };
}

function reduceKey(state: State, action: Action & { type: 'key' }): State {
  const scope = activeScope(state);
  if (scope === 'help') {
    const page = Math.max(1, state.pageSize - 1);
    if (action.action === 'cursor_down') return scrollHelp(state, 1);
    if (action.action === 'cursor_up') return scrollHelp(state, -1);
    if (action.action === 'page_down') return scrollHelp(state, page);
    if (action.action === 'page_up') return scrollHelp(state, -page);
  }
  const tabIndex = TABS.indexOf(state.tab);
  switch (action.action) {
    case 'tab_runnable':
      return moveTab(state, 'runnable');
    case 'tab_blocked':
      return moveTab(state, 'blocked');
    case 'tab_frozen':
      return moveTab(state, 'frozen');
    case 'tab_machines':
      return moveTab(state, 'machines');
    case 'tab_events':
      return moveTab(state, 'events');
    case 'tab_next':
      return moveTab(state, TABS[(tabIndex + 1) % TABS.length]);
    case 'tab_prev':
      return moveTab(state, TABS[(tabIndex + TABS.length - 1) % TABS.length]);
    case 'cursor_down':
      if (scope === 'projects' && state.dialog?.kind === 'projects') return movePicker(state, state.dialog, 1);
      return moveBy(state, 1);
    case 'cursor_up':
      if (scope === 'projects' && state.dialog?.kind === 'projects') return movePicker(state, state.dialog, -1);
      return moveBy(state, -1);
    case 'cursor_top':
      if (scope === 'projects' && state.dialog?.kind === 'projects') return movePicker(state, state.dialog, -Infinity);
      return moveBy(state, -Infinity);
    case 'cursor_bottom':
      if (scope === 'projects' && state.dialog?.kind === 'projects') return movePicker(state, state.dialog, Infinity);
      return moveBy(state, rowCount(state, state.tab));
    case 'page_down':
      return moveBy(state, Math.max(1, state.pageSize - 1));
    case 'page_up':
      return moveBy(state, -Math.max(1, state.pageSize - 1));
    case 'detail_open':
      return withDetailFor({ ...state, detailOpen: true, paneHidden: false });
    case 'detail_toggle':
      if (!state.detailOpen) return withDetailFor({ ...state, detailOpen: true, paneHidden: false });
      return { ...state, paneHidden: !state.paneHidden };
    case 'detail_scroll_down':
      return state.detailOpen
        ? { ...state, detailScroll: state.detailScroll + Math.max(1, state.pageSize >> 1) }
        : state;
    case 'detail_scroll_up':
      return { ...state, detailScroll: Math.max(0, state.detailScroll - Math.max(1, state.pageSize >> 1)) };
    case 'back':
      // the visible thing first: a shown pane, then a filter, then a hidden pane
      if (detailVisible(state)) return { ...state, detailOpen: false };
      if (state.filter) {
        const next = relocateAll({ ...state, filter: '' }, FILTERED_TABS);
        return next.detailOpen ? withDetailFor(next) : next;
      }
      if (state.detailOpen) return { ...state, detailOpen: false };
      return state;
    case 'filter_start':
      if (state.dialog?.kind === 'projects') return { ...state, dialog: { ...state.dialog, filtering: true } };
      return { ...state, filtering: true };
    case 'filter_accept':
      if (state.dialog?.kind === 'projects') return { ...state, dialog: { ...state.dialog, filtering: false } };
      return { ...state, filtering: false };
    case 'filter_cancel': {
      if (state.dialog?.kind === 'projects') {
        return pickerFilter(state, { ...state.dialog, filtering: false }, '');
      }
      const next = relocateAll({ ...state, filtering: false, filter: '' }, FILTERED_TABS);
      return next.detailOpen ? withDetailFor(next) : next;
    }
    case 'input_backspace':
      return reduceInput(state, null);
    case 'help':
      return { ...state, dialog: { kind: 'help', filter: '' } };
    case 'help_close':
      return { ...state, dialog: null };
    case 'project_switch':
      if (!state.projects || state.projects.length === 0) return state;
      return {
        ...state,
        dialog: {
          kind: 'projects',
          index: Math.max(
            0,
            state.projects.findIndex((p) => p.id === state.project),
          ),
          key: state.project,
          filter: '',
          filtering: false,
        },
      };
    case 'project_choose': {
      if (state.dialog?.kind !== 'projects' || !state.projects) return state;
      const chosen = pickerProjects(state, state.dialog)[state.dialog.index];
      if (!chosen || chosen.id === state.project) return { ...state, dialog: null };
      return selectProject({ ...state, dialog: null }, chosen.id);
    }
    case 'charge_top':
    case 'charge_selected': {
      if (state.readOnly) return status(state, 'read-only: charge is disabled (started with --read-only)', 'warn');
      const ref = action.action === 'charge_selected' ? (selectedItem(state)?.item_id ?? null) : null;
      if (action.action === 'charge_selected' && !ref) return status(state, 'no item selected', 'warn');
      return {
        ...state,
        dialog: {
          kind: 'charge',
          mode: ref ? 'selected' : 'top',
          phase: 'loading',
          ref,
          step: null,
          focus: 'no',
          queued: null,
        },
      };
    }
    case 'machine_approve':
    case 'machine_deny': {
      if (state.readOnly) return status(state, 'read-only: approve and deny are disabled (--read-only)', 'warn');
      const request = selectedMachine(state);
      if (!request) {
        const why = state.machinesView === 'connected' ? ' (m shows the pending requests)' : '';
        return status(state, `no pending machine request selected${why}`, 'warn');
      }
      // deny needs no code: a request nobody expected can be refused from the list, after a confirmation
      if (action.action === 'machine_deny') {
        return {
          ...state,
          dialog: {
            kind: 'confirm-deny',
            requestId: request.request_id,
            machineName: request.machine_name,
            machineId: request.machine_id,
            code: null,
            focus: 'no',
            busy: false,
          },
        };
      }
      return {
        ...state,
        dialog: {
          kind: 'code',
          action: 'approve',
          requestId: request.request_id,
          machineName: request.machine_name,
          machineId: request.machine_id,
          input: '',
          warning: null,
          busy: false,
        },
      };
    }
    case 'machines_view': {
      const next = { ...state, machinesView: state.machinesView === 'pending' ? 'connected' : 'pending' } as State;
      return relocate(next, 'machines');
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
          `asked at    ${request.created_at}`,
          `expires at  ${request.expires_at}`,
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
          `connected   ${m.created_at}`,
          `last used   ${m.last_used_at ?? 'never'}`,
          '',
          'x revokes its credential (asks first): its next request is refused.',
        ]);
      }
      return status(state, 'no machine selected', 'warn');
    }
    case 'machine_revoke': {
      if (state.readOnly) return status(state, 'read-only: revoke is disabled (--read-only)', 'warn');
      const m = selectedConnected(state);
      if (!m) {
        return status(
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
      if (!e) return status(state, 'no event selected', 'warn');
      return openView(state, `${e.name} #${e.id}`, [
        `time     ${e.created_at}`,
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
      const next = relocate({ ...state, showReads: !state.showReads }, 'events');
      return status(next, next.showReads ? 'showing FrontierComputed reads' : 'FrontierComputed reads hidden', 'info');
    }
    case 'view_close':
      return state.dialog?.kind === 'view' ? { ...state, dialog: null } : state;
    case 'view_down':
    case 'view_up': {
      const d = state.dialog;
      if (d?.kind !== 'view') return state;
      const step = action.action === 'view_down' ? 1 : -1;
      const scroll = Math.min(Math.max(0, d.scroll + step), Math.max(0, d.lines.length - 1));
      return scroll === d.scroll ? state : { ...state, dialog: { ...d, scroll } };
    }
    case 'dialog_toggle': {
      const d = state.dialog;
      if (
        d?.kind === 'charge' ||
        d?.kind === 'confirm-deny' ||
        d?.kind === 'confirm-approve' ||
        d?.kind === 'confirm-revoke'
      ) {
        return { ...state, dialog: { ...d, focus: d.focus === 'no' ? 'yes' : 'no' } };
      }
      return state;
    }
    case 'dialog_yes':
    case 'dialog_no':
    case 'dialog_activate': {
      const d = state.dialog;
      if (
        !d ||
        (d.kind !== 'charge' &&
          d.kind !== 'confirm-deny' &&
          d.kind !== 'confirm-approve' &&
          d.kind !== 'confirm-revoke')
      ) {
        return state;
      }
      const yes = action.action === 'dialog_yes' || (action.action === 'dialog_activate' && d.focus === 'yes');
      if (d.kind === 'charge') {
        if (d.phase === 'loading') {
          // the item is not known yet: y waits for it (the dialog says so), n and esc cancel at once
          if (action.action === 'dialog_yes') return { ...state, dialog: { ...d, queued: 'yes' } };
          if (action.action === 'dialog_no') return { ...state, dialog: null };
          return state;
        }
        if (d.phase !== 'confirm') return state;
        return { ...state, dialog: yes ? { ...d, phase: 'running' } : null };
      }
      if (d.busy) return state;
      return { ...state, dialog: yes ? { ...d, busy: true } : null };
    }
    case 'deploy_approve': {
      if (state.readOnly) return status(state, 'read-only: approve is disabled (started with --read-only)', 'warn');
      const item = selectedItem(state);
      if (!item) return status(state, 'no item selected', 'warn');
      const pipeline = state.detail?.ref === item.item_id ? state.detail.pipeline : null;
      const halt = pipeline?.halt;
      if (!state.detailOpen || !state.detail || state.detail.ref !== item.item_id) {
        return status(state, `open the detail pane of ${item.item_id} (enter) to see its deployment pipeline`, 'warn');
      }
      if (!halt || halt.kind !== 'awaiting-approval') {
        const why = !pipeline
          ? 'it is not carried by a deployment run'
          : halt
            ? `its run ${halt.summary}`
            : 'its run does not await an approval';
        return status(state, `nothing to approve for ${item.item_id}: ${why}`, 'warn');
      }
      return {
        ...state,
        dialog: {
          kind: 'confirm-approve',
          ref: item.item_id,
          stage: halt.stage,
          environment: pipeline?.environment ?? null,
          since: halt.since,
          focus: 'no',
          busy: false,
        },
      };
    }
    case 'code_cancel':
      return { ...state, dialog: null };
    case 'code_submit': {
      const d = state.dialog;
      if (d?.kind !== 'code' || d.busy) return state;
      const code = normalizeUserCode(d.input);
      if (!code) {
        return {
          ...state,
          dialog: { ...d, warning: 'not a machine code: type the 8 letters the machine shows (XXXX-XXXX, no vowels)' },
        };
      }
      if (d.action === 'deny') {
        return {
          ...state,
          dialog: {
            kind: 'confirm-deny',
            requestId: d.requestId,
            machineName: d.machineName,
            code,
            focus: 'no',
            busy: false,
          },
        };
      }
      return { ...state, dialog: { ...d, input: code, busy: true, warning: null } };
    }
    case 'refresh':
      return status(state, 'refreshing…', 'info');
    default:
      return state;
  }
}

let userCodeInput: RegExp | null = null;

// What an approver types (any case, dash optional) as the canonical XXXX-XXXX, or null. Same rule as contracts'
// normalizeUserCode, whose module would load the schema validator into the TUI's start; the pattern's own module
// builds the JSON schemas (~16 ms), so it is loaded on the first code typed, not at start.
export function normalizeUserCode(input: string): string | null {
  if (!userCodeInput) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const models = require('@app/contracts/machine-authorization/models') as typeof MachineAuthorizationModels;
    userCodeInput = new RegExp(models.USER_CODE_INPUT_PATTERN);
  }
  const trimmed = input.trim();
  if (!userCodeInput.test(trimmed)) return null;
  const letters = trimmed.replace('-', '').toUpperCase();
  return `${letters.slice(0, 4)}-${letters.slice(4)}`;
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

// After the list or the filter changed: the selected project stays selected when it is still listed.
function pickerFollow(state: State, d: PickerDialog): State {
  const rows = pickerProjects(state, d);
  const at = d.key ? rows.findIndex((p) => p.id === d.key) : -1;
  const index = at >= 0 ? at : Math.min(d.index, Math.max(0, rows.length - 1));
  return { ...state, dialog: { ...d, index, key: rows[index]?.id ?? d.key ?? null } };
}

function pickerFilter(state: State, d: PickerDialog, filter: string): State {
  return pickerFollow(state, { ...d, filter });
}

function selectProject(state: State, project: string): State {
  const fresh: Cursor = { key: null, index: 0 };
  return {
    ...state,
    project,
    frontier: null,
    frontierProject: null,
    claims: {},
    detail: null,
    detailOpen: false,
    filter: '',
    cursors: { ...state.cursors, runnable: fresh, blocked: fresh, frozen: fresh },
  };
}

// A key press is the reading of an error line: it goes (the key may put up a new line).
function readError(state: State): State {
  return state.status?.tone === 'error' ? { ...state, status: null } : state;
}

function status(state: State, text: string, tone: StatusTone): State {
  return { ...state, status: { text, tone, at: state.now } };
}

function reduceInput(state: State, ch: string | null): State {
  const edit = (text: string) => (ch === null ? text.slice(0, -1) : text + ch);
  const d = state.dialog;
  if (d?.kind === 'help') return { ...state, dialog: { ...d, filter: edit(d.filter), scroll: 0 } };
  if (d?.kind === 'projects' && d.filtering) return pickerFilter(state, d, edit(d.filter ?? ''));
  if (d?.kind === 'code') {
    if (d.busy) return state;
    const input = edit(d.input);
    return input.length > 16 ? state : { ...state, dialog: { ...d, input, warning: null } };
  }
  if (!d && state.filtering) {
    // only the tab on screen is filtered now; the others when they are shown
    const next = relocate({ ...state, filter: edit(state.filter) }, state.tab);
    return next.detailOpen ? withDetailFor(next) : next;
  }
  return state;
}

export function reduce(state: State, action: Action): State {
  switch (action.type) {
    case 'key':
      return reduceKey(readError(state), action);
    case 'input':
      return reduceInput(readError(state), action.ch);
    case 'select': {
      if (state.dialog || action.index < 0 || action.index >= rowCount(state, state.tab)) return state;
      const next = setCursor(readError(state), state.tab, action.index);
      return next.detailOpen ? withDetailFor(next) : next;
    }
    case 'connection': {
      if (state.connection === action.state) return state;
      // back after a gap: an error from the gap is old news
      const back = action.state === 'live' && state.status?.tone === 'error';
      return { ...state, connection: action.state, ...(back ? { status: null } : {}) };
    }
    case 'failure':
      return { ...state, failure: action.failure };
    case 'actor':
      return { ...state, actor: action.name, actorAdmin: action.admin ?? false };
    case 'projects_loaded': {
      const ids = action.projects.map((p) => p.id);
      const project = state.project && ids.includes(state.project) ? state.project : (ids[0] ?? null);
      let next: State = { ...state, projects: action.projects };
      if (next.dialog?.kind === 'projects') next = pickerFollow(next, next.dialog);
      return project === state.project ? next : selectProject(next, project ?? '');
    }
    case 'frontier_loaded': {
      if (action.project !== state.project) return state;
      const next = relocateAll(
        { ...state, frontier: action.frontier, frontierProject: action.project, dataAt: state.now },
        ['runnable', 'blocked', 'frozen'],
      );
      return next.detailOpen ? withDetailFor(next) : next;
    }
    case 'claims_loaded': {
      if (action.project !== state.project) return state;
      const claims: Record<string, (typeof action.claims)[number]> = {};
      for (const c of action.claims) claims[c.item_id] = c;
      return { ...state, claims };
    }
    case 'machines_loaded': {
      const next = relocate({ ...state, machines: action.requests }, 'machines');
      const d = next.dialog;
      // the request being decided went away (decided elsewhere, expired): close its dialog and say so
      if ((d?.kind === 'code' || d?.kind === 'confirm-deny') && !d.busy) {
        if (!action.requests.some((r) => r.request_id === d.requestId)) {
          return status({ ...next, dialog: null }, `the request of ${d.machineName} is no longer pending`, 'warn');
        }
      }
      return next;
    }
    case 'events_loaded':
      return relocate({ ...state, events: mergeEvents(state.events, action.events) }, 'events');
    case 'connected_loaded':
      return relocate({ ...state, connected: action.machines }, 'machines');
    case 'actors_loaded': {
      const actorNames = { ...state.actorNames };
      for (const a of action.actors) actorNames[String(a.actor_id)] = a.name;
      return { ...state, actorNames };
    }
    case 'view_open':
      return openView(state, action.title, action.lines);
    case 'revoke_done':
      return state.dialog?.kind === 'confirm-revoke' ? { ...state, dialog: null } : state;
    case 'detail_loaded': {
      if (state.detail?.ref !== action.ref) return state;
      const detail = applyDetail(state.detail, action.data);
      return { ...state, detail, detailCache: cacheDetail(state.detailCache, detail) };
    }
    case 'charge_confirm': {
      const d = state.dialog;
      if (d?.kind !== 'charge') return state;
      const phase = d.queued === 'yes' ? 'running' : 'confirm';
      return { ...state, dialog: { ...d, phase, step: action.step, ref: action.step.item_id, focus: 'no' } };
    }
    case 'charge_done':
      return state.dialog?.kind === 'charge' ? { ...state, dialog: null } : state;
    case 'code_result': {
      const d = state.dialog;
      if (d?.kind !== 'code' && d?.kind !== 'confirm-deny') return state;
      if (action.ok || action.close) return { ...state, dialog: null };
      if (d.kind === 'code') return { ...state, dialog: { ...d, busy: false, warning: action.warning ?? null } };
      return { ...state, dialog: null };
    }
    case 'approve_done':
      return state.dialog?.kind === 'confirm-approve' ? { ...state, dialog: null } : state;
    case 'importing':
      return { ...state, importing: action.on };
    case 'status':
      return status(state, action.text, action.tone);
    case 'layout': {
      const d = state.dialog;
      // the help was scrolled past its last page (the view knows where that is): back to it
      const next =
        d?.kind === 'help' && action.helpScrollMax !== undefined && (d.scroll ?? 0) > action.helpScrollMax
          ? { ...state, dialog: { ...d, scroll: action.helpScrollMax } }
          : state;
      return next.pageSize === action.pageSize ? next : { ...next, pageSize: action.pageSize };
    }
    case 'tick': {
      const s = state.status;
      const expired = s !== null && s.tone !== 'error' && action.now - s.at >= STATUS_TTL_MS;
      return { ...state, now: action.now, ...(expired ? { status: null } : {}) };
    }
  }
}
