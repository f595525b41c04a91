import { event, frontier, item, machineRequest, NOW, project } from '../testing/fixtures';
import type { ConnectedMachineWire, ExplainResponse } from '../wire';
import type { Action } from './actions';
import { reduce } from './reduce';
import { activeScope, rowCount, selectedEvent, visibleEvents } from './selectors';
import { initialState, State } from './state';

// The screens: Esc order, the detail cache, charge keys while loading, machines, events, the project picker.

const key = (action: Extract<Action, { type: 'key' }>['action']): Action => ({ type: 'key', action });
const run = (state: State, ...actions: Action[]) => actions.reduce(reduce, state);
const input = (text: string): Action[] => [...text].map((ch) => ({ type: 'input', ch }));

function loaded(readOnly = false): State {
  return run(
    initialState({ now: NOW, readOnly }),
    { type: 'projects_loaded', projects: [project('atlas'), project('beta', 'Beta')] },
    {
      type: 'frontier_loaded',
      project: 'atlas',
      frontier: frontier([item(1, { title: 'Invoice' }), item(2), item(3)], [item(9)]),
    },
  );
}

const explain = (ref: string): ExplainResponse =>
  ({ item_id: ref, summary: [`${ref} is runnable`], critical_path: [], unsatisfied: [] }) as unknown as ExplainResponse;

const connected = (n: number, overrides: Partial<ConnectedMachineWire> = {}): ConnectedMachineWire => ({
  machine_id: `11111111-2222-4333-8444-55555555555${n}`,
  machine_name: `laptop ${n}`,
  actor: 'admin',
  org: 'default',
  token_prefix: `svcm_${n}abc`,
  created_at: new Date(NOW - 3_600_000).toISOString(),
  last_used_at: null,
  expires_at: null,
  revoked_at: null,
  ...overrides,
});

describe('issue 26 screens (reducer)', () => {
  describe('esc', () => {
    it('should clear a visible filter before closing a hidden pane', () => {
      let s = run(loaded(), key('detail_open'), key('detail_toggle'), key('filter_start'), ...input('inv'));
      s = run(s, key('filter_accept'));
      expect(s.paneHidden).toBe(true);
      s = reduce(s, key('back'));
      expect(s.filter).toBe('');
      expect(s.detailOpen).toBe(true);
      expect(reduce(s, key('back')).detailOpen).toBe(false);
    });

    it('should close a shown pane before the filter', () => {
      let s = run(loaded(), key('filter_start'), ...input('inv'), key('filter_accept'), key('detail_open'));
      s = reduce(s, key('back'));
      expect(s.detailOpen).toBe(false);
      expect(s.filter).toBe('inv');
      expect(reduce(s, key('back')).filter).toBe('');
    });
  });

  describe('detail', () => {
    it('should show a detail seen a moment ago at once when the selection comes back to it', () => {
      let s = run(loaded(), key('detail_open'), {
        type: 'detail_loaded',
        ref: 'ATL-1',
        data: { part: 'explain', value: explain('ATL-1') },
      });
      s = reduce(s, key('cursor_down'));
      expect(s.detail).toMatchObject({ ref: 'ATL-2', explain: null });
      s = reduce(s, key('cursor_up'));
      expect(s.detail?.ref).toBe('ATL-1');
      expect(s.detail?.explain?.summary).toEqual(['ATL-1 is runnable']);
    });
  });

  describe('charge', () => {
    it('should keep a y pressed while the item is looked up and dispatch once it is known', () => {
      let s = run(loaded(), key('charge_top'), key('dialog_yes'));
      expect(s.dialog).toMatchObject({ kind: 'charge', phase: 'loading', queued: 'yes' });
      s = reduce(s, { type: 'charge_confirm', step: { item_id: 'ATL-1' } as never });
      expect(s.dialog).toMatchObject({ kind: 'charge', phase: 'running', ref: 'ATL-1' });
    });

    it('should cancel at once on n or esc while loading', () => {
      expect(run(loaded(), key('charge_top'), key('dialog_no')).dialog).toBeNull();
    });

    it('should open a read-only view for the outcome and close it with esc', () => {
      const s = run(loaded(), { type: 'view_open', title: 'Dispatched ATL-1', lines: ['session #4'] });
      expect(activeScope(s)).toBe('view');
      expect(reduce(s, key('view_close')).dialog).toBeNull();
    });
  });

  describe('machines', () => {
    const withMachines = (readOnly = false) =>
      run(
        loaded(readOnly),
        key('tab_machines'),
        {
          type: 'machines_loaded',
          requests: [machineRequest(1, { machine_name: 'a very long machine name that the list cuts off' })],
        },
        { type: 'connected_loaded', machines: [connected(1), connected(2)] },
      );

    it('should show the full name and id of a pending request on enter', () => {
      const s = reduce(withMachines(), key('machine_open'));
      expect(s.dialog).toMatchObject({ kind: 'view' });
      const lines = (s.dialog as { lines: string[] }).lines.join('\n');
      expect(lines).toContain('a very long machine name that the list cuts off');
      expect(lines).toContain('00000000-0000-4000-8000-000000000001');
    });

    it('should switch to connected machines and ask before revoking one, No focused', () => {
      let s = reduce(withMachines(), key('machines_view'));
      expect(rowCount(s, 'machines')).toBe(2);
      s = run(s, key('cursor_down'), key('machine_revoke'));
      expect(s.dialog).toMatchObject({
        kind: 'confirm-revoke',
        machineId: connected(2).machine_id,
        focus: 'no',
        busy: false,
      });
      expect(reduce(s, key('dialog_activate')).dialog).toBeNull();
      s = reduce(s, key('dialog_yes'));
      expect(s.dialog).toMatchObject({ kind: 'confirm-revoke', busy: true });
      expect(reduce(s, { type: 'revoke_done' }).dialog).toBeNull();
    });

    it('should refuse revoke on a pending request and in read-only mode', () => {
      expect(reduce(withMachines(), key('machine_revoke')).status?.text).toContain('m shows them');
      const ro = run(withMachines(true), key('machines_view'), key('machine_revoke'));
      expect(ro.dialog).toBeNull();
      expect(ro.status?.text).toContain('read-only');
    });
  });

  describe('events', () => {
    const withEvents = () =>
      run(
        loaded(),
        key('tab_events'),
        {
          type: 'events_loaded',
          events: [
            event(5, { name: 'FrontierComputed', payload: {}, actor_id: 1 }),
            event(4, { item_id: 'ATL-4', actor_id: 2 }),
            event(3, { name: 'FrontierComputed', payload: {}, actor_id: 1 }),
            event(2, { item_id: 'ATL-2', actor_id: 1 }),
          ],
        },
        {
          type: 'actors_loaded',
          actors: [
            { actor_id: 1, name: 'admin' },
            { actor_id: 2, name: 'mia' },
          ] as never,
        },
      );

    it('should hide FrontierComputed reads until f shows them', () => {
      const s = withEvents();
      expect(visibleEvents(s).map((e) => e.id)).toEqual(['4', '2']);
      expect(visibleEvents(reduce(s, key('events_reads'))).map((e) => e.id)).toEqual(['5', '4', '3', '2']);
    });

    it('should filter by the actor name as typed, and esc clears it', () => {
      let s = run(withEvents(), key('filter_start'), ...input('mia'));
      expect(visibleEvents(s).map((e) => e.id)).toEqual(['4']);
      s = run(s, key('filter_accept'), key('back'));
      expect(visibleEvents(s)).toHaveLength(2);
    });

    it('should show the payload of the selected event on enter', () => {
      const s = run(withEvents(), key('cursor_down'), key('event_open'));
      expect(selectedEvent(s)?.id).toBe('2');
      const text = (s.dialog as { lines: string[] }).lines.join('\n');
      expect(text).toContain('actor    admin');
      expect(text).toContain('"reason": "operator_cancelled"');
    });

    it('should place a live item notice by its time among recorded events', () => {
      const s = reduce(withEvents(), {
        type: 'events_loaded',
        events: [event(0, { id: 'live-1', name: 'ItemChanged', created_at: new Date(NOW).toISOString() })],
      });
      expect(s.events[0].id).toBe('live-1');
    });
  });

  describe('project picker', () => {
    it('should filter as typed, move with g/G and keep the selected project when the list changes', () => {
      let s = run(loaded(), key('project_switch'), key('cursor_bottom'));
      expect(s.dialog).toMatchObject({ kind: 'projects', index: 1, key: 'beta' });
      s = reduce(s, key('cursor_top'));
      expect(s.dialog).toMatchObject({ index: 0, key: 'atlas' });
      s = reduce(s, key('cursor_bottom'));
      // a new project listed before it: the selection follows beta
      s = reduce(s, { type: 'projects_loaded', projects: [project('aaa', 'New'), project('atlas'), project('beta')] });
      expect(s.dialog).toMatchObject({ index: 2, key: 'beta' });
      s = run(s, key('filter_start'), ...input('new'));
      expect(activeScope(s)).toBe('filter');
      expect(s.dialog).toMatchObject({ index: 0, key: 'aaa', filter: 'new' });
      s = run(s, key('filter_accept'), key('project_choose'));
      expect(s.project).toBe('aaa');
    });
  });
});
