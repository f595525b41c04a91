import { EventStreamOptions, SvcApi, SvcHttpError } from '@app/client';

import { initialState } from '../state/state';
import { change, frontier, frontierWindow, item, machineRequest, NOW, project } from '../testing/fixtures';
import { Effects, PICKER_REFRESH_MS, REFETCH_INTERVAL_MS } from './effects';
import { Store } from './store';

// Effects against a fake SvcApi and a fake stream: what is fetched, when, and what reaches the state.

const flush = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

function setup() {
  // every stream opened, newest last
  const streams: { options: EventStreamOptions; closed: boolean }[] = [];
  const api = {
    baseUrl: 'http://daemon',
    dbClaim: jest.fn().mockRejectedValue(new SvcHttpError(404, { code: 'not_found', message: 'none' })),
    explain: jest.fn().mockRejectedValue(new SvcHttpError(404, { code: 'not_found', message: 'none' })),
    item: jest.fn().mockResolvedValue({ item_id: 'ATL-1', deployment_flow: null, deploy_stage: null, body: '' }),
    dependencies: jest.fn().mockResolvedValue({ item_id: 'ATL-1', dependencies: [] }),
    frontierList: jest.fn().mockResolvedValue({ dependency_edges: [] }),
    approveDeployment: jest.fn(),
    whoami: jest
      .fn()
      .mockResolvedValue({ actor_id: 1, name: 'admin', is_admin: true, via: 'api_token', machine_id: null }),
    projects: jest.fn().mockResolvedValue({ projects: [project('atlas')] }),
    frontier: jest.fn().mockResolvedValue({ notModified: false, body: frontier([item(1), item(2)]), etag: '"v1"' }),
    frontierSince: jest.fn().mockResolvedValue({ kind: 'not_modified' }),
    frontierWindow: jest
      .fn()
      .mockResolvedValue(frontierWindow('runnable', [item(1)], { totals: { runnable: 2, blocked: 0, frozen: 0 } })),
    claims: jest.fn().mockResolvedValue({ project: 'atlas', claims: [] }),
    machineAuthorizationRequests: jest.fn().mockResolvedValue({ requests: [machineRequest(1)] }),
    events: jest.fn().mockResolvedValue({ events: [] }),
    resolveMachineAuthorizationRequest: jest.fn(),
    denyMachineAuthorizationRequest: jest.fn().mockResolvedValue({ request_id: 'req-1', decision: 'denied' }),
    machines: jest.fn().mockResolvedValue({ machines: [] }),
    revokeMachine: jest.fn().mockResolvedValue({ machine_id: 'm-1', revoked: 1 }),
    actors: jest.fn().mockResolvedValue({ actors: [{ actor_id: 1, name: 'admin' }] }),
    history: jest.fn().mockResolvedValue({ changes: [], next_before: null }),
    itemHistory: jest.fn().mockResolvedValue({ item_id: 'ATL-1', changes: [], next_before: null }),
  };
  const store = new Store(initialState());
  const effects = new Effects(store, {
    api: api as unknown as SvcApi,
    token: 't',
    openStream: (options) => {
      const opened = { options, closed: false };
      streams.push(opened);
      return { close: () => (opened.closed = true), lastEventId: null };
    },
    harness: 'test',
    model: 'test',
    dispatchCommand: null,
    demoBacklogPath: null,
  });
  return { api, store, effects, streams, stream: () => streams[streams.length - 1].options };
}

describe(Effects.name, () => {
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] }));
  afterEach(() => jest.useRealTimers());

  const started = async () => {
    const s = setup();
    await s.effects.start();
    await jest.advanceTimersByTimeAsync(0);
    await flush();
    return s;
  };

  it('should load identity, projects, the frontier, claims, machine requests and events at start', async () => {
    const { api, store, effects } = await started();
    expect(store.state.actor).toBe('admin');
    expect(store.state.project).toBe('atlas');
    expect(store.state.frontier?.runnable).toHaveLength(2);
    expect(store.state.machines).toHaveLength(1);
    expect(api.frontier).toHaveBeenCalledTimes(1);
    effects.stop();
  });

  it('should follow a burst of change notices with one delta request in flight and one more after it', async () => {
    const { api, effects, stream } = await started();
    let answer!: (value: unknown) => void;
    api.frontierSince.mockImplementationOnce(() => new Promise((resolve) => (answer = resolve)));
    for (let i = 0; i < 50; i++) stream().onNotice({ type: 'item', id: null, data: { project: 'atlas' } });
    await flush();
    expect(api.frontierSince).toHaveBeenCalledTimes(1);
    expect(api.frontierSince).toHaveBeenLastCalledWith({ project: 'atlas' }, '"v1"');
    answer({ kind: 'not_modified' });
    await flush();
    expect(api.frontierSince).toHaveBeenCalledTimes(2);
    expect(api.frontier).toHaveBeenCalledTimes(1);
    effects.stop();
  });

  it('should apply a delta to the lists, keeping unchanged rows and the selection, and skip a notice of its ETag', async () => {
    const { api, store, effects, stream } = await started();
    const before = store.state.frontier!;
    store.dispatch({ type: 'key', action: 'cursor_down' });
    expect(store.state.cursors.runnable).toEqual({ index: 1, key: before.runnable[1].item_id });
    const added = item(7);
    const none = { drop: [], put: [] };
    api.frontierSince.mockResolvedValueOnce({
      kind: 'delta',
      etag: '"v2"',
      delta: {
        base: '"v1"',
        etag: '"v2"',
        wip_cap: 3,
        wip_active: 0,
        runnable: { drop: [], put: [[0, added]] },
        blocked: none,
        frozen: none,
        conduct_eligible: none,
      },
    });
    stream().onNotice({ type: 'frontier', id: null, data: { project: 'atlas', etag: '"v2"' } });
    await flush();
    const after = store.state.frontier!;
    expect(after.runnable).toEqual([added, before.runnable[0], before.runnable[1]]);
    expect(after.runnable[2]).toBe(before.runnable[1]);
    expect(store.state.cursors.runnable).toEqual({ index: 2, key: before.runnable[1].item_id });
    stream().onNotice({ type: 'frontier', id: null, data: { project: 'atlas', etag: '"v2"' } });
    await flush();
    expect(api.frontierSince).toHaveBeenCalledTimes(1);
    effects.stop();
  });

  it('should fetch nothing on change notices once the stream announces the ETag shown, and read again after a reconnection', async () => {
    const { api, effects, stream } = await started();
    stream().onStatus?.('open');
    stream().onNotice({ type: 'item', id: null, data: { project: 'atlas' } });
    await flush();
    expect(api.frontierSince).toHaveBeenCalledTimes(1);
    // the daemon names the ETag held: nothing to read, now or on the item notices that come before the next one
    stream().onNotice({ type: 'frontier', id: null, data: { project: 'atlas', etag: '"v1"' } });
    stream().onNotice({ type: 'item', id: null, data: { project: 'atlas' } });
    stream().onNotice({ type: 'dependency', id: null, data: { project: 'atlas' } });
    stream().onNotice({ type: 'event', id: '10', data: { name: 'ItemUpdated', project: 'atlas' } });
    stream().onNotice({ type: 'frontier', id: null, data: { project: 'atlas', etag: '"v1"' } });
    await flush();
    expect(api.frontierSince).toHaveBeenCalledTimes(1);
    // a new connection may be an older daemon's: its item notices are changes of unknown ETag again
    stream().onStatus?.('open');
    stream().onNotice({ type: 'item', id: null, data: { project: 'atlas' } });
    await flush();
    expect(api.frontierSince).toHaveBeenCalledTimes(2);
    expect(api.frontier).toHaveBeenCalledTimes(1);
    effects.stop();
  });

  it('should ask for the delta since the ETag it holds and keep the state when nothing changed', async () => {
    const { api, store, effects, stream } = await started();
    const before = store.state.frontier;
    stream().onNotice({ type: 'item', id: null, data: {} });
    await flush();
    expect(api.frontierSince).toHaveBeenLastCalledWith({ project: 'atlas' }, '"v1"');
    expect(store.state.frontier).toBe(before);
    effects.stop();
  });

  it('should not refetch the frontier on FrontierComputed, which every frontier read records', async () => {
    const { api, effects, stream } = await started();
    api.frontier.mockClear();
    api.events.mockClear();
    stream().onNotice({ type: 'event', id: '9', data: { name: 'FrontierComputed' } });
    await jest.advanceTimersByTimeAsync(REFETCH_INTERVAL_MS);
    await flush();
    expect(api.frontier).not.toHaveBeenCalled();
    expect(api.events).toHaveBeenCalledTimes(1);
    effects.stop();
  });

  it('should show reconnecting and refetch everything when the stream opens again', async () => {
    const { api, store, effects, stream } = await started();
    stream().onStatus!('open');
    expect(store.state.connection).toBe('live');
    api.frontierSince.mockClear();
    stream().onStatus!('reconnecting', { attempt: 1, retryInMs: 1000 });
    expect(store.state.connection).toBe('reconnecting');
    expect(store.state.frontier?.runnable).toHaveLength(2);
    stream().onStatus!('open');
    await jest.advanceTimersByTimeAsync(REFETCH_INTERVAL_MS);
    await flush();
    expect(store.state.connection).toBe('live');
    expect(api.frontierSince).toHaveBeenCalledTimes(1);
    effects.stop();
  });

  it("should ask the stream for the shown project's frontier notices only, and move it to the next project without a gap", async () => {
    const { api, store, effects, streams } = await started();
    const itemNotice = (project: string, ref: string) => ({
      type: 'item',
      id: null,
      data: { type: 'item', op: 'UPDATE', project, status: 'done', item_id: ref },
    });
    expect(streams).toHaveLength(1);
    expect(streams[0].options.frontier).toEqual(['atlas']);
    api.projects.mockResolvedValue({ projects: [project('atlas'), project('beta')] });
    streams[0].options.onStatus?.('open');
    store.dispatch({ type: 'projects_loaded', projects: [project('atlas'), project('beta')] });
    expect(streams).toHaveLength(1);
    store.dispatch({ type: 'key', action: 'project_switch' });
    store.dispatch({ type: 'key', action: 'cursor_down' });
    store.dispatch({ type: 'key', action: 'project_choose' });
    expect(store.state.project).toBe('beta');
    // a new connection for beta; the old one serves until it is open, and its retries are not the screen's
    expect(streams).toHaveLength(2);
    expect(streams[1].options.frontier).toEqual(['beta']);
    expect(streams[0].closed).toBe(false);
    streams[1].options.onStatus?.('reconnecting', { attempt: 1, retryInMs: 1000 });
    expect(store.state.connection).toBe('live');
    // a notice refetches the project's audit log (coalesced): counted after the refetch interval
    const historyReads = async () => {
      await jest.advanceTimersByTimeAsync(REFETCH_INTERVAL_MS);
      await flush();
      const n = api.history.mock.calls.length;
      api.history.mockClear();
      return n;
    };
    store.dispatch({ type: 'key', action: 'tab_events' });
    await historyReads();
    streams[0].options.onNotice(itemNotice('beta', 'BET-1'));
    expect(await historyReads()).toBe(1);
    expect(api.history).not.toHaveBeenCalled();
    streams[1].options.onStatus?.('open');
    expect(streams[0].closed).toBe(true);
    expect(store.state.connection).toBe('live');
    // from now on the new connection's notices only
    streams[0].options.onNotice(itemNotice('beta', 'BET-2'));
    expect(await historyReads()).toBe(0);
    streams[1].options.onNotice(itemNotice('beta', 'BET-3'));
    expect(await historyReads()).toBe(1);
    // a new connection: beta's change notices move its frontier until its first frontier notice
    api.frontierSince.mockClear();
    streams[1].options.onNotice(itemNotice('beta', 'BET-4'));
    await flush();
    expect(api.frontierSince).toHaveBeenCalledTimes(1);
    effects.stop();
    expect(streams[1].closed).toBe(true);
  });

  it('should show the no-daemon screen when nobody answers, and recover on retry', async () => {
    const s = setup();
    const { SvcConnectionError } = await import('@app/client');
    s.api.whoami.mockRejectedValueOnce(new SvcConnectionError('http://daemon', new Error('ECONNREFUSED')));
    await s.effects.start();
    await flush();
    expect(s.store.state.failure).toMatchObject({ kind: 'no_daemon', title: 'No svc daemon at http://daemon' });
    expect(s.store.state.failure!.lines[0]).toContain('svc up');
    await jest.advanceTimersByTimeAsync(2_000);
    await flush();
    expect(s.store.state.failure).toBeNull();
    expect(s.store.state.project).toBe('atlas');
    s.effects.stop();
  });

  it('should keep the code dialog open with a warning on a code of another request', async () => {
    const { api, store, effects } = await started();
    api.resolveMachineAuthorizationRequest.mockRejectedValueOnce(
      new SvcHttpError(409, { code: 'authorization_code_mismatch', message: 'the code belongs to another request' }),
    );
    store.dispatch({ type: 'key', action: 'tab_machines' });
    store.dispatch({ type: 'key', action: 'machine_approve' });
    for (const ch of 'BCDFGHJK') store.dispatch({ type: 'input', ch });
    store.dispatch({ type: 'key', action: 'code_submit' });
    await flush();
    expect(api.resolveMachineAuthorizationRequest).toHaveBeenCalledWith('req-1', {
      code: 'BCDF-GHJK',
      action: 'approve',
    });
    expect(store.state.dialog).toMatchObject({ kind: 'code', busy: false });
    expect((store.state.dialog as { warning: string }).warning).toContain('belongs to another request');
    effects.stop();
  });
  it('should approve an awaiting-approval halt through approveDeployment on yes, and show a 409 in words', async () => {
    const { api, store, effects } = await started();
    store.dispatch({ type: 'key', action: 'detail_open' });
    await jest.advanceTimersByTimeAsync(100);
    await flush();
    expect(api.dbClaim).toHaveBeenCalledWith('ATL-1');
    const halt = {
      kind: 'awaiting-approval' as const,
      stage: 'production',
      missing: [],
      since: new Date().toISOString(),
      summary: 'awaiting approval for production since 0s',
    };
    const pipeline = {
      flow: 'ship',
      stages: [],
      deploy_stage: 'awaiting-approval',
      run_id: 'r1',
      environment: 'production',
      current_stage: 'production',
      stage_index: 1,
      stage_count: 1,
      halt,
    };
    store.dispatch({ type: 'detail_loaded', ref: 'ATL-1', data: { part: 'pipeline', value: pipeline } });
    api.approveDeployment.mockResolvedValueOnce({ item_id: 'ATL-1', run_id: 'r1', stage: 'production' });
    store.dispatch({ type: 'key', action: 'deploy_approve' });
    expect(api.approveDeployment).not.toHaveBeenCalled();
    store.dispatch({ type: 'key', action: 'dialog_yes' });
    await flush();
    expect(api.approveDeployment).toHaveBeenCalledWith('ATL-1');
    expect(store.state.dialog).toBeNull();
    expect(store.state.status?.text).toContain('approved production for ATL-1 (run r1)');

    store.dispatch({ type: 'detail_loaded', ref: 'ATL-1', data: { part: 'pipeline', value: pipeline } });
    api.approveDeployment.mockRejectedValueOnce(
      new SvcHttpError(409, { code: 'already_approved', message: 'production of run r1 was already approved' }),
    );
    store.dispatch({ type: 'key', action: 'deploy_approve' });
    store.dispatch({ type: 'key', action: 'dialog_yes' });
    await flush();
    expect(store.state.status).toMatchObject({
      tone: 'error',
      text: 'approve ATL-1: already_approved: production of run r1 was already approved',
    });
    effects.stop();
  });

  // machines without a code, revoke, live item changes, the live project picker
  describe('screens', () => {
    it('should deny a request by its id alone after the confirmation, and revoke a connected machine', async () => {
      const { api, store, effects } = await started();
      store.dispatch({ type: 'key', action: 'tab_machines' });
      store.dispatch({ type: 'key', action: 'machine_deny' });
      store.dispatch({ type: 'key', action: 'dialog_yes' });
      await flush();
      expect(api.denyMachineAuthorizationRequest).toHaveBeenCalledWith('req-1');
      expect(api.resolveMachineAuthorizationRequest).not.toHaveBeenCalled();
      expect(store.state.dialog).toBeNull();
      expect(store.state.status?.text).toContain('denied box 1');
      api.machines.mockResolvedValue({
        machines: [
          {
            machine_id: 'm-1',
            machine_name: 'old laptop',
            actor: 'admin',
            org: 'default',
            token_prefix: 'svcm_x',
            created_at: '',
            last_used_at: null,
            expires_at: null,
            revoked_at: null,
          },
        ],
      });
      store.dispatch({ type: 'key', action: 'machines_view' });
      await flush();
      expect(store.state.connected).toHaveLength(1);
      store.dispatch({ type: 'key', action: 'machine_revoke' });
      store.dispatch({ type: 'key', action: 'dialog_yes' });
      await flush();
      expect(api.revokeMachine).toHaveBeenCalledWith('m-1');
      expect(store.state.status?.text).toContain('revoked 1 credential of old laptop');
      effects.stop();
    });

    it("should follow the project's audit log on the Events tab: a notice refetches it, coalesced", async () => {
      const { api, store, effects, stream } = await started();
      // read only while the Events tab shows it: not at start on the Runnable tab, nor on a notice there
      stream().onNotice({ type: 'item', id: null, data: { type: 'item', project: 'atlas', item_id: 'ATL-2' } });
      await jest.advanceTimersByTimeAsync(REFETCH_INTERVAL_MS);
      await flush();
      expect(api.history).not.toHaveBeenCalled();
      store.dispatch({ type: 'key', action: 'tab_events' });
      await jest.advanceTimersByTimeAsync(REFETCH_INTERVAL_MS);
      await flush();
      expect(api.history).toHaveBeenCalledWith({ project: 'atlas', limit: 200 });
      api.history.mockClear();
      api.history.mockResolvedValue({ changes: [change(7, { actor: 'mia' })], next_before: null });
      // a change from the command line: an item notice (no actor, no values); the row comes from the record
      for (let i = 0; i < 5; i++) {
        stream().onNotice({
          type: 'item',
          id: null,
          data: { type: 'item', op: 'UPDATE', project: 'atlas', status: 'done', item_id: 'ATL-2' },
        });
      }
      stream().onNotice({ type: 'dependency', id: null, data: { project: 'atlas' } });
      stream().onNotice({ type: 'machine_authorization', id: null, data: {} });
      await jest.advanceTimersByTimeAsync(REFETCH_INTERVAL_MS);
      await flush();
      expect(api.history).toHaveBeenCalledTimes(1);
      expect(store.state.changes.map((c) => c.actor)).toEqual(['mia']);
      // no row without an actor from the bare notice
      expect(store.state.events.some((e) => e.name === 'ItemChanged')).toBe(false);
      // a FrontierComputed read does not reread the record
      api.history.mockClear();
      stream().onNotice({ type: 'event', id: '9', data: { name: 'FrontierComputed' } });
      await jest.advanceTimersByTimeAsync(REFETCH_INTERVAL_MS);
      await flush();
      expect(api.history).not.toHaveBeenCalled();
      effects.stop();
    });

    it('should reload the open detail pane on an ItemCommented event of its item, not on one of another', async () => {
      const { api, store, effects, stream } = await started();
      store.dispatch({ type: 'key', action: 'detail_open' });
      await jest.advanceTimersByTimeAsync(100);
      await flush();
      api.item.mockClear();
      const commented = (ref: string) => ({
        type: 'event',
        id: '11',
        data: { type: 'event', id: 11, name: 'ItemCommented', project: 'atlas', item_ref: ref },
      });
      stream().onNotice(commented('ATL-9'));
      await jest.advanceTimersByTimeAsync(100);
      await flush();
      expect(api.item).not.toHaveBeenCalled();
      api.item.mockResolvedValue({
        item_id: 'ATL-1',
        deployment_flow: null,
        deploy_stage: null,
        body: '',
        comments: [
          { id: '4', item_id: 'ATL-1', author: 'mia', body: 'hello', created_at: new Date(NOW).toISOString() },
        ],
        comment_count: 1,
      });
      stream().onNotice(commented('ATL-1'));
      await jest.advanceTimersByTimeAsync(100);
      await flush();
      expect(api.item).toHaveBeenCalledWith('ATL-1');
      expect(store.state.detail?.item?.comments?.map((c) => c.body)).toEqual(['hello']);
      effects.stop();
    });

    it("should load the detail pane's last changes, and h's pages of the whole history, older ones as it scrolls", async () => {
      const { api, store, effects, stream } = await started();
      api.itemHistory.mockResolvedValue({ item_id: 'ATL-1', changes: [change(3), change(2)], next_before: null });
      store.dispatch({ type: 'key', action: 'detail_open' });
      await jest.advanceTimersByTimeAsync(100);
      await flush();
      expect(api.itemHistory).toHaveBeenCalledWith('ATL-1', { limit: 6 });
      expect(store.state.detail?.history?.map((c) => c.id)).toEqual(['3', '2']);
      const page = (from: number, n: number) => Array.from({ length: n }, (_, i) => change(from - i));
      api.itemHistory.mockClear();
      api.itemHistory.mockResolvedValueOnce({ item_id: 'ATL-1', changes: page(100, 50), next_before: '51' });
      api.itemHistory.mockResolvedValueOnce({ item_id: 'ATL-1', changes: page(50, 10), next_before: null });
      store.dispatch({ type: 'key', action: 'history_open' });
      await flush();
      expect(api.itemHistory).toHaveBeenCalledWith('ATL-1', { limit: 50 });
      expect(store.state.dialog).toMatchObject({ kind: 'history', ref: 'ATL-1', loading: false, next: '51' });
      // to the end of what is loaded: the older page
      store.dispatch({ type: 'key', action: 'cursor_bottom' });
      await flush();
      expect(api.itemHistory).toHaveBeenLastCalledWith('ATL-1', { limit: 50, before: '51' });
      const d = store.state.dialog;
      expect(d?.kind === 'history' && d.changes?.length).toBe(60);
      expect(d).toMatchObject({ next: null, loading: false });
      // nothing older: no more requests
      store.dispatch({ type: 'key', action: 'cursor_bottom' });
      await flush();
      expect(api.itemHistory).toHaveBeenCalledTimes(2);
      // the item changes while its list is open: the newest page again, on top, the older pages kept
      api.itemHistory.mockImplementation(async (_ref: string, q: { limit: number }) =>
        q.limit === 50
          ? { item_id: 'ATL-1', changes: [change(1), ...page(100, 49)], next_before: '52' }
          : { item_id: 'ATL-1', changes: [change(1)], next_before: null },
      );
      const notice = {
        type: 'item',
        id: null,
        data: { type: 'item', op: 'UPDATE', project: 'atlas', item_id: 'ATL-1' },
      };
      stream().onNotice(notice);
      stream().onNotice(notice);
      await jest.advanceTimersByTimeAsync(REFETCH_INTERVAL_MS);
      await flush();
      // (the detail pane under it reloads its last changes too: limit 6)
      const pages = api.itemHistory.mock.calls.filter((c) => (c[1] as { limit: number }).limit === 50);
      expect(pages).toHaveLength(3);
      expect(pages[2]).toEqual(['ATL-1', { limit: 50 }]);
      const after = store.state.dialog;
      expect(after?.kind === 'history' && after.changes?.map((c) => c.id).slice(0, 2)).toEqual(['1', '100']);
      expect(after?.kind === 'history' && after.changes?.length).toBe(61);
      expect(after).toMatchObject({ next: null });
      effects.stop();
    });

    it('should re-read the projects while the picker is open, and stop when it closes', async () => {
      const { api, store, effects } = await started();
      store.dispatch({ type: 'key', action: 'project_switch' });
      api.projects.mockResolvedValue({ projects: [project('atlas'), project('new')] });
      await jest.advanceTimersByTimeAsync(REFETCH_INTERVAL_MS);
      await flush();
      expect(store.state.projects?.map((p) => p.id)).toEqual(['atlas', 'new']);
      store.dispatch({ type: 'key', action: 'help_close' });
      api.projects.mockClear();
      await jest.advanceTimersByTimeAsync(PICKER_REFRESH_MS * 2);
      await flush();
      expect(api.projects).not.toHaveBeenCalled();
      effects.stop();
    });

    it('should say in a dialog why a blocked item was not charged, not the decision code', async () => {
      const { api, store, effects } = await started();
      api.explain.mockResolvedValue({
        item_id: 'ATL-2',
        bucket: 'blocked',
        status: 'planned',
        summary: [],
        operator_block: null,
        unsatisfied: [
          { blocker: 'ATL-1', state: 'planned', reason: 'ATL-1 is in planned; needs done', need: 'ATL-1 reaches done' },
        ],
        unblock_roots: ['ATL-1'],
        stuck: [],
      });
      (effects as unknown as { config: { charge: unknown } }).config.charge = () =>
        Promise.resolve({
          decision: { dispatched: false, reason: 'requested_item_unavailable', item_id: 'ATL-2' },
          session_id: null,
        });
      store.dispatch({ type: 'key', action: 'charge_selected' });
      await flush();
      expect(store.state.dialog).toMatchObject({ kind: 'view', title: 'Cannot charge ATL-2' });
      const text = (store.state.dialog as { lines: string[] }).lines.join('\n');
      expect(text).toContain('would satisfy it: ATL-1 reaches done');
      expect(text).not.toContain('requested_item_unavailable');
      effects.stop();
    });

    it('should answer the charge with a y pressed while the item was looked up', async () => {
      const { store, effects } = await started();
      let answer: boolean | null = null;
      let reachConfirm: () => void = () => undefined;
      const reached = new Promise<void>((r) => (reachConfirm = r));
      (effects as unknown as { config: { charge: unknown } }).config.charge = async (
        _api: unknown,
        _o: unknown,
        io: { confirm: (s: unknown) => Promise<boolean> },
      ) => {
        await reached;
        answer = await io.confirm({ item_id: 'ATL-1' });
        return { decision: { dispatched: false, reason: 'operator_cancelled', item_id: 'ATL-1' }, session_id: null };
      };
      store.dispatch({ type: 'key', action: 'charge_top' });
      store.dispatch({ type: 'key', action: 'dialog_yes' });
      reachConfirm();
      await flush();
      expect(answer).toBe(true);
      effects.stop();
    });

    it("should heartbeat the TUI's session while it holds claims, so they last while the TUI is open", async () => {
      const { api, store, effects } = await started();
      const heartbeat = jest.fn().mockResolvedValue({ session_id: 4, renewed_claims: 1 });
      (api as unknown as { heartbeat: jest.Mock }).heartbeat = heartbeat;
      (effects as unknown as { config: { charge: unknown } }).config.charge = () =>
        Promise.resolve({
          decision: { dispatched: false, reason: 'operator_cancelled', item_id: 'ATL-1' },
          session_id: 4,
        });
      store.dispatch({ type: 'key', action: 'charge_top' });
      await flush();
      expect(store.state.session).toBe(4);
      expect(heartbeat).not.toHaveBeenCalled();
      await jest.advanceTimersByTimeAsync(5 * 60_000);
      expect(heartbeat).toHaveBeenCalledWith(4);
      await jest.advanceTimersByTimeAsync(5 * 60_000);
      expect(heartbeat).toHaveBeenCalledTimes(2);
      effects.stop();
      await jest.advanceTimersByTimeAsync(10 * 60_000);
      expect(heartbeat).toHaveBeenCalledTimes(2);
    });
  });
});
