import { App } from '../app';
import { dispatchView, unavailableView } from '../effects/effects';
import type { Action } from '../state/actions';
import { initialState } from '../state/state';
import {
  detailEdge,
  event,
  frontier,
  item,
  machineRequest,
  NOW,
  project,
  testScreen,
  TestScreen,
} from '../testing/fixtures';
import type { ExplainResponse } from '../wire';

import { makeTheme } from './theme';

// The screens rendered by blessed over streams at 80x24 and 120x36.

const LONG_NAME = 'build server in the basement rack number two (left)';
const MACHINE_ID = '7f3c2a10-9b8e-4d6f-a1b2-c3d4e5f60718';

const explain = (ref: string, summary: string[]): ExplainResponse =>
  ({
    item_id: ref,
    project: 'atlas',
    status: 'planned',
    bucket: 'blocked',
    summary,
    operator_block: null,
    unsatisfied: [],
    critical_path: [],
    unblock_roots: [],
    stuck: [],
  }) as unknown as ExplainResponse;

describe('issue 26 screens (render)', () => {
  let t: TestScreen;
  let app: App;

  const start = (columns: number, rows: number) => {
    t = testScreen(columns, rows);
    app = new App({
      screen: t.screen,
      theme: makeTheme(),
      state: initialState({ now: NOW, url: 'http://127.0.0.1:7700' }),
      effects: null,
      onQuit: () => undefined,
    });
    const actions: Action[] = [
      { type: 'projects_loaded', projects: [project('atlas')] },
      { type: 'frontier_loaded', project: 'atlas', frontier: frontier([item(1), item(2), item(3)]) },
      {
        type: 'claims_loaded',
        project: 'atlas',
        claims: [
          {
            item_id: 'ATL-1',
            project: 'atlas',
            session_id: 12,
            harness: 'claude-code',
            model: 'claude-opus-4-with-a-long-model-name',
            lane: 'deep',
            actor: 'alice',
            adapter: 'conduct',
            wip_slot: true,
            claimed_at: new Date(NOW - 180_000).toISOString(),
            expires_at: '2026-01-10T12:30:00.000Z',
          },
        ],
      },
      { type: 'machines_loaded', requests: [machineRequest(1, { machine_name: LONG_NAME, machine_id: MACHINE_ID })] },
      { type: 'connection', state: 'live' },
    ];
    actions.forEach((a) => app.store.dispatch(a));
    app.renderNow();
  };
  const dispatch = (...actions: Action[]) => {
    actions.forEach((a) => app.store.dispatch(a));
    app.renderNow();
  };
  const press = async (...keys: string[]) => {
    for (const k of keys) {
      t.input.write(k);
      await new Promise((r) => setImmediate(r));
    }
    app.renderNow();
  };
  // the screen's text with the borders and the line breaks of wrapping taken out
  const flat = () =>
    t
      .lines()
      .map((l) => l.replace(/[│┌┐└┘─]/g, ' ').trim())
      .join(' ')
      .replace(/\s+/g, ' ');

  afterEach(() => {
    app?.stop();
    t?.destroy();
  });

  describe.each([
    [80, 24],
    [120, 36],
  ])('at %ix%i', (columns, rows) => {
    it('should wrap the claim line, never cut it, and name the holder as the CLI does', async () => {
      start(columns, rows);
      await press('\r');
      dispatch({ type: 'detail_loaded', ref: 'ATL-1', data: { part: 'explain', value: explain('ATL-1', []) } });
      expect(flat()).toContain(
        '@ claimed by alice #12 (claude-code, claude-opus-4-with-a-long-model-name, lane deep) 3m ago, lapses in 30m (12:30:00)',
      );
    });

    it('should keep the edge selected with H / L in view, however far down the pane it is', async () => {
      start(columns, rows);
      await press('\r');
      dispatch({ type: 'detail_loaded', ref: 'ATL-1', data: { part: 'explain', value: explain('ATL-1', []) } });
      const edges = Array.from({ length: 40 }, (_, i) =>
        detailEdge('out', `ATL-${100 + i}`, { other_title: `waiting item ${100 + i}` }),
      );
      dispatch({ type: 'detail_loaded', ref: 'ATL-1', data: { part: 'edges', edges } });
      expect(t.text()).not.toContain('ATL-139');
      // H from no selection takes the last edge: the pane scrolls to it
      await press('H');
      expect(t.lines().find((l) => l.includes('ATL-139'))).toMatch(/›.*ATL-139/);
      // L wraps round to the first, at the top of the edges
      await press('L');
      expect(t.lines().find((l) => l.includes('ATL-100'))).toMatch(/›.*ATL-100/);
      expect(t.text()).not.toContain('ATL-139');
    });

    it('should keep the previous detail on j until the next one arrives, never a blank "loading explain…"', async () => {
      start(columns, rows);
      await press('\r');
      dispatch({
        type: 'detail_loaded',
        ref: 'ATL-1',
        data: { part: 'explain', value: explain('ATL-1', ['first item summary']) },
      });
      expect(t.text()).toContain('first item summary');
      await press('j');
      expect(t.text()).not.toContain('loading explain');
      expect(t.text()).toContain('first item summary');
      expect(t.text()).toContain('loading ATL-2');
      dispatch({
        type: 'detail_loaded',
        ref: 'ATL-2',
        data: { part: 'explain', value: explain('ATL-2', ['second item summary']) },
      });
      expect(t.text()).toContain('second item summary');
      expect(t.text()).not.toContain('first item summary');
    });

    it('should show the full machine name and id in the detail view and the approve dialog', async () => {
      start(columns, rows);
      await press('4', '\r');
      expect(flat()).toContain(LONG_NAME);
      expect(flat()).toContain(MACHINE_ID);
      await press('\x1b', 'a');
      expect(flat()).toContain(`Approve the request of "${LONG_NAME}"`);
      expect(flat()).toContain(`machine id: ${MACHINE_ID}`);
      // deny asks first, without a code
      await press('\x1b', 'd');
      expect(flat()).toContain(`Deny "${LONG_NAME}"? The machine will not be connected.`);
      expect(t.text()).toContain('>[ No ]<');
      expect(t.text()).not.toContain('code:');
    });

    it('should show an actor column and the events filter', async () => {
      start(columns, rows);
      dispatch(
        {
          type: 'events_loaded',
          events: [event(3, { actor_id: 2, item_id: 'ATL-3' }), event(2, { actor_id: 1, item_id: 'ATL-2' })],
        },
        { type: 'actors_loaded', actors: [{ actor_id: 2, name: 'mia' }] as never },
      );
      await press('5');
      expect(t.lines().find((l) => l.includes('ATL-3'))).toMatch(/ATL-3\s+mia\s/);
      expect(t.lines().find((l) => l.includes('ATL-2'))).toMatch(/ATL-2\s+#1\s/);
      await press('/', 'm', 'i', 'a');
      expect(t.text()).toContain('/mia');
      expect(t.text()).not.toMatch(/ATL-2\s/);
      await press('\r', '\r');
      expect(t.text()).toContain('"reason": "operator_cancelled"');
    });
  });

  it('should say in words why a blocked item cannot be charged, and what a dispatch did', () => {
    const ex = {
      ...explain('ATL-10', ['ATL-10 waits on ATL-5']),
      unsatisfied: [
        { blocker: 'ATL-5', state: 'planned', reason: 'ATL-5 is in planned; needs done', need: 'ATL-5 reaches done' },
      ],
      unblock_roots: ['ATL-3'],
    } as unknown as ExplainResponse;
    const why = unavailableView('ATL-10', ex, [], undefined).lines.join('\n');
    expect(why).toContain('ATL-10 is blocked (status planned); it was not dispatched.');
    expect(why).toContain('- ATL-5 (planned): ATL-5 is in planned; needs done');
    expect(why).toContain('would satisfy it: ATL-5 reaches done');
    expect(why).toContain('start first: ATL-3');
    expect(why).not.toContain('requested_item_unavailable');
    const done = dispatchView(
      {
        dispatched: true,
        item_id: 'ATL-1',
        project: 'atlas',
        adapter: 'conduct',
        entrypoint: '/conduct ATL-1',
        session_id: 4,
        wip_slot: true,
        claim: { claimed_at: '2026-01-10T12:00:00.000Z', expires_at: '2026-01-10T12:30:00.000Z' },
        decision: {} as never,
        event_id: '77',
      },
      0,
      { dispatchCommand: null },
      Date.parse('2026-01-10T12:02:00.000Z'),
    ).lines.join('\n');
    expect(done).toContain('session     #4');
    expect(done).toContain('entrypoint  /conduct ATL-1');
    // relative and local time, never the raw ISO string
    expect(done).toMatch(/claimed {5}2m ago \(\d\d:\d\d:00\)/);
    expect(done).toMatch(/claim ends {2}in 28m \(\d\d:\d\d:00\)/);
    expect(done).not.toContain('2026-01-10T');
    expect(done).not.toContain('MCP client'); // not an svc entrypoint
  });

  // The dispatch dialog says how to run an svc entrypoint: the svc MCP server's prompt of that name.
  it('should say how to run an svc entrypoint in an MCP client', () => {
    const lines = dispatchView(
      {
        dispatched: true,
        item_id: 'ATL-6',
        project: 'atlas',
        adapter: 'usher',
        entrypoint: '/svc usher ATL-6',
        session_id: 4,
        wip_slot: true,
        claim: { claimed_at: '2026-01-10T12:00:00.000Z', expires_at: '2026-01-10T12:30:00.000Z' },
        decision: {} as never,
        event_id: '78',
      },
      0,
      { dispatchCommand: null },
    ).lines.join('\n');
    expect(lines).toContain('Run it in an MCP client connected to svc (svc mcp; svc agent-setup writes the entry)');
    expect(lines).toContain('the svc prompt usher with ref ATL-6:');
    expect(lines).toContain('Claude Code  /mcp__svc__usher ATL-6');
    expect(lines).toContain('Gemini CLI   /usher ATL-6');
  });
});
