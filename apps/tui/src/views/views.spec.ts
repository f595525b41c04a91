import { App } from '../app';
import type { Action } from '../state/actions';
import { initialState, State } from '../state/state';
import { event, frontier, item, machineRequest, NOW, project, testScreen, TestScreen } from '../testing/fixtures';
import type { ExplainResponse } from '../wire';
import { footerLine, headerLine, statusLine, tabsLine } from './chrome';
import { detailLines } from './detail';
import { makeTheme } from './theme';

const SIZES: [number, number][] = [
  [120, 36],
  [80, 24],
];

const explainBlocked: ExplainResponse = {
  item_id: 'ATL-8',
  project: 'atlas',
  status: 'implementing',
  bucket: 'blocked',
  position: 1,
  adapter: 'wait',
  summary: ['ATL-8 waits on ATL-5 (status:done; it is planned)'],
  operator_block: null,
  unsatisfied: [
    {
      blocker: 'ATL-5',
      satisfaction: 'status:done',
      form: 'status',
      state: 'planned',
      blocker_bucket: 'blocked',
      reason: 'ATL-5 is in planned; needs done',
      need: 'ATL-5 reaches done',
    },
  ],
  critical_path: ['ATL-8', 'ATL-5', 'ATL-3'],
  unblock_roots: ['ATL-3'],
  stuck: [],
  ranking: null,
  conduct: null,
  wip_cap: 4,
  wip_active: 1,
};

function backlog(): Action[] {
  const runnable = [
    item(3, { title: 'Audit log', priority: 'high', adapter: 'conduct', unblocks_count: 2, downstream_depth: 2 }),
    item(6, { title: 'Price book: per-call tiers', priority: 'high', adapter: 'usher', status: 'release' }),
    item(9, {
      title: 'Usage dashboard widget',
      priority: 'low',
      created_at: new Date(NOW - 2 * 86_400_000).toISOString(),
    }),
  ];
  const blocked = [
    item(8, {
      title: 'Invoice PDF rendering',
      status: 'implementing',
      adapter: 'wait',
      blocked_by: ['ATL-5'],
      blocked_reasons: ['ATL-5 is in planned; needs done'],
    }),
    item(5, { title: 'Tax rules', blocked_by: ['ATL-3'], blocked_reasons: ['ATL-3 is in planned; needs done'] }),
  ];
  const frozen = [item(14, { title: 'Legacy import (frozen)' })];
  return [
    { type: 'actor', name: 'admin' },
    { type: 'projects_loaded', projects: [project('atlas'), project('beta', 'Beta project')] },
    {
      type: 'frontier_loaded',
      project: 'atlas',
      frontier: frontier(runnable, blocked, frozen, { conduct_eligible: [runnable[0]], wip_active: 1, wip_cap: 4 }),
    },
    {
      type: 'claims_loaded',
      project: 'atlas',
      claims: [
        {
          item_id: 'ATL-6',
          project: 'atlas',
          session_id: 7,
          harness: 'claude-code',
          model: 'opus',
          lane: 'deep',
          actor: 'alice',
          adapter: 'usher',
          wip_slot: false,
          claimed_at: new Date(NOW - 60_000).toISOString(),
          expires_at: new Date(NOW + 1_740_000).toISOString(),
        },
      ],
    },
    { type: 'machines_loaded', requests: [machineRequest(1, { machine_name: 'build box' })] },
    { type: 'events_loaded', events: [event(2), event(1, { name: 'FrontierComputed', payload: {} })] },
    { type: 'connection', state: 'live' },
  ];
}

describe('views', () => {
  let t: TestScreen;
  let app: App;

  const start = (columns: number, rows: number, state: Partial<State> = {}) => {
    t = testScreen(columns, rows);
    app = new App({
      screen: t.screen,
      theme: makeTheme(),
      state: { ...initialState({ now: NOW, url: 'http://127.0.0.1:7700' }), ...state },
      effects: null,
      onQuit: () => undefined,
    });
    backlog().forEach((a) => app.store.dispatch(a));
    app.renderNow();
  };
  const dispatch = (...actions: Action[]) => {
    actions.forEach((a) => app.store.dispatch(a));
    app.renderNow();
  };
  // key bytes go through blessed's real key parser
  const press = async (...keys: string[]) => {
    for (const k of keys) {
      t.input.write(k);
      await new Promise((r) => setImmediate(r));
    }
    app.renderNow();
  };

  afterEach(() => {
    app?.stop();
    t?.destroy();
  });

  describe.each(SIZES)('at %ix%i', (columns, rows) => {
    it('should show the header, the tabs, the runnable rows and the footer hints', () => {
      start(columns, rows);
      const text = t.text();
      const lines = t.lines();
      expect(lines[0]).toContain('svc atlas');
      expect(lines[0]).toContain('● live');
      expect(lines[0]).toContain('! 1 machine request');
      expect(text).toMatch(/\[1 Runna(ble)? 3\]/);
      expect(text).toContain('ATL-3');
      expect(text).toContain('Audit log');
      expect(text).toContain('high');
      expect(text).toContain('2d');
      expect(text).toMatch(/ATL-3\s+\*/);
      expect(lines[rows - 1]).toContain('c charge top');
      expect(lines[rows - 1]).toContain('/ filter');
      expect(lines).toHaveLength(rows);
      if (columns >= 120) {
        expect(lines[0]).toContain('runnable 3 · blocked 2 · frozen 1');
        expect(lines[0]).toContain('WIP 1/4');
        // the holder by the person's name, then the session (not "#7 claude-code")
        expect(text).toContain('alice #7');
      }
    });

    it('should open a blocked item and show its reasons and critical path', async () => {
      start(columns, rows);
      await press('2', '\r');
      dispatch({ type: 'detail_loaded', ref: 'ATL-8', data: { part: 'explain', value: explainBlocked } });
      let text = t.text();
      expect(text).toContain('Blocked by');
      expect(text).toContain('ATL-5 is in planned; needs done');
      // a small pane scrolls with J
      for (let i = 0; i < 4 && !text.includes('start first: ATL-3'); i++) {
        await press('J');
        text = t.text();
      }
      // the same direction as `svc frontier explain`: the item waits on what follows it
      expect(text).toContain('critical path: ATL-8 ← ATL-5 ← ATL-3');
      expect(text).toContain('start first: ATL-3');
      const detailTop = t.lines().findIndex((l) => l.includes('Detail'));
      const firstRow = t.lines().findIndex((l) => l.includes('ATL-8'));
      if (columns >= 120) expect(detailTop).toBeLessThanOrEqual(firstRow);
      else expect(detailTop).toBeGreaterThan(firstRow);
    });

    it('should show the deployment pipeline and its halt, and approve only after a dialog with No focused', async () => {
      start(columns, rows);
      await press('j', '\r');
      dispatch({
        type: 'detail_loaded',
        ref: 'ATL-6',
        data: {
          part: 'pipeline',
          value: {
            flow: 'ship',
            stages: [
              { name: 'build', approval: false, capabilities: [] },
              { name: 'production', approval: true, capabilities: [] },
            ],
            deploy_stage: 'awaiting-approval',
            run_id: 'run-1',
            environment: 'production',
            current_stage: 'production',
            stage_index: 2,
            stage_count: 2,
            halt: {
              kind: 'awaiting-approval',
              stage: 'production',
              missing: [],
              since: new Date(NOW - 3 * 3_600_000).toISOString(),
              summary: 'awaiting approval for production since 3h',
            },
          },
        },
      });
      let text = t.text();
      for (let i = 0; i < 6 && !text.includes('HALTED'); i++) {
        await press('J');
        text = t.text();
      }
      expect(text).toContain('Deployment pipeline');
      expect(text).toContain('HALTED: awaiting approval for production');
      expect(detailLines(app.store.state, 120, makeTheme({ color: false })).join('\n')).toContain(
        'HALTED: awaiting approval for production since 3h',
      );
      await press('A');
      text = t.text();
      expect(text).toContain('Approve deployment stage');
      expect(text).toContain('production stage');
      expect(text).toContain('>[ No ]<');
      // enter presses the focused button: No, the run stays halted
      await press('\r');
      expect(t.text()).not.toContain('Approve deployment stage');
      expect(app.store.state.dialog).toBeNull();
      await press('A', 'y');
      expect(app.store.state.dialog).toMatchObject({ kind: 'confirm-approve', ref: 'ATL-6', busy: true });
    });

    it('should refuse the approve key on an item without an awaiting-approval halt, with a reason', async () => {
      start(columns, rows);
      await press('\r');
      dispatch({ type: 'detail_loaded', ref: 'ATL-3', data: { part: 'pipeline', value: null } });
      await press('A');
      expect(app.store.state.dialog).toBeNull();
      expect(t.text()).toContain('nothing to approve for ATL-3');
    });

    it('should filter as the user types and show the match count', async () => {
      start(columns, rows);
      await press('/', 'p', 'r', 'i');
      const text = t.text();
      expect(text).toContain('Price book');
      expect(text).not.toContain('Audit log');
      expect(text).toContain('/pri');
      expect(text).toContain('(1 match');
      await press('\x1b');
      expect(t.text()).toContain('Audit log');
    });

    it('should name the item, adapter and entrypoint in the charge dialog with "no" focused', async () => {
      start(columns, rows);
      await press('c');
      dispatch({
        type: 'charge_confirm',
        step: {
          position: 1,
          item_id: 'ATL-3',
          title: 'Audit log',
          project: 'atlas',
          status: 'planned',
          priority: 'high',
          adapter: 'conduct',
          lane: 'primary',
          next_step: null,
          entrypoint: '/svc conduct ATL-3',
          wait: false,
          wip_slot: true,
          claimed_by_session: false,
          unblocks_count: 2,
          downstream_depth: 2,
        },
      });
      const text = t.text();
      expect(text).toContain('Dispatch ATL-3 "Audit log"?');
      expect(text).toMatch(/adapter\s+conduct/);
      expect(text).toContain('/svc conduct ATL-3');
      expect(text).toContain('>[ No ]<');
      await press('n');
      expect(t.text()).not.toContain('>[ No ]<');
    });

    it('should list machine requests with a live countdown', () => {
      start(columns, rows);
      dispatch({ type: 'key', action: 'tab_machines' });
      expect(t.text()).toContain('build box');
      expect(t.text()).toContain('9:30');
      dispatch({ type: 'tick', now: NOW + 10_000 });
      expect(t.text()).toContain('9:20');
      expect(t.lines()[rows - 1]).toContain('a approve');
    });

    it('should ask for the code and show the warning for a code of another request', async () => {
      start(columns, rows);
      await press('4', 'a', 'B', 'C', 'D', 'F', '-', 'G', 'H', 'J', 'K');
      expect(t.text()).toContain('code: BCDF-GHJK');
      await press('\r');
      dispatch({ type: 'code_result', ok: false, warning: 'that code belongs to another request' });
      expect(t.text()).toContain('! that code belongs to another request');
    });

    it('should show the events newest first', async () => {
      start(columns, rows);
      dispatch({ type: 'key', action: 'tab_events' });
      // FrontierComputed reads are hidden until f shows them
      expect(t.text()).not.toContain('FrontierComputed');
      await press('f');
      const lines = t.lines();
      const decision = lines.findIndex((l) => l.includes('ChargeDecisionMade'));
      const computed = lines.findIndex((l) => l.includes('FrontierComputed'));
      expect(decision).toBeGreaterThan(0);
      expect(decision).toBeLessThan(computed);
      expect(lines[decision]).toContain('operator_cancelled');
    });

    it('should open the help overlay from the keymap and filter it', async () => {
      start(columns, rows);
      await press('?');
      expect(t.text()).toContain('Keys');
      expect(t.text()).toContain('charge the top runnable item');
      await press('d', 'e', 'n', 'y');
      expect(t.text()).toContain('deny the selected request');
      expect(t.text()).not.toContain('charge the top runnable item');
      await press('\x1b');
      expect(t.text()).not.toContain('deny the selected request');
    });

    it('should show a screen, not a stack, when no daemon answers', () => {
      start(columns, rows);
      dispatch(
        { type: 'connection', state: 'offline' },
        {
          type: 'failure',
          failure: {
            kind: 'no_daemon',
            title: 'No svc daemon at http://127.0.0.1:7700',
            lines: ['Start one with `svc up`'],
          },
        },
      );
      expect(t.text()).toContain('No svc daemon at http://127.0.0.1:7700');
      expect(t.text()).toContain('Start one with `svc up`');
      expect(t.text()).toContain('✕ offline');
      expect(t.text()).not.toContain('ATL-3');
    });

    it('should offer the demo import on a daemon without projects', () => {
      start(columns, rows);
      dispatch({ type: 'projects_loaded', projects: [] });
      expect(t.text()).toContain('No project on this daemon yet');
      expect(t.text()).toContain('Press i to import the bundled demo backlog');
      expect(t.lines()[rows - 1]).toContain('i import demo');
    });
  });

  it('should move the detail pane below the list when resized narrower than 120 columns', async () => {
    start(120, 36);
    await press('\r');
    const side = t.lines().find((l) => l.includes('ATL-3') && l.includes('Detail'));
    expect(side ?? t.lines()[2]).toContain('Detail');
    t.resize(80, 24);
    app.renderNow();
    const lines = t.lines();
    expect(lines).toHaveLength(24);
    const detailTop = lines.findIndex((l) => l.includes('Detail'));
    expect(detailTop).toBeGreaterThan(lines.findIndex((l) => l.includes('Audit log')));
    expect(lines[0]).toContain('svc atlas');
  });

  it('should render only the visible rows of a 100k-row bucket and reach the last with G', async () => {
    const rows = Array.from({ length: 100_000 }, (_, i) => item(i + 1));
    start(120, 36);
    dispatch({ type: 'frontier_loaded', project: 'atlas', frontier: frontier(rows) });
    expect(t.text()).toContain('ATL-1 ');
    await press('G');
    const text = t.text();
    expect(text).toContain('ATL-100000');
    expect(text).toContain('100000');
    expect(text).not.toContain('ATL-1 ');
  });

  it('should copy the selected ref with OSC 52', async () => {
    start(120, 36);
    let written = '';
    t.output.on('data', (chunk: Buffer) => (written += chunk.toString()));
    await press('j', 'y');
    expect(written).toContain(`\x1b]52;c;${Buffer.from('ATL-6').toString('base64')}\x07`);
    expect(t.text()).toContain('copied ATL-6');
  });

  it('should hide and refuse charge in read-only mode', async () => {
    start(120, 36, { readOnly: true });
    expect(t.lines()[0]).toContain('[read-only]');
    expect(t.lines()[35]).not.toContain('charge');
    await press('c');
    expect(t.text()).not.toContain('Dispatch');
    expect(t.text()).toContain('warning: read-only: charge is disabled');
  });

  it('should list every edge in and out with its satisfaction and state, and say each reason once', async () => {
    start(120, 36);
    await press('2', '\r');
    dispatch(
      { type: 'detail_loaded', ref: 'ATL-8', data: { part: 'explain', value: explainBlocked } },
      {
        type: 'detail_loaded',
        ref: 'ATL-8',
        data: {
          part: 'edges',
          edges: [
            {
              side: 'in',
              gate_point: 'activation',
              other: 'ATL-5',
              other_title: 'Tax rules',
              state: 'planned',
              satisfaction: 'status:done',
              satisfied: false,
              reason: 'ATL-5 is in planned; needs done',
              need: 'ATL-5 reaches done',
              abandoned: false,
              environment: null,
            },
            {
              side: 'in',
              gate_point: 'closure',
              other: 'ATL-2',
              other_title: 'Schema',
              state: 'done',
              satisfaction: 'status:done',
              satisfied: true,
              reason: 'ATL-2 is done',
              need: null,
              abandoned: false,
              environment: null,
            },
            {
              side: 'out',
              gate_point: 'integration',
              other: 'ATL-11',
              other_title: 'Invoices',
              state: 'planned',
              satisfaction: 'status:implementing',
              satisfied: true,
              reason: '',
              need: null,
              abandoned: false,
              environment: null,
            },
          ],
        },
      },
    );
    const lines = detailLines(app.store.state, 120, makeTheme({ color: false }));
    const text = lines.join('\n');
    expect(text).toContain('Depends on (edges in: 2)');
    expect(text).toContain('[activation] ATL-5 (planned) status:done · ✗ unsatisfied');
    expect(text).toContain('need ATL-5 reaches done');
    expect(text).toContain('[closure] ATL-2 (done) status:done · ✓ satisfied');
    expect(text).toContain('Blocks (edges out: 1)');
    expect(text).toContain('[integration] ATL-11 (planned) status:implementing · ✓ satisfied');
    // the reason shows under Blocked by only; the critical path once, as the structured line
    expect(text.split('ATL-5 is in planned; needs done')).toHaveLength(2);
    expect(text.match(/critical path/g)).toHaveLength(1);
    // a narrow pane wraps an edge instead of cutting it, and keeps its mark (the glyph and the word)
    const narrow = detailLines(app.store.state, 40, makeTheme());
    expect(narrow.every((l) => l.replace(/\{[^}]*\}/g, '').length <= 40)).toBe(true);
    const edge = narrow.slice(narrow.findIndex((l) => l.includes('[activation] ATL-5')));
    expect(edge.slice(0, 2).join(' ')).toContain('{red-fg}✗ unsatisfied{/red-fg}');
  });

  it('should show the mutation profile of a DB claim as its fields, not as JSON', async () => {
    start(120, 36);
    await press('2', '\r');
    dispatch({
      type: 'detail_loaded',
      ref: 'ATL-8',
      data: {
        part: 'dbClaim',
        value: {
          item_id: 'ATL-8',
          claim: {} as never,
          reviewed: false,
          reviewed_reason: 'bare_default',
          malformed: false,
          malformed_halves: [],
          db_mutation_profile: '{"state":"none"}',
          db_compatibility_attestation: null,
        },
      },
    });
    const text = detailLines(app.store.state, 120, makeTheme({ color: false })).join('\n');
    expect(text).toContain('not reviewed (bare_default)');
    expect(text).toContain('mutation profile: state none');
  });

  it('should show the outcome of an action while a filter is kept, with the filter shortened in front', async () => {
    start(120, 36);
    await press('/', 'p', 'r', 'i', '\r');
    expect(t.text()).toContain('/pri  (1 match)');
    dispatch({ type: 'status', text: 'approved production for ATL-6 (run r1)', tone: 'ok' });
    const line = t.lines().find((l) => l.includes('approved production')) ?? '';
    expect(line).toContain('/pri (1)  ok: approved production for ATL-6 (run r1)');
  });

  it('should say which capability a needs-capability halt misses, and not offer to approve it', async () => {
    start(120, 36);
    await press('\r');
    dispatch({
      type: 'detail_loaded',
      ref: 'ATL-3',
      data: {
        part: 'pipeline',
        value: {
          flow: 'ship',
          stages: [
            { name: 'build', approval: false, capabilities: [] },
            { name: 'staging', approval: false, capabilities: ['docker'] },
          ],
          deploy_stage: 'needs-capability',
          run_id: 'run-2',
          environment: 'staging',
          current_stage: 'staging',
          stage_index: 2,
          stage_count: 2,
          halt: {
            kind: 'needs-capability',
            stage: 'staging',
            missing: ['docker'],
            since: new Date(NOW - 120_000).toISOString(),
            summary: 'needs capability docker for staging since 2m',
          },
        },
      },
    });
    const text = detailLines(app.store.state, 120, makeTheme({ color: false })).join('\n');
    expect(text).toContain('stages: ✓ build › ▶ staging (needs docker)');
    expect(text).toContain('HALTED: needs capability docker for staging since 2m');
    expect(text).toContain('deploy_stage: needs-capability');
    await press('A');
    expect(app.store.state.dialog).toBeNull();
    expect(t.text()).toContain('nothing to approve for ATL-3: its run needs capability docker for staging');
  });

  it('should keep the approve key off in read-only mode', async () => {
    start(120, 36, { readOnly: true });
    await press('\r', 'A');
    expect(app.store.state.dialog).toBeNull();
    expect(t.text()).toContain('read-only: approve is disabled');
  });

  it('should switch projects with P', async () => {
    start(120, 36);
    await press('P');
    expect(t.text()).toContain('Projects');
    expect(t.text()).toContain('Beta project');
    await press('j', '\r');
    expect(t.lines()[0]).toContain('svc beta');
  });

  it('should keep every signal without colour (NO_COLOR)', () => {
    start(120, 36);
    const state = app.store.state;
    const plain = makeTheme({ color: false });
    for (const line of [
      headerLine(state, 120, plain),
      tabsLine(state, 120),
      statusLine(state, 120, plain),
      footerLine(state, 120, plain),
      ...detailLines(state, 60, plain),
    ]) {
      expect(line).not.toMatch(/-fg\}/);
    }
    expect(headerLine(state, 120, plain)).toContain('● live');
    expect(tabsLine(state, 120)).toContain('[1 Runnable 3]');
  });
});
