import type { KeyAction } from '../keys/keymap';
import type { ChangeRecordWire } from '../wire';
import type { Action } from './actions';
import { keyAt, selectedItem } from './selectors';
import { ItemHistoryDialog, State, StatusTone, Tab } from './state';

// reduce.ts asks these first; null means "not mine".

export interface HistoryHelpers {
  status: (state: State, text: string, tone: StatusTone) => State;
  relocate: (state: State, tab: Tab) => State;
}

const LOAD_AHEAD = 10;

function scrollTo(state: State, d: ItemHistoryDialog, scroll: number): State {
  const count = d.changes?.length ?? 0;
  const clamped = Math.min(Math.max(0, scroll), Math.max(0, count - 1));
  const page = Math.max(1, state.pageSize);
  // near the end of what is loaded: ask for the older page (once; the effects fetch it)
  const more = d.next !== null && !d.loading && d.error === null && clamped + page + LOAD_AHEAD >= count;
  if (clamped === d.scroll && !more) return state;
  return { ...state, dialog: { ...d, scroll: clamped, loading: d.loading || more } };
}

export function reduceHistoryKey(state: State, action: KeyAction, h: HistoryHelpers): State | null {
  const d = state.dialog;
  if (d?.kind === 'history') {
    const page = Math.max(1, state.pageSize - 1);
    switch (action) {
      case 'view_close':
        return { ...state, dialog: null };
      case 'view_down':
        return scrollTo(state, d, d.scroll + 1);
      case 'view_up':
        return scrollTo(state, d, d.scroll - 1);
      case 'page_down':
        return scrollTo(state, d, d.scroll + page);
      case 'page_up':
        return scrollTo(state, d, d.scroll - page);
      case 'cursor_top':
        return scrollTo(state, d, 0);
      case 'cursor_bottom':
        return scrollTo(state, d, Number.MAX_SAFE_INTEGER);
      default:
        return state;
    }
  }
  if (action !== 'history_open') return null;
  const item = selectedItem(state);
  if (!item) return h.status(state, 'no item selected', 'warn');
  return {
    ...state,
    dialog: { kind: 'history', ref: item.item_id, changes: null, next: null, loading: true, error: null, scroll: 0 },
  };
}

function appendOlder(shown: ChangeRecordWire[], older: ChangeRecordWire[]): ChangeRecordWire[] {
  const seen = new Set(shown.map((c) => c.id));
  return [...shown, ...older.filter((c) => !seen.has(c.id))];
}

// A user at the top follows new rows; one scrolled away keeps their row, and the top row they last saw is
// remembered so the marker can say how many arrived above it.
export function eventsArrived(before: State, after: State, relocate: HistoryHelpers['relocate']): State {
  const cursor = before.cursors.events;
  if (cursor.index === 0 && before.eventsSeen === null) {
    const key = keyAt(after, 'events', 0);
    if (key === cursor.key && after.eventsSeen === null) return after;
    return { ...after, eventsSeen: null, cursors: { ...after.cursors, events: { index: 0, key } } };
  }
  const seen = before.eventsSeen ?? keyAt(before, 'events', 0);
  return relocate({ ...after, eventsSeen: seen }, 'events');
}

export function reduceHistoryAction(state: State, action: Action, h: HistoryHelpers): State | null {
  switch (action.type) {
    case 'changes_loaded': {
      if (action.project !== state.project) return state;
      return eventsArrived(state, { ...state, changes: action.changes, changesProject: action.project }, h.relocate);
    }
    case 'item_history_loaded': {
      const d = state.dialog;
      if (d?.kind !== 'history' || d.ref !== action.ref) return state;
      if (action.older && d.changes) {
        const changes = appendOlder(d.changes, action.changes);
        return { ...state, dialog: { ...d, changes, next: action.next, loading: false, error: null } };
      }
      if (d.changes) {
        // the newest page again (the item changed while the list is open): new rows on top, the older pages kept;
        // a user scrolled down keeps the rows they look at
        const fresh = new Set(action.changes.map((c) => c.id));
        const kept = d.changes.filter((c) => !fresh.has(c.id));
        const added = action.changes.length + kept.length - d.changes.length;
        const scroll = d.scroll > 0 ? d.scroll + Math.max(0, added) : 0;
        return { ...state, dialog: { ...d, changes: [...action.changes, ...kept], scroll, error: null } };
      }
      return { ...state, dialog: { ...d, changes: action.changes, next: action.next, loading: false, error: null } };
    }
    case 'item_history_failed': {
      const d = state.dialog;
      if (d?.kind !== 'history' || d.ref !== action.ref) return state;
      return { ...state, dialog: { ...d, loading: false, error: action.message } };
    }
    default:
      return null;
  }
}
