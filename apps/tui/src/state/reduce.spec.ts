import { event, frontier, item, machineRequest, NOW, project } from '../testing/fixtures';
import type { Action } from './actions';
import { reduce } from './reduce';
import { activeScope, rowCount, selectedIndex, selectedItem } from './selectors';
import { EVENTS_CAPACITY, initialState, State } from './state';

const key = (action: Extract<Action, { type: 'key' }>['action']): Action => ({ type: 'key', action });
const run = (state: State, ...actions: Action[]) => actions.reduce(reduce, state);

function loaded(n = 5, readOnly = false): State {
  const rows = Array.from({ length: n }, (_, i) => item(i + 1));
  return run(
    initialState({ now: NOW, readOnly }),
    { type: 'projects_loaded', projects: [project('atlas'), project('beta', 'Beta')] },
    { type: 'frontier_loaded', project: 'atlas', frontier: frontier(rows, [item(90, { blocked_by: ['ATL-1'] })]) },
  );
}

describe('reduce', () => {
  describe('projects', () => {
    it('should open the first project when none was asked for', () => {
      expect(loaded().project).toBe('atlas');
    });

    it('should keep the project named on the command line when it exists', () => {
      const s = reduce(initialState({ project: 'beta' }), {
        type: 'projects_loaded',
        projects: [project('atlas'), project('beta')],
      });
      expect(s.project).toBe('beta');
    });

    it('should ignore a frontier of a project no longer open', () => {
      const s = reduce(loaded(), { type: 'frontier_loaded', project: 'beta', frontier: frontier([]) });
      expect(rowCount(s, 'runnable')).toBe(5);
    });

    it('should switch project through the P dialog and reset the frontier', () => {
      const s = run(loaded(), key('project_switch'), key('cursor_down'), key('project_choose'));
      expect(s.project).toBe('beta');
      expect(s.frontier).toBeNull();
      expect(s.dialog).toBeNull();
    });
  });

  describe('cursor', () => {
    it('should move down and up and stop at the ends', () => {
      let s = run(loaded(3), key('cursor_down'), key('cursor_down'), key('cursor_down'));
      expect(selectedItem(s)?.item_id).toBe('ATL-3');
      s = run(s, key('cursor_top'), key('cursor_up'));
      expect(selectedItem(s)?.item_id).toBe('ATL-1');
      s = reduce(s, key('cursor_bottom'));
      expect(selectedIndex(s)).toBe(2);
    });

    it('should page by the viewport height', () => {
      const s = run(loaded(50), { type: 'layout', pageSize: 10 }, key('page_down'));
      expect(selectedIndex(s)).toBe(9);
      expect(selectedIndex(reduce(s, key('page_up')))).toBe(0);
    });

    it('should follow the selected item by ref when the list is refreshed in another order', () => {
      let s = run(loaded(5), key('cursor_down'), key('cursor_down'));
      expect(selectedItem(s)?.item_id).toBe('ATL-3');
      const reordered = [item(9), item(3), item(1), item(2)];
      s = reduce(s, { type: 'frontier_loaded', project: 'atlas', frontier: frontier(reordered) });
      expect(selectedItem(s)?.item_id).toBe('ATL-3');
      expect(selectedIndex(s)).toBe(1);
    });

    it('should stay at the same height when the selected item leaves the list', () => {
      let s = run(loaded(5), key('cursor_down'), key('cursor_down'));
      s = reduce(s, {
        type: 'frontier_loaded',
        project: 'atlas',
        frontier: frontier([item(1), item(2), item(4), item(5)]),
      });
      expect(selectedItem(s)?.item_id).toBe('ATL-4');
    });
  });

  describe('tabs', () => {
    it('should reach each tab by digit and cycle with tab_next and tab_prev', () => {
      let s = loaded();
      expect(reduce(s, key('tab_blocked')).tab).toBe('blocked');
      expect(reduce(s, key('tab_events')).tab).toBe('events');
      s = run(s, key('tab_prev'));
      expect(s.tab).toBe('events');
      s = run(s, key('tab_next'), key('tab_next'));
      expect(s.tab).toBe('blocked');
    });

    it('should keep a cursor per tab', () => {
      const s = run(loaded(4), key('cursor_down'), key('tab_blocked'), key('tab_runnable'));
      expect(selectedItem(s)?.item_id).toBe('ATL-2');
    });
  });

  describe('filter', () => {
    it('should filter by substring of ref or title as characters arrive, case-insensitively', () => {
      const rows = [
        item(1, { title: 'Invoice PDF' }),
        item(2, { title: 'Refund flow' }),
        item(12, { title: 'pdf export' }),
      ];
      let s = run(
        initialState(),
        { type: 'projects_loaded', projects: [project()] },
        { type: 'frontier_loaded', project: 'atlas', frontier: frontier(rows) },
      );
      s = run(s, key('filter_start'), { type: 'input', ch: 'P' }, { type: 'input', ch: 'd' });
      expect(activeScope(s)).toBe('filter');
      expect(rowCount(s, 'runnable')).toBe(2);
      s = run(
        s,
        key('input_backspace'),
        key('input_backspace'),
        { type: 'input', ch: 'A' },
        { type: 'input', ch: 'T' },
        { type: 'input', ch: 'L' },
        { type: 'input', ch: '-' },
        { type: 'input', ch: '1' },
      );
      expect(rowCount(s, 'runnable')).toBe(2);
      s = reduce(s, key('filter_accept'));
      expect(activeScope(s)).toBe('frontier');
      expect(s.filter).toBe('ATL-1');
      s = reduce(s, key('back'));
      expect(s.filter).toBe('');
      expect(rowCount(s, 'runnable')).toBe(3);
    });

    it('should clear the filter on filter_cancel', () => {
      const s = run(loaded(), key('filter_start'), { type: 'input', ch: 'x' }, key('filter_cancel'));
      expect(s.filter).toBe('');
      expect(s.filtering).toBe(false);
    });
  });

  describe('detail', () => {
    it('should open on the selected item, follow the selection and close on back', () => {
      let s = run(loaded(), key('detail_open'));
      expect(s.detail?.ref).toBe('ATL-1');
      s = reduce(s, key('cursor_down'));
      expect(s.detail?.ref).toBe('ATL-2');
      s = reduce(s, { type: 'detail_loaded', ref: 'ATL-1', data: { part: 'error', message: 'late answer' } });
      expect(s.detail?.errors).toEqual([]);
      expect(reduce(s, key('back')).detailOpen).toBe(false);
    });

    it('should hide and show the pane with detail_toggle', () => {
      const s = run(loaded(), key('detail_open'), key('detail_toggle'));
      expect(s.paneHidden).toBe(true);
      expect(reduce(s, key('detail_toggle')).paneHidden).toBe(false);
    });
  });

  describe('charge', () => {
    const step = {
      position: 1,
      item_id: 'ATL-1',
      title: 'Item number 1',
      project: 'atlas',
      status: 'planned',
      priority: 'medium',
      adapter: 'conduct',
      lane: 'primary',
      next_step: null,
      entrypoint: '/svc conduct ATL-1',
      wait: false,
      wip_slot: true,
      claimed_by_session: false,
      unblocks_count: 0,
      downstream_depth: 0,
    };

    it('should open with "no" focused and treat enter as no', () => {
      let s = run(loaded(), key('charge_top'), { type: 'charge_confirm', step });
      expect(s.dialog).toMatchObject({ kind: 'charge', phase: 'confirm', focus: 'no', ref: 'ATL-1' });
      s = reduce(s, key('dialog_activate'));
      expect(s.dialog).toBeNull();
    });

    it('should run on y and on enter after moving the focus to yes', () => {
      const yes = run(loaded(), key('charge_top'), { type: 'charge_confirm', step }, key('dialog_yes'));
      expect(yes.dialog).toMatchObject({ kind: 'charge', phase: 'running' });
      const enter = run(
        loaded(),
        key('charge_top'),
        { type: 'charge_confirm', step },
        key('dialog_toggle'),
        key('dialog_activate'),
      );
      expect(enter.dialog).toMatchObject({ phase: 'running' });
    });

    it('should target the selected item with charge_selected', () => {
      const s = run(loaded(), key('cursor_down'), key('charge_selected'));
      expect(s.dialog).toMatchObject({ kind: 'charge', mode: 'selected', ref: 'ATL-2' });
    });

    it('should refuse in read-only mode', () => {
      const s = run(loaded(3, true), key('charge_top'));
      expect(s.dialog).toBeNull();
      expect(s.status?.text).toContain('read-only');
    });
  });

  describe('machines', () => {
    const withRequests = () =>
      run(loaded(), { type: 'machines_loaded', requests: [machineRequest(1), machineRequest(2)] }, key('tab_machines'));

    it('should ask for the code and accept it in any case, dash optional', () => {
      let s = run(withRequests(), key('cursor_down'), key('machine_approve'));
      expect(s.dialog).toMatchObject({ kind: 'code', action: 'approve', requestId: 'req-2' });
      for (const ch of 'bcdfghjk') s = reduce(s, { type: 'input', ch });
      s = reduce(s, key('code_submit'));
      expect(s.dialog).toMatchObject({ kind: 'code', busy: true, input: 'BCDF-GHJK' });
    });

    it('should warn on something that is not a code, without sending it', () => {
      let s = run(withRequests(), key('machine_approve'));
      for (const ch of 'abc') s = reduce(s, { type: 'input', ch });
      s = reduce(s, key('code_submit'));
      expect(s.dialog).toMatchObject({ kind: 'code', busy: false });
      expect((s.dialog as { warning: string }).warning).toContain('not a machine code');
    });

    it('should keep the dialog open with a warning when the daemon refuses the code', () => {
      let s = run(withRequests(), key('machine_approve'));
      for (const ch of 'BCDFGHJK') s = reduce(s, { type: 'input', ch });
      s = run(s, key('code_submit'), { type: 'code_result', ok: false, warning: 'belongs to another request' });
      expect(s.dialog).toMatchObject({ kind: 'code', busy: false, warning: 'belongs to another request' });
    });

    it('should confirm a deny with "no" focused before sending it, without asking for the code', () => {
      const s = run(withRequests(), key('machine_deny'));
      expect(s.dialog).toMatchObject({ kind: 'confirm-deny', code: null, focus: 'no', busy: false });
      expect(reduce(s, key('dialog_activate')).dialog).toBeNull();
      expect(reduce(s, key('dialog_yes')).dialog).toMatchObject({ kind: 'confirm-deny', busy: true });
    });

    it('should close the dialog when its request is no longer pending', () => {
      let s = run(withRequests(), key('machine_approve'));
      s = reduce(s, { type: 'machines_loaded', requests: [machineRequest(2)] });
      expect(s.dialog).toBeNull();
      expect(s.status?.text).toContain('no longer pending');
    });

    it('should refuse approve and deny in read-only mode', () => {
      let s = run(loaded(3, true), { type: 'machines_loaded', requests: [machineRequest(1)] }, key('tab_machines'));
      s = reduce(s, key('machine_approve'));
      expect(s.dialog).toBeNull();
      expect(s.status?.tone).toBe('warn');
    });
  });

  describe('events', () => {
    it('should keep the newest first, without duplicates, within the capacity', () => {
      let s = reduce(initialState(), { type: 'events_loaded', events: [event(3), event(1)] });
      s = reduce(s, { type: 'events_loaded', events: [event(10), event(3), event(2)] });
      expect(s.events.map((e) => e.id)).toEqual(['10', '3', '2', '1']);
      const many = Array.from({ length: EVENTS_CAPACITY + 50 }, (_, i) => event(i + 100));
      s = reduce(s, { type: 'events_loaded', events: many });
      expect(s.events).toHaveLength(EVENTS_CAPACITY);
      expect(s.events[0].id).toBe(String(EVENTS_CAPACITY + 149));
    });
  });

  describe('scopes', () => {
    it('should put a failure above everything', () => {
      const s = reduce(loaded(), { type: 'failure', failure: { kind: 'no_daemon', title: 't', lines: [] } });
      expect(activeScope(s)).toBe('failure');
    });

    it('should offer the demo import when the daemon has no project', () => {
      expect(activeScope(reduce(initialState(), { type: 'projects_loaded', projects: [] }))).toBe('empty');
    });

    it('should open and close the help overlay and filter it by typing', () => {
      let s = run(loaded(), key('help'), { type: 'input', ch: 'c' });
      expect(s.dialog).toEqual({ kind: 'help', filter: 'c', scroll: 0 });
      s = reduce(s, key('help_close'));
      expect(s.dialog).toBeNull();
    });
  });
});
