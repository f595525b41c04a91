import type * as MachineAuthorizationModels from '@app/contracts/machine-authorization/models';

import type { ClaimHolder, EventWire } from '../wire';
import { helpSections } from '../keys/help';

import type { Action, DetailPart } from './actions';
import { cursorsAfterDelta } from './frontier-delta';
import { SORT_KEYS } from '@app/contracts';
import {
  reduceTriageAction,
  reduceTriageInput,
  reduceTriageKey,
  jumpTo,
  selectArrived,
  sortBy,
  startRun,
  TriageHelpers,
} from './triage';
import { selectedEdge } from './edge-select';
import { refreshTree, treeEdgesLoaded } from './tree';
import { editLine, HistoryWalk, LineEdit, lineAt, LineState, walkHistory } from './line-editor';
import { activePrompt } from './prompt';
import { applyView, openLink, userCommand, userHelp } from './user-views';
import { eventsArrived, HistoryHelpers, reduceHistoryAction, reduceHistoryKey } from './history';
import {
  activeScope,
  detailVisible,
  formatWhen,
  indexOfKey,
  keyAt,
  pickerProjects,
  rowCount,
  selectedItem,
  selectedMachine,
} from './selectors';
import { cacheDetail, pickerFollow, reduceScreensAction, reduceScreensInput, reduceScreensKey } from './screens';
import { Cursor, Detail, EVENTS_CAPACITY, isFrontierTab, State, STATUS_TTL_MS, StatusTone, Tab, TABS } from './state';

function setCursor(state: State, tab: Tab, index: number): State {
  const n = rowCount(state, tab);
  const clamped = n === 0 ? 0 : Math.min(Math.max(index, 0), n - 1);
  const cursor: Cursor = { index: clamped, key: keyAt(state, tab, clamped) };
  const old = state.cursors[tab];
  // back at the top of the Events tab: following new rows again
  const seen = tab === 'events' && clamped === 0 ? { eventsSeen: null } : {};
  if (old.index === cursor.index && old.key === cursor.key)
    return state.eventsSeen && 'eventsSeen' in seen ? { ...state, ...seen } : state;
  return { ...state, cursors: { ...state.cursors, [tab]: cursor }, detailScroll: 0, ...seen };
}

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
    history: null,
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
    case 'history':
      return { ...next, history: data.value };
    case 'error':
      return { ...next, errors: [...detail.errors, data.message] };
  }
}

function mergeEvents(current: EventWire[], incoming: EventWire[]): EventWire[] {
  if (incoming.length === 0) return current;
  const seen = new Set(current.map((e) => e.id));
  const fresh = incoming.filter((e) => !seen.has(e.id));
  if (fresh.length === 0) return current;
  const all = [...fresh, ...current];
  // ids are bigint strings: compare by length, then lexically; a live item notice (no daemon id) goes by its time
  const numeric = /^[0-9]+$/;
  all.sort((a, b) =>
    (!numeric.test(a.id) || !numeric.test(b.id)) && a.created_at !== b.created_at
      ? a.created_at < b.created_at
        ? 1
        : -1
      : a.id.length !== b.id.length
        ? b.id.length - a.id.length
        : a.id < b.id
          ? 1
          : a.id > b.id
            ? -1
            : 0,
  );
  return all.slice(0, EVENTS_CAPACITY);
}

function moveTab(state: State, tab: Tab): State {
  if (tab === state.tab) return state;
  const next = relocate({ ...state, tab, filtering: false }, tab);
  return isFrontierTab(tab) && next.detailOpen ? withDetailFor(next) : next;
}

function moveBy(state: State, delta: number): State {
  const next = setCursor(state, state.tab, state.cursors[state.tab].index + delta);
  return next.detailOpen ? withDetailFor(next) : next;
}

function scrollHelp(state: State, delta: number): State {
  const d = state.dialog;
  if (d?.kind !== 'help') return state;
  const max = helpSections(activeScope({ ...state, dialog: null }), d.filter, undefined, userHelp(state)).reduce(
    (n, s) => n + s.rows.length + 2,
    0,
  );
  const scroll = Math.min(Math.max(0, (d.scroll ?? 0) + delta), max);
  return scroll === (d.scroll ?? 0) ? state : { ...state, dialog: { ...d, scroll } };
}

function reduceKey(state: State, action: Action & { type: 'key' }): State {
  const screened = reduceScreensKey(state, action.action, SCREENS_HELPERS);
  if (screened) return screened;
  const historied = reduceHistoryKey(state, action.action, HISTORY_HELPERS);
  if (historied) return historied;
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
      if (scope === 'projects' && state.dialog?.kind === 'projects') {
        const max = Math.max(0, (state.projects?.length ?? 1) - 1);
        return { ...state, dialog: { ...state.dialog, index: Math.min(state.dialog.index + 1, max) } };
      }
      return moveBy(state, 1);
    case 'cursor_up':
      if (scope === 'projects' && state.dialog?.kind === 'projects') {
        return { ...state, dialog: { ...state.dialog, index: Math.max(state.dialog.index - 1, 0) } };
      }
      return moveBy(state, -1);
    case 'cursor_top':
      return moveBy(state, -Infinity);
    case 'cursor_bottom':
      return moveBy(state, rowCount(state, state.tab));
    case 'page_down':
      return moveBy(state, Math.max(1, state.pageSize - 1));
    case 'page_up':
      return moveBy(state, -Math.max(1, state.pageSize - 1));
    case 'detail_open': {
      const edge = selectedEdge(state);
      if (edge?.other) {
        const jumped = jumpTo({ ...state, edgeCursor: null }, edge.other, TRIAGE_HELPERS);
        if (jumped) return status(jumped, `${edge.other} is in ${jumped.tab} · backspace goes back`, 'info');
        return status(state, `${edge.other} is not in this project's frontier (${edge.state ?? 'unknown'})`, 'warn');
      }
      return withDetailFor({ ...state, detailOpen: true, paneHidden: false });
    }
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
      if (state.triage.marked.length > 0) return { ...state, triage: { ...state.triage, marked: [], anchor: null } };
      if (selectedEdge(state)) return { ...state, edgeCursor: null };
      if (detailVisible(state)) return { ...state, detailOpen: false };
      if (state.filter) return relocateAll({ ...state, filter: '' }, ['runnable', 'blocked', 'frozen', 'events']);
      if (state.detailOpen) return { ...state, detailOpen: false };
      return state;
    case 'filter_start':
      return { ...state, filtering: true };
    case 'filter_accept': {
      const kept = state.filter.trim();
      const filterHistory = kept
        ? [...state.filterHistory.filter((h) => h !== kept), kept].slice(-50)
        : state.filterHistory;
      return { ...state, filtering: false, filterHistory };
    }
    case 'filter_cancel': {
      const next = relocateAll({ ...state, filtering: false, filter: '' }, ['runnable', 'blocked', 'frozen', 'events']);
      return next.detailOpen ? withDetailFor(next) : next;
    }
    case 'input_backspace':
      return reduceLine(state, { op: 'backspace' });
    case 'comment_newline':
      return reduceLine(state, { op: 'insert', text: '\n' });
    case 'line_delete':
    case 'line_left':
    case 'line_right':
    case 'line_home':
    case 'line_end':
    case 'line_word_left':
    case 'line_word_right':
    case 'line_kill_word_back':
    case 'line_kill_start':
    case 'line_kill_end':
    case 'line_yank':
      return reduceLine(state, { op: action.action.slice(5) as Exclude<LineEdit['op'], 'insert'> });
    case 'history_older':
      return reduceLine(state, 'history_older');
    case 'history_newer': {
      // ↓ past the newest filter (or not walking the history): keep the filter, back to the list, as before
      const walking = state.line.owner === activePrompt(state)?.owner && state.line.walk.at !== null;
      if (!walking && state.filtering && !state.dialog)
        return reduceKey(state, { type: 'key', action: 'filter_accept' });
      return reduceLine(state, 'history_newer');
    }
    case 'picker_up':
    case 'picker_down': {
      const d = state.dialog;
      const prompt = activePrompt(state);
      const walking = state.line.owner === prompt?.owner && state.line.walk.at !== null;
      if (
        d?.kind === 'picker' &&
        d.purpose === 'palette' &&
        (walking || (d.filter === '' && action.action === 'picker_up'))
      )
        return reduceLine(state, action.action === 'picker_up' ? 'history_older' : 'history_newer');
      return reduceTriageKey(state, action.action, TRIAGE_HELPERS) ?? state;
    }
    case 'help':
      return { ...state, dialog: { kind: 'help', filter: '' } };
    case 'open_link':
      return openLink(state);
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
      if (!request) return status(state, 'no pending machine request selected', 'warn');
      // deny needs no code: a request nobody expected is refused from the list, after a confirmation
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
          action: action.action === 'machine_approve' ? 'approve' : 'deny',
          requestId: request.request_id,
          machineName: request.machine_name,
          machineId: request.machine_id,
          input: '',
          warning: null,
          busy: false,
        },
      };
    }
    case 'dialog_toggle': {
      const d = state.dialog;
      if (d?.kind === 'triage-confirm') return { ...state, dialog: { ...d, focus: d.focus === 'no' ? 'yes' : 'no' } };
      if (d?.kind === 'charge' || d?.kind === 'confirm-deny' || d?.kind === 'confirm-approve') {
        return { ...state, dialog: { ...d, focus: d.focus === 'no' ? 'yes' : 'no' } };
      }
      return state;
    }
    case 'dialog_yes':
    case 'dialog_no':
    case 'dialog_activate': {
      const d = state.dialog;
      if (d?.kind === 'triage-confirm') {
        const yes = action.action === 'dialog_yes' || (action.action === 'dialog_activate' && d.focus === 'yes');
        if (d.quit)
          return yes ? { ...startRun(state, d.commands), quitting: 'after-run' } : { ...state, quitting: 'now' };
        return yes ? startRun(state, d.commands, d.undo, d.redo) : { ...state, dialog: null };
      }
      if (!d || (d.kind !== 'charge' && d.kind !== 'confirm-deny' && d.kind !== 'confirm-approve')) return state;
      const yes = action.action === 'dialog_yes' || (action.action === 'dialog_activate' && d.focus === 'yes');
      if (d.kind === 'charge') {
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
      return reduceTriageKey(state, action.action, TRIAGE_HELPERS) ?? state;
  }
}

const TRIAGE_HELPERS: TriageHelpers = {
  selectProject: (state, project) => selectProject(state, project),
  settle: (state) => {
    const next = relocateAll(state, ['runnable', 'blocked', 'frozen']);
    return next.detailOpen ? withDetailFor(next) : next;
  },
};

const HISTORY_HELPERS: HistoryHelpers = {
  status: (s, t, tone) => status(s, t, tone),
  relocate: (s, tab) => relocate(s, tab),
};

const SCREENS_HELPERS = {
  relocate: (s: State, tab: Tab) => relocate(s, tab),
  status: (s: State, t: string, tone: StatusTone) => status(s, t, tone),
};

let userCodeInput: RegExp | null = null;

// Not contracts' normalizeUserCode: its module loads the schema validator into the TUI's start. The pattern's own
// module builds the JSON schemas (~16 ms), so it is loaded on the first code typed.
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

function selectProject(state: State, project: string): State {
  const fresh: Cursor = { key: null, index: 0 };
  return {
    ...state,
    project,
    frontier: null,
    frontierProject: null,
    claims: {},
    changes: [],
    changesProject: null,
    eventsSeen: null,
    detail: null,
    detailOpen: false,
    filter: '',
    cursors: { ...state.cursors, runnable: fresh, blocked: fresh, frozen: fresh },
  };
}

function readError(state: State): State {
  return state.status?.tone === 'error' ? { ...state, status: null } : state;
}

function status(state: State, text: string, tone: StatusTone): State {
  return { ...state, status: { text, tone, at: state.now } };
}

// A text a prompt refuses (too long) leaves the state as it was.
function setPromptText(state: State, edit: (text: string) => string): State {
  const triaged = reduceTriageInput(state, edit);
  if (triaged) return triaged;
  const screened = reduceScreensInput(state, edit);
  if (screened) return screened;
  const d = state.dialog;
  if (d?.kind === 'help') return { ...state, dialog: { ...d, filter: edit(d.filter), scroll: 0 } };
  if (d?.kind === 'code') {
    if (d.busy) return state;
    const input = edit(d.input);
    return input.length > 16 ? state : { ...state, dialog: { ...d, input, warning: null } };
  }
  if (!d && state.filtering) {
    const next = relocate({ ...state, filter: edit(state.filter) }, state.tab);
    return next.detailOpen ? withDetailFor(next) : next;
  }
  return state;
}

function reduceLine(state: State, edit: LineEdit | 'history_older' | 'history_newer'): State {
  const prompt = activePrompt(state);
  if (!prompt) return state;
  const own = state.line.owner === prompt.owner;
  const walk = own ? state.line.walk : { at: null, draft: '' };
  const before = lineAt(prompt.text, own ? state.line.cursor : null, state.line.kill);
  let after: LineState;
  let nextWalk = { at: null, draft: '' } as HistoryWalk;
  if (edit === 'history_older' || edit === 'history_newer') {
    const moved = walkHistory(prompt.history ?? [], walk, prompt.text, edit === 'history_older' ? 'older' : 'newer');
    if (!moved) return state;
    after = { text: moved.text, cursor: moved.text.length, kill: before.kill };
    nextWalk = moved.walk;
  } else {
    after = editLine(before, edit, prompt.multiLine === true);
  }
  const next = after.text === prompt.text ? state : setPromptText(state, () => after.text);
  if (activePrompt(next)?.text !== after.text) return state;
  return { ...next, line: { owner: prompt.owner, cursor: after.cursor, kill: after.kill, walk: nextWalk } };
}

export function reduce(state: State, action: Action): State {
  const next = reduceAny(state, action);
  if (next === state || next.line.owner === null) return next;
  if (activePrompt(next)?.owner === activePrompt(state)?.owner) return next;
  return { ...next, line: { owner: null, cursor: null, kill: next.line.kill, walk: { at: null, draft: '' } } };
}

function reduceAny(state: State, action: Action): State {
  const screened = reduceScreensAction(state, action, SCREENS_HELPERS);
  if (screened) return screened;
  const historied = reduceHistoryAction(state, action, HISTORY_HELPERS);
  if (historied) return historied;
  switch (action.type) {
    case 'key':
      return reduceKey(readError(state), action);
    case 'input':
      return reduceLine(readError(state), { op: 'insert', text: action.ch });
    case 'sort_column': {
      const key = SORT_KEYS.find((k) => k === action.column);
      if (!key || state.dialog) return state;
      const same = (state.sort ?? 'rank') === key;
      return sortBy(state, key, same ? !state.sortDesc : false, TRIAGE_HELPERS);
    }
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
    case 'own_session':
      return state.session === action.id ? state : { ...state, session: action.id };
    case 'quit_ask':
      return askQuit(state);
    case 'view_apply':
      return applyView(state, action, TRIAGE_HELPERS);
    case 'user_command':
      return userCommand(state, action.name);
    case 'quit_stay':
      return { ...state, dialog: null, quitting: null };
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
      const arrived = next.triage.arriving ? selectArrived(next, TRIAGE_HELPERS) : next;
      return arrived.detailOpen ? withDetailFor(arrived) : arrived;
    }
    case 'frontier_delta': {
      if (action.project !== state.project) return state;
      const cursors = state.frontierProject === action.project ? cursorsAfterDelta(state, action.delta) : null;
      const moved = { ...state, frontier: action.frontier, frontierProject: action.project, dataAt: state.now };
      const next = cursors
        ? relocateAll(
            { ...moved, cursors },
            (['runnable', 'blocked', 'frozen'] as const).filter((t) => cursors[t].key === null),
          )
        : relocateAll(moved, ['runnable', 'blocked', 'frozen']);
      const arrived = next.triage.arriving ? selectArrived(next, TRIAGE_HELPERS) : next;
      return arrived.detailOpen ? withDetailFor(arrived) : arrived;
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
    case 'events_loaded': {
      const events = mergeEvents(state.events, action.events);
      return events === state.events ? state : eventsArrived(state, { ...state, events }, relocate);
    }
    case 'tree_edges_loaded':
      return treeEdgesLoaded(state, action);
    case 'detail_loaded':
      if (state.detail?.ref !== action.ref) return state;
      {
        const detail = applyDetail(state.detail, action.data);
        return refreshTree({ ...state, detail, detailCache: cacheDetail(state.detailCache, detail) });
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
      // the view knows where the last page is
      const next =
        (d?.kind === 'help' || d?.kind === 'history') &&
        action.helpScrollMax !== undefined &&
        (d.scroll ?? 0) > action.helpScrollMax
          ? { ...state, dialog: { ...d, scroll: action.helpScrollMax } }
          : state;
      return next.pageSize === action.pageSize ? next : { ...next, pageSize: action.pageSize };
    }
    case 'tick': {
      const s = state.status;
      const expired = s !== null && s.tone !== 'error' && action.now - s.at >= STATUS_TTL_MS;
      return { ...state, now: action.now, ...(expired ? { status: null } : {}) };
    }
    case 'connected_loaded':
    case 'actors_loaded':
    case 'view_open':
    case 'revoke_done':
      return state;
    default:
      return reduceTriageAction(state, action, TRIAGE_HELPERS) ?? state;
  }
}

// Claims lapse without the heartbeat, so q asks whether to release or keep them.
export function ownClaims(state: State): ClaimHolder[] {
  if (state.session === null) return [];
  return Object.values(state.claims).filter((c) => c.session_id === state.session);
}

function askQuit(state: State): State {
  const held = ownClaims(state);
  if (held.length === 0 || state.readOnly) return { ...state, quitting: 'now' };
  const lapse = held.map((c) => Date.parse(c.expires_at)).filter((t) => !Number.isNaN(t));
  const when = lapse.length ? formatWhen(new Date(Math.min(...lapse)).toISOString(), state.now) : 'in a while';
  return {
    ...state,
    dialog: {
      kind: 'triage-confirm',
      title: ' Quit: release your claims? ',
      lines: [
        `You hold ${held.length === 1 ? 'a claim' : `${held.length} claims`}: ${held.map((c) => c.item_id).join(', ')}.`,
        '',
        'y releases them and quits: the items go back to the frontier.',
        `n keeps them and quits: without this TUI's heartbeat they lapse ${when}.`,
        'esc stays.',
      ],
      commands: held.map((c) => ({
        op: 'release' as const,
        ref: c.item_id,
        session: c.session_id,
        holder: c.actor ?? c.harness,
      })),
      focus: 'no',
      undo: false,
      quit: true,
    },
  };
}
