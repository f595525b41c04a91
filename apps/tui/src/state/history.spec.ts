import { change, event, frontier, item, NOW, project } from '../testing/fixtures';
import type { Action } from './actions';
import { reduce } from './reduce';
import { activeScope, keyAt, selectedEvent, unseenEvents, visibleEvents } from './selectors';
import { initialState, State } from './state';

// The TUI's state: the Events tab merges the project's audit log with the stored events and follows it;
// h pages through an item's whole history.

const key = (action: Extract<Action, { type: 'key' }>['action']): Action => ({ type: 'key', action });
const run = (state: State, ...actions: Action[]) => actions.reduce(reduce, state);

function loaded(): State {
  return run(
    initialState({ now: NOW }),
    { type: 'projects_loaded', projects: [project('atlas'), project('beta')] },
    { type: 'frontier_loaded', project: 'atlas', frontier: frontier([item(1), item(2)]) },
  );
}

const changes = (s: State, list = [change(5), change(40, { actor: 'mia', field: 'status', before: 'idea' })]) =>
  reduce(s, { type: 'changes_loaded', project: 'atlas', changes: list });

describe('the audit log on the Events tab', () => {
  it('should merge the changes with the stored events by time, newest first, each once', () => {
    const at = (secondsAgo: number) => new Date(NOW - secondsAgo * 1000).toISOString();
    const events = [event(30, { created_at: at(30) }), event(31, { name: 'FrontierComputed', created_at: at(10) })];
    let s = reduce(loaded(), { type: 'events_loaded', events });
    s = changes(s);
    expect(visibleEvents(s).map((r) => r.id)).toEqual(['h5', '30', 'h40']);
    s = reduce(s, key('events_reads'));
    expect(visibleEvents(s).map((r) => r.id)).toEqual(['h5', '31', '30', 'h40']);
    // a refetch replaces the page: no duplicates
    s = changes(s);
    expect(visibleEvents(s).filter((r) => r.id === 'h5')).toHaveLength(1);
  });

  it("should filter the change rows by who and what, and ignore another project's answer", () => {
    let s = run(changes(loaded()), key('tab_events'), key('filter_start'));
    for (const ch of 'mia') s = reduce(s, { type: 'input', ch });
    expect(visibleEvents(s).map((r) => r.change?.actor)).toEqual(['mia']);
    s = run(s, key('filter_cancel'), key('filter_start'));
    for (const ch of 'medium → high') s = reduce(s, { type: 'input', ch });
    expect(visibleEvents(s).map((r) => r.id)).toEqual(['h5']);
    const other = reduce(loaded(), { type: 'changes_loaded', project: 'beta', changes: [change(1)] });
    expect(other.changes).toEqual([]);
  });

  it('should forget the changes of the project left', () => {
    const s = run(changes(loaded()), key('project_switch'), key('cursor_down'), key('project_choose'));
    expect(s.project).toBe('beta');
    expect(s.changes).toEqual([]);
  });

  it('should follow new rows at the top, and count those that arrived while scrolled away', () => {
    let s = run(changes(loaded()), key('tab_events'));
    expect(selectedEvent(s)?.id).toBe('h5');
    // at the top: the newest row is selected
    s = changes(s, [change(3), change(5), change(40)]);
    expect(selectedEvent(s)?.id).toBe('h3');
    expect(unseenEvents(s)).toBe(0);
    // scrolled away: the selection stays on its row, the arrivals are counted (events count too)
    s = reduce(s, key('cursor_down'));
    expect(selectedEvent(s)?.id).toBe('h5');
    s = changes(s, [change(1), change(2), change(3), change(5), change(40)]);
    s = reduce(s, { type: 'events_loaded', events: [event(0)] });
    expect(selectedEvent(s)?.id).toBe('h5');
    expect(unseenEvents(s)).toBe(3);
    // back at the top: following again
    s = reduce(s, key('cursor_top'));
    expect(unseenEvents(s)).toBe(0);
    expect(s.eventsSeen).toBeNull();
    s = changes(s, [change(-1), change(1), change(2), change(3), change(5), change(40)]);
    expect(selectedEvent(s)?.id).toBe('h-1');
    expect(keyAt(s, 'events', 0)).toBe('h-1');
  });
});

describe('h: the whole history of an item', () => {
  const page = (from: number, n: number) => Array.from({ length: n }, (_, i) => change(from - i));

  it('should open for the selected item, ask for the first page, and close', () => {
    let s = reduce(loaded(), key('history_open'));
    expect(s.dialog).toMatchObject({ kind: 'history', ref: 'ATL-1', changes: null, loading: true });
    expect(activeScope(s)).toBe('history');
    s = reduce(s, key('view_close'));
    expect(s.dialog).toBeNull();
    const none = reduce(run(loaded(), key('tab_events')), key('history_open'));
    expect(none.dialog).toBeNull();
  });

  it('should ask for the older page once near the end, append it without duplicates, and stop at the oldest', () => {
    let s = run(loaded(), key('history_open'), {
      type: 'item_history_loaded',
      ref: 'ATL-1',
      changes: page(100, 50),
      next: '51',
      older: false,
    });
    expect(s.dialog).toMatchObject({ loading: false, next: '51', scroll: 0 });
    s = reduce(s, key('view_down'));
    expect(s.dialog).toMatchObject({ scroll: 1, loading: false });
    s = run(s, key('page_down'), key('page_down'), key('page_down'));
    expect(s.dialog).toMatchObject({ scroll: 28, loading: false });
    // within a page and a bit of the end: the older page is asked for
    s = reduce(s, key('page_down'));
    expect(s.dialog).toMatchObject({ scroll: 37, loading: true });
    // asked once: a further move does not ask again
    expect(reduce(s, key('view_down')).dialog).toMatchObject({ scroll: 38, loading: true });
    // a page for another item (a closed dialog's answer) is dropped
    const other = reduce(s, { type: 'item_history_loaded', ref: 'ATL-2', changes: [], next: null, older: true });
    expect(other).toBe(s);
    s = reduce(s, { type: 'item_history_loaded', ref: 'ATL-1', changes: page(51, 10), next: null, older: true });
    const d = s.dialog;
    expect(d?.kind === 'history' && d.changes?.map((c) => c.id)).toHaveLength(59);
    s = reduce(s, key('cursor_bottom'));
    expect(s.dialog).toMatchObject({ scroll: 58, loading: false, next: null });
    s = reduce(s, key('cursor_top'));
    expect(s.dialog).toMatchObject({ scroll: 0 });
  });

  it('should keep a failure in the dialog and not ask again by itself', () => {
    let s = run(loaded(), key('history_open'), { type: 'item_history_failed', ref: 'ATL-1', message: 'boom' });
    expect(s.dialog).toMatchObject({ loading: false, error: 'boom' });
    s = reduce(s, key('cursor_bottom'));
    expect(s.dialog).toMatchObject({ loading: false });
  });
});
