import type {
  ChargeDecisionDetail,
  ChargeReason,
  DispatchResponse,
  ExplainResponse,
  ScheduleResponse,
  ScheduleStep,
} from '@app/contracts';

import { isHttpError, SvcApi } from './api';

// `svc charge` and the TUI both run this, so both pick, confirm, claim, dispatch and record ChargeDecisionMade
// identically; the front end supplies the conversation.

export interface ChargeFlowOptions {
  project?: string | null;
  item?: string | null;
  dryRun?: boolean;
  wipCap?: number;
  // an existing executor session; null registers one, lazily, right before the first dispatch
  session?: number | null;
  harness: string;
  model: string;
  dispatchCommand?: string | null;
  workspaceProject?: string | null;
  sessionLabel?: string;
  // without an item: take the top step the session does not hold yet (the MCP claim tool: a second claim is a
  // second item, not the first one again)
  skipOwnClaims?: boolean;
  // Ask the daemon to claim an item not offered to this session, without confirm(), so its refusal says why
  // (wip_cap_reached, lane_mismatch, …) rather than a local "not offered".
  claimUnoffered?: boolean;
}

export interface ChargeFlowIO {
  // true dispatches; false records operator_cancelled. Throwing aborts the flow and records nothing.
  confirm(target: ScheduleStep): Promise<boolean>;
  report(message: string): void;
  showSchedule?(schedule: ScheduleResponse): void;
  runDispatcher(result: DispatchResponse): Promise<number>;
}

export interface ChargeOutcome {
  decision: ChargeDecisionDetail;
  session_id: number | null;
  dispatch: DispatchResponse | null;
  dispatcher_exit: number | null;
  // the daemon refused the dispatch and recorded the decision itself
  error?: { code: string; message: string };
  extra: Record<string, unknown>;
}

export class ChargeFlowError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export const MAX_DISPATCH_ATTEMPTS = 25;
// Another session won the race for the item, the cap filled, or a new session landed in another lane:
// the flow takes the next item offered to the session (or, with an explicit item, gives up on it).
const RETRY_CODES = ['item_already_claimed', 'wip_cap_reached', 'lane_mismatch'];

export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export function renderDispatchCommand(template: string, values: Record<string, string>): string {
  return template.replace(/\{(entrypoint|ref|project|adapter)\}/g, (_m, key: string) => shellQuote(values[key] ?? ''));
}

export function dispatchValues(result: DispatchResponse): Record<string, string> {
  return { entrypoint: result.entrypoint, ref: result.item_id, project: result.project, adapter: result.adapter };
}

async function projectOfRef(api: SvcApi, ref: string): Promise<string | null> {
  const prefix = /^([A-Za-z][A-Za-z0-9]*)-[0-9]+$/.exec(ref)?.[1]?.toUpperCase();
  if (!prefix) return null;
  try {
    const { projects } = await api.projects();
    return projects.find((p) => p.public_item_prefix.toUpperCase() === prefix)?.id ?? null;
  } catch {
    return null;
  }
}

export async function runCharge(api: SvcApi, options: ChargeFlowOptions, io: ChargeFlowIO): Promise<ChargeOutcome> {
  const item = options.item ? options.item.toUpperCase() : null;
  const named = options.project ?? null;
  let scope: string | null = named ?? (item ? null : (options.workspaceProject ?? null));
  let session: number | null = options.session ?? null;

  const outcome = (
    decision: ChargeDecisionDetail,
    extra: Record<string, unknown> = {},
    more: Partial<ChargeOutcome> = {},
  ): ChargeOutcome => ({ decision, session_id: session, dispatch: null, dispatcher_exit: null, extra, ...more });

  const decide = async (
    decision: Omit<ChargeDecisionDetail, 'dispatched'>,
    extra: Record<string, unknown> = {},
  ): Promise<ChargeOutcome> => {
    const detail: ChargeDecisionDetail = { ...decision, dispatched: false };
    if (detail.target_bucket === undefined) delete detail.target_bucket;
    await api.recordDecision({ ...detail, ...(session !== null ? { session_id: session } : {}) });
    return outcome(detail, extra);
  };

  const readSchedule = () =>
    api.schedule({
      session_id: session ?? undefined,
      project: scope ?? undefined,
      wip_cap: options.wipCap,
    });

  if (item) {
    let explain: ExplainResponse | null = null;
    try {
      explain = await api.explain(item);
    } catch (err) {
      if (!isHttpError(err, 404) || err.code === 'project_not_found') throw err;
    }
    if (explain && named && explain.project !== named) {
      io.report(`${item} belongs to project ${explain.project}, not ${named}`);
      return decide(
        {
          item_id: item,
          adapter: null,
          reason: 'requested_item_unavailable',
          project: named,
          target_bucket: 'not_found',
        },
        { item_project: explain.project, item_status: explain.status },
      );
    }
    if (!explain || explain.bucket !== 'runnable') {
      const bucket = explain?.bucket === 'blocked' || explain?.bucket === 'frozen' ? explain.bucket : 'not_found';
      for (const line of explain?.summary ?? [`no item ${item}`]) io.report(`  ${line}`);
      if (explain && bucket === 'not_found') io.report(`${item} is ${explain.status} (not on the frontier)`);
      const project = explain?.project ?? named ?? (await projectOfRef(api, item)) ?? options.workspaceProject ?? null;
      return decide(
        {
          item_id: item,
          adapter: explain?.adapter ?? null,
          reason: 'requested_item_unavailable',
          project,
          target_bucket: bucket,
        },
        { item_status: explain?.status ?? null },
      );
    }
    scope = explain.project;
  }

  let schedule = await readSchedule();
  io.showSchedule?.(schedule);

  if (options.dryRun) {
    const top = item ? schedule.steps.find((s) => s.item_id === item) : schedule.steps[0];
    return decide(
      {
        item_id: top?.item_id ?? item,
        adapter: top?.adapter ?? null,
        reason: 'dry_run',
        project: named ?? top?.project ?? scope,
      },
      { steps: schedule.steps },
    );
  }

  const claim = async (base: { item_id: string; adapter: string | null; project: string | null }) => {
    if (session === null) {
      // Registered only now: dry runs, refusals and cancelled charges leave no executor session behind.
      const registered = await api.registerSession({
        harness: options.harness,
        model: options.model,
        ...(scope ? { project: scope } : {}),
        label: options.sessionLabel ?? 'svc charge',
      });
      session = registered.session_id;
    }
    let result: DispatchResponse;
    try {
      result = await api.dispatch({
        session_id: session,
        item_id: base.item_id,
        ...(options.wipCap !== undefined ? { wip_cap: options.wipCap } : {}),
      });
    } catch (err) {
      const retry = isHttpError(err) && RETRY_CODES.includes(err.code);
      if (retry && !item) {
        if (err.code === 'lane_mismatch') io.report(`${err.body.message}; taking the next item of the session's lane`);
        return 'retry' as const;
      }
      if (isHttpError(err) && err.body.decision_recorded === true) {
        return outcome(
          {
            ...base,
            dispatched: false,
            reason: (err.code === 'item_not_runnable' ? 'requested_item_unavailable' : err.code) as ChargeReason,
            ...(typeof err.body.target_bucket === 'string' ? { target_bucket: err.body.target_bucket } : {}),
          },
          { error: err.body },
          { error: { code: err.code, message: err.body.message } },
        );
      }
      if (retry && item) {
        io.report(`${item}: ${err.body.message}`);
        return decide({ ...base, reason: 'requested_item_unavailable', target_bucket: 'blocked' }, { error: err.body });
      }
      throw err;
    }
    const dispatcherExit = await io.runDispatcher(result);
    return outcome(
      { ...base, adapter: base.adapter ?? result.adapter, dispatched: true, reason: 'dispatched' },
      { entrypoint: result.entrypoint, claim_expires_at: result.claim.expires_at },
      { dispatch: result, dispatcher_exit: dispatcherExit },
    );
  };

  for (let attempt = 0; attempt < MAX_DISPATCH_ATTEMPTS; attempt++) {
    const target = item
      ? schedule.steps.find((s) => s.item_id === item)
      : schedule.steps.find((s) => !(options.skipOwnClaims && s.claimed_by_session));
    if (!target) {
      if (item && options.claimUnoffered && session !== null) {
        const claimed = await claim({ item_id: item, adapter: null, project: named ?? scope });
        if (claimed !== 'retry') return claimed;
      }
      if (item) {
        io.report(`${item} is runnable but not offered to this session (claimed elsewhere, WIP cap or lane)`);
        return decide({
          item_id: item,
          adapter: null,
          reason: 'requested_item_unavailable',
          project: named ?? scope,
          target_bucket: 'blocked',
        });
      }
      if (schedule.runnable_elsewhere) {
        io.report(
          `nothing runnable in ${schedule.scope.join(', ')}; runnable elsewhere: ${schedule.runnable_elsewhere
            .map((r) => `${r.project} (${r.runnable})`)
            .join(', ')} — use --project`,
        );
      }
      return decide(
        { item_id: null, adapter: null, reason: 'no_runnable_items', project: named ?? scope },
        { runnable_elsewhere: schedule.runnable_elsewhere },
      );
    }
    const base = { item_id: target.item_id, adapter: target.adapter, project: named ?? target.project };
    if (target.wait) {
      io.report(`${target.item_id} has the wait adapter at stage ${target.status}; not dispatched`);
      return decide({ ...base, reason: 'wait_adapter_encountered' });
    }
    if (!target.entrypoint) {
      io.report(`${target.item_id}: entrypoint_unavailable: ${target.error?.recovery ?? ''}`);
      return decide({ ...base, reason: 'entrypoint_unavailable' }, { error: target.error });
    }
    if (!(await io.confirm(target))) return decide({ ...base, reason: 'operator_cancelled' });
    const claimed = await claim(base);
    if (claimed !== 'retry') return claimed;
    schedule = await readSchedule();
  }
  throw new ChargeFlowError('dispatch_contended', `no item could be claimed after ${MAX_DISPATCH_ATTEMPTS} attempts`);
}
