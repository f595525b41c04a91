import { EventStreamOptions, SvcApi, SvcHttpError } from '@app/client';

import { initialState } from '../state/state';
import { frontier, item, machineRequest, project } from '../testing/fixtures';
import { Effects, REFETCH_INTERVAL_MS } from './effects';
import { Store } from './store';

// Effects against a fake SvcApi and a fake stream: what is fetched, when, and what reaches the state.

const flush = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

function setup() {
  let stream: EventStreamOptions | null = null;
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
    frontierFirstItems: jest.fn().mockResolvedValue(frontier([item(1)])),
    claims: jest.fn().mockResolvedValue({ project: 'atlas', claims: [] }),
    machineAuthorizationRequests: jest.fn().mockResolvedValue({ requests: [machineRequest(1)] }),
    events: jest.fn().mockResolvedValue({ events: [] }),
    resolveMachineAuthorizationRequest: jest.fn(),
  };
  const store = new Store(initialState());
  const effects = new Effects(store, {
    api: api as unknown as SvcApi,
    token: 't',
    openStream: (options) => {
      stream = options;
      return { close: () => undefined, lastEventId: null };
    },
    harness: 'test',
    model: 'test',
    dispatchCommand: null,
    demoBacklogPath: null,
  });
  return { api, store, effects, stream: () => stream! };
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
});
