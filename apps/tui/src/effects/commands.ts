import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

import {
  ChargeFlowIO,
  ChargeOutcome,
  dispatchValues,
  isHttpError,
  renderDispatchCommand,
  runCharge,
} from '@app/client';

import type { Action } from '../state/actions';
import type { State } from '../state/state';
import type { DispatchResponse, ScheduleStep } from '../wire';
import { describe, EffectsContext } from './context';
import { dispatchView, unavailableView } from './screens';

// The claim TTL is 30 minutes by default: a heartbeat every 5 renews it well before it lapses.
const HEARTBEAT_MS = 5 * 60_000;

export class Commands {
  private session: number | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private chargeAnswer: ((yes: boolean) => void) | null = null;

  constructor(private readonly ctx: EffectsContext) {}

  stop(): void {
    this.chargeAnswer?.(false);
    this.chargeAnswer = null;
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }

  // The session's claims would lapse silently after the claim TTL with the TUI still open.
  private ownSession(id: number): void {
    this.dispatch({ type: 'own_session', id });
    if (this.heartbeat) return;
    const every = this.ctx.config.heartbeatMs ?? HEARTBEAT_MS;
    let warned = false;
    this.heartbeat = setInterval(() => {
      const session = this.session;
      if (session === null || this.ctx.stopped) return;
      this.ctx.config.api
        .heartbeat(session)
        .then(() => {
          warned = false;
          this.ctx.refetch(['claims']);
        })
        .catch((err: unknown) => {
          if (warned) return;
          warned = true;
          this.dispatch({ type: 'status', text: `claims not renewed: ${describe(err)}`, tone: 'warn' });
        });
    }, every);
    this.heartbeat.unref?.();
  }

  private dispatch(action: Action): void {
    this.ctx.dispatch(action);
  }

  private get state(): State {
    return this.ctx.state;
  }

  onKey(action: Action & { type: 'key' }, previous: State, next: State): void {
    switch (action.action) {
      case 'charge_top':
      case 'charge_selected':
        if (next.dialog?.kind === 'charge' && previous.dialog?.kind !== 'charge') void this.charge(next.dialog.ref);
        break;
      case 'dialog_yes':
      case 'dialog_no':
      case 'dialog_activate': {
        const before = previous.dialog;
        const after = next.dialog;
        if (before?.kind === 'charge' && before.phase === 'confirm' && after !== before) {
          const answer = this.chargeAnswer;
          this.chargeAnswer = null;
          answer?.(after?.kind === 'charge' && after.phase === 'running');
        }
        // a deny without a code (code null) goes by the request id (screens.ts)
        if (before?.kind === 'confirm-deny' && after?.kind === 'confirm-deny' && after.busy && !before.busy) {
          if (after.code !== null) void this.resolveMachine(after.requestId, after.code, 'deny', after.machineName);
        }
        if (before?.kind === 'confirm-approve' && after?.kind === 'confirm-approve' && after.busy && !before.busy) {
          void this.approveDeployment(after.ref);
        }
        break;
      }
      case 'code_submit': {
        const d = next.dialog;
        if (d?.kind === 'code' && d.busy && previous.dialog?.kind === 'code' && !previous.dialog.busy) {
          void this.resolveMachine(d.requestId, d.input, d.action, d.machineName);
        }
        break;
      }
      case 'demo_import':
        void this.importDemo();
        break;
      default:
        break;
    }
  }

  private async charge(ref: string | null): Promise<void> {
    const project = this.state.project;
    const { config } = this.ctx;
    const reports: string[] = [];
    const io: ChargeFlowIO = {
      confirm: (target: ScheduleStep) =>
        new Promise<boolean>((resolve) => {
          this.chargeAnswer = resolve;
          this.dispatch({ type: 'charge_confirm', step: target });
          const d = this.state.dialog;
          if (d?.kind !== 'charge') {
            this.chargeAnswer = null;
            resolve(false);
          } else if (d.phase === 'running') {
            this.chargeAnswer = null;
            resolve(true);
          }
        }),
      report: (message) => {
        reports.push(message.trim());
        this.dispatch({ type: 'status', text: message.trim(), tone: 'info' });
      },
      runDispatcher: (result) => this.runDispatcher(result),
    };
    let outcome: ChargeOutcome;
    try {
      outcome = await (config.charge ?? runCharge)(
        config.api,
        {
          project,
          item: ref,
          session: this.session,
          harness: config.harness,
          model: config.model,
          dispatchCommand: config.dispatchCommand,
          sessionLabel: 'svc tui',
        },
        io,
      );
    } catch (err) {
      this.dispatch({ type: 'charge_done' });
      this.dispatch({ type: 'status', text: `charge failed: ${describe(err)}`, tone: 'error' });
      return;
    }
    this.session = outcome.session_id ?? this.session;
    if (this.session !== null) this.ownSession(this.session);
    this.dispatch({ type: 'charge_done' });
    const d = outcome.decision;
    if (d.dispatched) {
      const exit = outcome.dispatcher_exit;
      const how = config.dispatchCommand ? (exit === 0 ? ', dispatcher exited 0' : `, dispatcher exited ${exit}`) : '';
      this.dispatch({
        type: 'status',
        text: `charge: dispatched ${d.item_id} (${d.adapter}: ${outcome.dispatch?.entrypoint ?? ''})${how}`,
        tone: exit === 0 || exit === null ? 'ok' : 'warn',
      });
      if (outcome.dispatch) this.dispatch({ type: 'view_open', ...dispatchView(outcome.dispatch, exit, config) });
    } else if (d.reason === 'requested_item_unavailable' && d.item_id) {
      // in words: the blockers and what would satisfy them, not the decision's code
      const explain = await config.api.explain(d.item_id).catch(() => null);
      this.dispatch({ type: 'status', text: `charge: ${d.item_id} not dispatched (see why)`, tone: 'warn' });
      this.dispatch({ type: 'view_open', ...unavailableView(d.item_id, explain, reports, outcome.error?.message) });
    } else {
      const why = outcome.error ? ` — ${outcome.error.message}` : '';
      this.dispatch({
        type: 'status',
        text: `charge: ${d.reason}${d.item_id ? ` (${d.item_id})` : ''}, not dispatched${why}`,
        tone: d.reason === 'operator_cancelled' ? 'info' : 'warn',
      });
    }
    this.ctx.refetch(['events', 'frontier', 'claims']);
  }

  private runDispatcher(result: DispatchResponse): Promise<number> {
    this.dispatch({ type: 'charge_done' });
    const template = this.ctx.config.dispatchCommand;
    if (!template) return Promise.resolve(0);
    const command = renderDispatchCommand(template, dispatchValues(result));
    this.dispatch({
      type: 'status',
      text: `dispatching ${result.item_id}: running the dispatch command…`,
      tone: 'info',
    });
    return new Promise((resolve) => {
      const child = spawn('/bin/sh', ['-c', command], { stdio: ['ignore', 'ignore', 'ignore'] });
      child.once('error', () => resolve(127));
      child.once('exit', (code) => resolve(code ?? 1));
    });
  }

  private async resolveMachine(
    requestId: string,
    code: string,
    action: 'approve' | 'deny',
    name: string,
  ): Promise<void> {
    try {
      await this.ctx.config.api.resolveMachineAuthorizationRequest(requestId, { code, action });
      this.dispatch({ type: 'code_result', ok: true });
      this.dispatch({
        type: 'status',
        text: action === 'approve' ? `approved ${name}: the machine receives its credential` : `denied ${name}`,
        tone: 'ok',
      });
      this.ctx.refetch(['machines', 'events']);
    } catch (err) {
      if (isHttpError(err, 409, 'authorization_code_mismatch')) {
        const warning =
          'that code belongs to another request, not to the one selected: check the machine name and its code';
        this.dispatch({ type: 'code_result', ok: false, warning });
        if (this.state.dialog?.kind !== 'code') this.dispatch({ type: 'status', text: warning, tone: 'warn' });
        return;
      }
      const message = describe(err);
      this.dispatch({ type: 'code_result', ok: false, warning: message });
      if (this.state.dialog?.kind !== 'code')
        this.dispatch({ type: 'status', text: `${action}: ${message}`, tone: 'error' });
      this.ctx.refetch(['machines']);
    }
  }

  // A refusal (409: not awaiting approval, already approved; 403) is a status line with the daemon's words.
  private async approveDeployment(ref: string): Promise<void> {
    try {
      const a = await this.ctx.config.api.approveDeployment(ref);
      this.dispatch({ type: 'approve_done' });
      this.dispatch({
        type: 'status',
        text: `approved ${a.stage} for ${a.item_id} (run ${a.run_id}); re-run the usher step to continue the run`,
        tone: 'ok',
      });
    } catch (err) {
      this.dispatch({ type: 'approve_done' });
      this.dispatch({ type: 'status', text: `approve ${ref}: ${describe(err)}`, tone: 'error' });
    }
    this.ctx.refetch(['events', 'frontier']);
    if (this.state.detail?.ref === ref) this.ctx.loadDetail(ref, 0);
  }

  private async importDemo(): Promise<void> {
    if (this.state.readOnly || this.state.importing) return;
    const path = this.ctx.config.demoBacklogPath;
    if (!path) {
      this.dispatch({
        type: 'status',
        text: 'the demo backlog (examples/demo-backlog.json) is not in this install',
        tone: 'error',
      });
      return;
    }
    this.dispatch({ type: 'importing', on: true });
    try {
      const result = await this.ctx.config.api.importBacklog(JSON.parse(readFileSync(path, 'utf8')));
      this.dispatch({
        type: 'status',
        text: `imported the demo backlog: project ${result.project}, ${result.items} items`,
        tone: 'ok',
      });
      this.ctx.refetch(['projects', 'frontier', 'claims', 'events']);
    } catch (err) {
      this.dispatch({ type: 'status', text: `import failed: ${describe(err)}`, tone: 'error' });
    } finally {
      this.dispatch({ type: 'importing', on: false });
    }
  }
}
