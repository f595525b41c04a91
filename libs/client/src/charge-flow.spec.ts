import type {
  ChargeDecisionDetail,
  DispatchResponse,
  ExplainResponse,
  ScheduleResponse,
  ScheduleStep,
} from '@app/contracts';

import type { SvcApi } from './api';
import { ChargeFlowIO, renderDispatchCommand, runCharge, shellQuote } from './charge-flow';
import { SvcHttpError } from './http-client';

const step = (item_id: string, more: Partial<ScheduleStep> = {}): ScheduleStep => ({
  position: 1,
  item_id,
  title: `title of ${item_id}`,
  project: 'alpha',
  status: 'planned',
  priority: 'high',
  adapter: 'conduct',
  lane: 'primary',
  next_step: { stage: 'planned', adapter: 'conduct', entrypoint: `/svc conduct ${item_id}` },
  entrypoint: `/svc conduct ${item_id}`,
  wait: false,
  wip_slot: true,
  claimed_by_session: false,
  unblocks_count: 0,
  downstream_depth: 0,
  ...more,
});

const schedule = (steps: ScheduleStep[], more: Partial<ScheduleResponse> = {}): ScheduleResponse => ({
  session_id: null,
  lane: null,
  scope: ['alpha'],
  steps,
  projects: [],
  runnable_elsewhere: null,
  ...more,
});

const explain = (item_id: string, project: string, bucket: ExplainResponse['bucket']): ExplainResponse =>
  ({
    item_id,
    project,
    status: 'planned',
    bucket,
    adapter: 'conduct',
    summary: [`${item_id} is ${bucket}`],
  }) as ExplainResponse;

const httpError = (status: number, code: string, extra: Record<string, unknown> = {}) =>
  new SvcHttpError(status, { code, message: `${code} happened`, ...extra });

// A fake daemon: records every call; the schedule answers from a queue (the last one repeats).
function fakeApi(options: {
  schedules?: ScheduleResponse[];
  explain?: Record<string, ExplainResponse>;
  dispatch?: (body: { session_id: number; item_id: string }) => DispatchResponse;
  projects?: { id: string; public_item_prefix: string }[];
}) {
  const calls: { fn: string; arg?: unknown }[] = [];
  const decisions: (ChargeDecisionDetail & { session_id?: number })[] = [];
  const schedules = options.schedules ?? [schedule([])];
  let read = 0;
  const api = {
    schedule: (q: unknown) => {
      calls.push({ fn: 'schedule', arg: q });
      return Promise.resolve(schedules[Math.min(read++, schedules.length - 1)]);
    },
    explain: (ref: string) => {
      calls.push({ fn: 'explain', arg: ref });
      const found = options.explain?.[ref];
      return found ? Promise.resolve(found) : Promise.reject(httpError(404, 'item_not_found'));
    },
    projects: () => Promise.resolve({ projects: options.projects ?? [] }),
    recordDecision: (body: ChargeDecisionDetail & { session_id?: number }) => {
      calls.push({ fn: 'recordDecision', arg: body });
      decisions.push(body);
      return Promise.resolve({ event_id: String(decisions.length), detail: body });
    },
    registerSession: (body: unknown) => {
      calls.push({ fn: 'registerSession', arg: body });
      return Promise.resolve({ session_id: 77, lane: 'primary' });
    },
    dispatch: (body: { session_id: number; item_id: string }) => {
      calls.push({ fn: 'dispatch', arg: body });
      try {
        return Promise.resolve(options.dispatch!(body));
      } catch (err) {
        return Promise.reject(err as Error);
      }
    },
  };
  return { api: api as unknown as SvcApi, calls, decisions, fns: () => calls.map((c) => c.fn) };
}

const dispatched = (item_id: string, session_id: number): DispatchResponse => ({
  dispatched: true,
  item_id,
  project: 'alpha',
  adapter: 'conduct',
  entrypoint: `/svc conduct ${item_id}`,
  session_id,
  wip_slot: true,
  claim: { claimed_at: '2026-01-01T00:00:00Z', expires_at: '2026-01-01T01:00:00Z' },
  decision: { item_id, adapter: 'conduct', dispatched: true, reason: 'dispatched', project: 'alpha' },
  event_id: '9',
});

function fakeIO(answer: boolean | Error = true) {
  const reports: string[] = [];
  const confirmed: string[] = [];
  const ran: DispatchResponse[] = [];
  const io: ChargeFlowIO = {
    confirm: (target) => {
      confirmed.push(target.item_id);
      return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
    },
    report: (m) => reports.push(m),
    runDispatcher: (r) => {
      ran.push(r);
      return Promise.resolve(0);
    },
  };
  return { io, reports, confirmed, ran };
}

const base = { harness: 'test', model: 'fake' };

describe(runCharge.name, () => {
  it('should take the top step the session does not hold yet with skipOwnClaims (the MCP claim tool)', async () => {
    const steps = [step('AL-1', { claimed_by_session: true }), step('AL-2', { position: 2 })];
    const daemon = fakeApi({ schedules: [schedule(steps)], dispatch: (b) => dispatched(b.item_id, b.session_id) });
    const { io } = fakeIO();
    const taken = await runCharge(daemon.api, { ...base, project: 'alpha', session: 5, skipOwnClaims: true }, io);
    expect(taken.dispatch?.item_id).toBe('AL-2');
    // svc charge keeps taking the top step (re-claiming its own)
    const again = await runCharge(daemon.api, { ...base, project: 'alpha', session: 5 }, fakeIO().io);
    expect(again.dispatch?.item_id).toBe('AL-1');
  });

  it('should ask the daemon for a named item the schedule does not offer with claimUnoffered (the MCP claim tool)', async () => {
    const daemon = fakeApi({
      explain: { 'AL-2': explain('AL-2', 'alpha', 'runnable') },
      schedules: [schedule([step('AL-1', { claimed_by_session: true })])],
      dispatch: () => {
        throw httpError(409, 'wip_cap_reached', { item_id: 'AL-2', wip_cap: 1 });
      },
    });
    const { io, confirmed } = fakeIO();
    const refused = await runCharge(daemon.api, { ...base, item: 'AL-2', session: 5, claimUnoffered: true }, io);
    expect(daemon.fns()).toEqual(['explain', 'schedule', 'dispatch', 'recordDecision']);
    expect(confirmed).toEqual([]);
    // the decision is the one svc charge records; the daemon's refusal says why
    expect(refused.decision).toMatchObject({ reason: 'requested_item_unavailable', target_bucket: 'blocked' });
    expect(refused.extra.error).toMatchObject({ code: 'wip_cap_reached', wip_cap: 1 });
    // without the option (svc charge) the flow answers locally and never dispatches
    const local = fakeApi({
      explain: { 'AL-2': explain('AL-2', 'alpha', 'runnable') },
      schedules: [schedule([])],
    });
    await runCharge(local.api, { ...base, item: 'AL-2', session: 5 }, fakeIO().io);
    expect(local.fns()).toEqual(['explain', 'schedule', 'recordDecision']);
  });

  it('should record dry_run with the named project and register no session', async () => {
    const daemon = fakeApi({ schedules: [schedule([step('AL-1')])] });
    const { io } = fakeIO();
    const outcome = await runCharge(daemon.api, { ...base, project: 'alpha', dryRun: true }, io);
    expect(outcome.decision).toEqual({
      item_id: 'AL-1',
      adapter: 'conduct',
      dispatched: false,
      reason: 'dry_run',
      project: 'alpha',
    });
    expect(outcome.session_id).toBeNull();
    expect(daemon.fns()).toEqual(['schedule', 'recordDecision']);
  });

  it('should record operator_cancelled and register no session when the operator declines', async () => {
    const daemon = fakeApi({ schedules: [schedule([step('AL-1')])] });
    const { io, confirmed } = fakeIO(false);
    const outcome = await runCharge(daemon.api, { ...base, project: 'alpha' }, io);
    expect(confirmed).toEqual(['AL-1']);
    expect(outcome.decision).toMatchObject({ reason: 'operator_cancelled', item_id: 'AL-1', project: 'alpha' });
    expect(daemon.fns()).not.toContain('registerSession');
    expect(daemon.decisions[0].session_id).toBeUndefined();
  });

  it('should register the session only after the confirmation, then dispatch and run the dispatcher', async () => {
    const daemon = fakeApi({
      schedules: [schedule([step('AL-1'), step('AL-2')])],
      dispatch: (b) => dispatched(b.item_id, b.session_id),
    });
    const { io, ran } = fakeIO(true);
    const outcome = await runCharge(daemon.api, { ...base, project: 'alpha', wipCap: 5 }, io);
    expect(daemon.fns()).toEqual(['schedule', 'registerSession', 'dispatch']);
    expect(daemon.calls[1].arg).toEqual({ harness: 'test', model: 'fake', project: 'alpha', label: 'svc charge' });
    expect(daemon.calls[2].arg).toEqual({ session_id: 77, item_id: 'AL-1', wip_cap: 5 });
    expect(ran.map((r) => r.item_id)).toEqual(['AL-1']);
    expect(outcome).toMatchObject({
      decision: { item_id: 'AL-1', dispatched: true, reason: 'dispatched', project: 'alpha' },
      session_id: 77,
      dispatcher_exit: 0,
    });
  });

  it('should use the given session and never register one', async () => {
    const daemon = fakeApi({
      schedules: [schedule([step('AL-1')])],
      dispatch: (b) => dispatched(b.item_id, b.session_id),
    });
    const outcome = await runCharge(daemon.api, { ...base, project: 'alpha', session: 5 }, fakeIO().io);
    expect(daemon.fns()).toEqual(['schedule', 'dispatch']);
    expect(daemon.calls[0].arg).toMatchObject({ session_id: 5, project: 'alpha' });
    expect(outcome.session_id).toBe(5);
  });

  it('should record nothing when the confirmation throws (no answer possible)', async () => {
    const daemon = fakeApi({ schedules: [schedule([step('AL-1')])] });
    await expect(runCharge(daemon.api, { ...base }, fakeIO(new Error('no tty')).io)).rejects.toThrow('no tty');
    expect(daemon.fns()).toEqual(['schedule']);
  });

  it('should refuse an item of another project than the named one, recording the named project', async () => {
    const daemon = fakeApi({ explain: { 'RC-1': explain('RC-1', 'race', 'runnable') } });
    const { io, reports } = fakeIO();
    const outcome = await runCharge(daemon.api, { ...base, project: 'alpha', item: 'rc-1' }, io);
    expect(outcome.decision).toEqual({
      item_id: 'RC-1',
      adapter: null,
      dispatched: false,
      reason: 'requested_item_unavailable',
      project: 'alpha',
      target_bucket: 'not_found',
    });
    expect(reports.join('\n')).toContain('RC-1 belongs to project race, not alpha');
    expect(daemon.fns()).toEqual(['explain', 'recordDecision']);
  });

  it('should record the project of a missing item from the named project, else from its prefix', async () => {
    const named = fakeApi({});
    const a = await runCharge(named.api, { ...base, project: 'alpha', item: 'AL-999' }, fakeIO().io);
    expect(a.decision).toMatchObject({ project: 'alpha', target_bucket: 'not_found', item_id: 'AL-999' });
    const prefixed = fakeApi({ projects: [{ id: 'race', public_item_prefix: 'RC' }] });
    const b = await runCharge(prefixed.api, { ...base, item: 'RC-999' }, fakeIO().io);
    expect(b.decision).toMatchObject({ project: 'race', reason: 'requested_item_unavailable' });
  });

  it('should take the next item when another session wins the race, asking again', async () => {
    const daemon = fakeApi({
      schedules: [schedule([step('AL-1'), step('AL-2')]), schedule([step('AL-2')])],
      dispatch: (b) => {
        if (b.item_id === 'AL-1') throw httpError(409, 'item_already_claimed');
        return dispatched(b.item_id, b.session_id);
      },
    });
    const { io, confirmed } = fakeIO(true);
    const outcome = await runCharge(daemon.api, { ...base, project: 'alpha' }, io);
    expect(confirmed).toEqual(['AL-1', 'AL-2']);
    expect(outcome.decision).toMatchObject({ item_id: 'AL-2', dispatched: true });
    expect(daemon.calls.filter((c) => c.fn === 'registerSession')).toHaveLength(1);
    expect(daemon.calls[3].arg).toMatchObject({ session_id: 77 });
  });

  it('should report a refusal the daemon recorded without recording a second decision', async () => {
    const daemon = fakeApi({
      schedules: [schedule([step('AL-1')])],
      dispatch: () => {
        throw httpError(409, 'wait_adapter_encountered', { decision_recorded: true });
      },
    });
    const outcome = await runCharge(daemon.api, { ...base, project: 'alpha' }, fakeIO().io);
    expect(outcome.error).toEqual({ code: 'wait_adapter_encountered', message: 'wait_adapter_encountered happened' });
    expect(outcome.decision).toMatchObject({ reason: 'wait_adapter_encountered', dispatched: false });
    expect(daemon.fns()).not.toContain('recordDecision');
  });

  it('should refuse wait steps and steps without an entrypoint before asking', async () => {
    const wait = fakeApi({ schedules: [schedule([step('AL-1', { wait: true, adapter: 'wait' })])] });
    const w = fakeIO();
    expect((await runCharge(wait.api, { ...base }, w.io)).decision.reason).toBe('wait_adapter_encountered');
    const none = fakeApi({ schedules: [schedule([step('AL-1', { entrypoint: null })])] });
    const n = fakeIO();
    expect((await runCharge(none.api, { ...base }, n.io)).decision.reason).toBe('entrypoint_unavailable');
    expect([...w.confirmed, ...n.confirmed]).toEqual([]);
  });

  it('should record no_runnable_items with the named project and say where work is', async () => {
    const daemon = fakeApi({
      schedules: [schedule([], { scope: ['empty'], runnable_elsewhere: [{ project: 'alpha', runnable: 2 }] })],
    });
    const { io, reports } = fakeIO();
    const outcome = await runCharge(daemon.api, { ...base, project: 'empty' }, io);
    expect(outcome.decision).toEqual({
      item_id: null,
      adapter: null,
      dispatched: false,
      reason: 'no_runnable_items',
      project: 'empty',
    });
    expect(reports[0]).toContain('runnable elsewhere: alpha (2)');
  });
});

describe(renderDispatchCommand.name, () => {
  it('should shell-quote every substituted value', () => {
    expect(
      renderDispatchCommand('run {entrypoint} for {ref} in {project} as {adapter}', {
        entrypoint: '/svc conduct AB-1',
        ref: 'AB-1',
        project: 'ab',
        adapter: 'conduct',
      }),
    ).toBe("run '/svc conduct AB-1' for 'AB-1' in 'ab' as 'conduct'");
  });

  it('should neutralise quotes in a value', () => {
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
  });
});
