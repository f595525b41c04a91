import { entrypointHowToLines } from '@app/client';

import type { Action } from '../state/actions';
import type { State } from '../state/state';
import { formatWhen } from '../state/selectors';
import type { DispatchResponse, ExplainResponse, StreamNotice } from '../wire';
import { describe, EffectsConfig, EffectsContext } from './context';

// no notice announces a new project
export const PICKER_REFRESH_MS = 2_000;
const ACTORS_REFRESH_MS = 30_000;

export function dispatchView(
  r: DispatchResponse,
  exit: number | null,
  config: Pick<EffectsConfig, 'dispatchCommand'>,
  now = Date.now(),
): { title: string; lines: string[] } {
  const lines = [
    `item        ${r.item_id} (${r.project})`,
    `session     #${r.session_id}`,
    `adapter     ${r.adapter}`,
    `entrypoint  ${r.entrypoint}`,
    `claimed     ${formatWhen(r.claim.claimed_at, now)}`,
    `claim ends  ${formatWhen(r.claim.expires_at, now)} (renewed while the session heartbeats)`,
    `WIP slot    ${r.wip_slot ? 'yes' : 'no'}`,
    `event       #${r.event_id}`,
  ];
  if (config.dispatchCommand) lines.push(`dispatcher  exited ${exit ?? '?'} (SVC_DISPATCH_COMMAND)`);
  else {
    lines.push('', 'No SVC_DISPATCH_COMMAND is set: start the entrypoint above yourself.');
    const howTo = entrypointHowToLines(r.entrypoint);
    if (howTo) lines.push(`Run it ${howTo[0]}:`, ...howTo.slice(1));
  }
  return { title: `Dispatched ${r.item_id}`, lines };
}

export function unavailableView(
  ref: string,
  ex: ExplainResponse | null,
  reports: string[],
  refusal?: string,
): { title: string; lines: string[] } {
  const lines: string[] = [];
  if (!ex) {
    lines.push(...(reports.length ? reports : [`${ref} could not be charged`]));
    if (refusal) lines.push(refusal);
    return { title: `Cannot charge ${ref}`, lines };
  }
  const where = ex.bucket === 'runnable' ? 'runnable, but not offered to this session' : ex.bucket;
  lines.push(`${ref} is ${where} (status ${ex.status}); it was not dispatched.`);
  if (refusal) lines.push(refusal);
  if (ex.operator_block) lines.push(`operator block: ${ex.operator_block}`);
  if (ex.unsatisfied.length > 0) {
    lines.push('', 'Waiting on:');
    for (const u of ex.unsatisfied) {
      const state = u.state ? ` (${u.state})` : '';
      lines.push(`- ${u.blocker ?? '(missing item)'}${state}: ${u.reason}`, `  would satisfy it: ${u.need}`);
    }
  } else {
    lines.push('', ...ex.summary);
  }
  if (ex.unblock_roots.length > 0) lines.push('', `start first: ${ex.unblock_roots.join(', ')}`);
  if (ex.stuck.length > 0) lines.push(`needs a person: ${ex.stuck.join(', ')}`);
  if (ex.bucket === 'runnable') lines.push('', ...reports.filter((r) => !ex.summary.includes(r)));
  return { title: `Cannot charge ${ref}`, lines };
}

export class Screens {
  private pickerTimer: NodeJS.Timeout | null = null;
  private actorsAt = 0;

  constructor(private readonly ctx: EffectsContext) {}

  stop(): void {
    if (this.pickerTimer) clearInterval(this.pickerTimer);
    this.pickerTimer = null;
  }

  private dispatch(action: Action): void {
    this.ctx.dispatch(action);
  }

  onAction(action: Action, previous: State, next: State): void {
    const picker = next.dialog?.kind === 'projects';
    if (picker && !this.pickerTimer) {
      this.ctx.refetch(['projects']);
      this.pickerTimer = setInterval(() => this.ctx.refetch(['projects']), PICKER_REFRESH_MS);
      this.pickerTimer.unref?.();
    } else if (!picker && this.pickerTimer) {
      clearInterval(this.pickerTimer);
      this.pickerTimer = null;
    }
    const connected = next.machinesView === 'connected';
    if (connected && (previous.machinesView !== 'connected' || action.type === 'machines_loaded')) {
      void this.loadConnected();
    }
    if (action.type === 'events_loaded') {
      const names = next.actorNames;
      const unknown = action.events.some((e) => e.actor_id !== null && names[String(e.actor_id)] === undefined);
      if (unknown && Date.now() - this.actorsAt > ACTORS_REFRESH_MS) void this.loadActors();
    }
    if (action.type !== 'key') return;
    const before = previous.dialog;
    const after = next.dialog;
    if (before?.kind === 'confirm-deny' && after?.kind === 'confirm-deny' && after.busy && !before.busy) {
      if (after.code === null) void this.denyMachine(after.requestId, after.machineName);
    }
    if (before?.kind === 'confirm-revoke' && after?.kind === 'confirm-revoke' && after.busy && !before.busy) {
      void this.revokeMachine(after.machineId, after.machineName);
    }
  }

  // An item's change itself shows as an audit log row, which the notice refetches (live-sync.ts).
  onNotice(notice: StreamNotice): void {
    if (notice.type !== 'item' && notice.type !== 'items') return;
    const project = typeof notice.data.project === 'string' ? notice.data.project : null;
    const projects = this.ctx.state.projects;
    if (project && projects && !projects.some((p) => p.id === project)) this.ctx.refetch(['projects']);
  }

  private async loadConnected(): Promise<void> {
    try {
      const body = await this.ctx.config.api.machines();
      this.dispatch({ type: 'connected_loaded', machines: body.machines.filter((m) => m.revoked_at === null) });
    } catch (err) {
      this.dispatch({ type: 'status', text: `connected machines: ${describe(err)}`, tone: 'error' });
    }
  }

  // An old daemon's answer without names leaves #ids.
  private async loadActors(): Promise<void> {
    this.actorsAt = Date.now();
    try {
      const body = await this.ctx.config.api.actors();
      this.dispatch({ type: 'actors_loaded', actors: body.actors });
    } catch {
      // the column keeps #<id>
    }
  }

  private async denyMachine(requestId: string, name: string): Promise<void> {
    try {
      await this.ctx.config.api.denyMachineAuthorizationRequest(requestId);
      this.dispatch({ type: 'code_result', ok: true });
      this.dispatch({ type: 'status', text: `denied ${name}: the machine will not be connected`, tone: 'ok' });
    } catch (err) {
      this.dispatch({ type: 'code_result', ok: false, close: true });
      this.dispatch({ type: 'status', text: `deny ${name}: ${describe(err)}`, tone: 'error' });
    }
    this.ctx.refetch(['machines', 'events']);
  }

  private async revokeMachine(machineId: string, name: string): Promise<void> {
    try {
      const body = await this.ctx.config.api.revokeMachine(machineId);
      this.dispatch({ type: 'revoke_done' });
      this.dispatch({
        type: 'status',
        text: `revoked ${body.revoked} credential${body.revoked === 1 ? '' : 's'} of ${name} (${machineId})`,
        tone: 'ok',
      });
    } catch (err) {
      this.dispatch({ type: 'revoke_done' });
      this.dispatch({ type: 'status', text: `revoke ${name}: ${describe(err)}`, tone: 'error' });
    }
    void this.loadConnected();
  }
}
