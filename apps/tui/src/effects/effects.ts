import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

import {
  ChargeFlowIO,
  ChargeOutcome,
  EventStream,
  EventStreamOptions,
  isHttpError,
  renderDispatchCommand,
  dispatchValues,
  runCharge,
  SvcApi,
  SvcConnectionError,
  SvcHttpError,
} from '@app/client';

import type { ProjectListResponse } from '@app/contracts';

import type { Action } from '../state/actions';
import { detailEdges } from '../state/edges';
import { pipelineOf } from '../state/pipeline';
import { isFrontierTab, State } from '../state/state';
import type { DbClaimResponse, DispatchResponse, ScheduleStep, StreamNotice, WhoAmIResponse } from '../wire';
import { FrontierPrefetch, LiveFrontier, prefetchFrontier } from './live-sync';
import type { Store } from './store';

// At most four refetches a second, however many notices arrive.
export const REFETCH_INTERVAL_MS = 250;
// A slow safety net under the event stream (a notice lost while reconnecting, a clock-driven change).
export const SAFETY_REFETCH_MS = 30_000;
export const RETRY_START_MS = 2_000;
const DETAIL_DEBOUNCE_MS = 60;

type Part = 'projects' | 'frontier' | 'claims' | 'machines' | 'events';

export interface EffectsConfig {
  api: SvcApi;
  token: string | null;
  openStream: (options: EventStreamOptions) => EventStream;
  charge?: typeof runCharge;
  harness: string;
  model: string;
  dispatchCommand: string | null;
  demoBacklogPath: string | null;
  // the stream's reconnection backoff ceiling (ms)
  maxRetryMs?: number;
  // requests main sent before loading the screen code, so the daemon works while the TUI starts
  prefetch?: Prefetch;
}

export interface Prefetch {
  identity: Promise<[WhoAmIResponse, ProjectListResponse]>;
  frontier: FrontierPrefetch | null;
}

// Sent first thing by main; unhandled rejections are avoided here, the effects read the outcomes.
export function prefetch(api: SvcApi, project: string | null): Prefetch {
  const identity = Promise.all([api.whoami(), api.projects()]);
  identity.catch(() => undefined);
  return { identity, frontier: project ? prefetchFrontier(api, project) : null };
}

// The package root holds examples/demo-backlog.json; found by walking up from this file (source or dist).
export function findDemoBacklog(from = __dirname): string | null {
  let dir = from;
  for (let i = 0; i < 8; i++) {
    const candidate = join(dir, 'examples', 'demo-backlog.json');
    if (existsSync(candidate) && existsSync(join(dir, 'package.json'))) return candidate;
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return null;
}

function describe(err: unknown): string {
  if (err instanceof SvcHttpError) return `${err.code}: ${err.body.message}`;
  return err instanceof Error ? err.message : String(err);
}

// The only daemon I/O of the TUI: turns actions into SvcApi calls and stream notices into actions.
export class Effects {
  private stream: EventStream | null = null;
  private pending = new Set<Part>();
  private inFlight = false;
  private lastFetch = 0;
  private refetchTimer: NodeJS.Timeout | null = null;
  private safetyTimer: NodeJS.Timeout | null = null;
  private tickTimer: NodeJS.Timeout | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private detailTimer: NodeJS.Timeout | null = null;
  // the frontier, kept current by deltas (live-sync.ts)
  private readonly live: LiveFrontier;
  private session: number | null = null;
  private chargeAnswer: ((yes: boolean) => void) | null = null;
  private stopped = false;
  private started = false;
  // each prefetched answer is used once, by the first read it stands for
  private readonly early: { identity: Prefetch['identity'] | null };

  constructor(
    private readonly store: Store,
    private readonly config: EffectsConfig,
  ) {
    store.subscribe((action, previous, next) => this.onAction(action, previous, next));
    this.early = { identity: config.prefetch?.identity ?? null };
    this.live = new LiveFrontier(
      config.api,
      () => this.store.state,
      (action) => this.dispatch(action),
      () => {
        if (this.state.detailOpen && this.state.detail) this.loadDetail(this.state.detail.ref, 0);
      },
      config.prefetch?.frontier ?? null,
    );
  }

  private get state(): State {
    return this.store.state;
  }

  private dispatch(action: Action): void {
    if (!this.stopped) this.store.dispatch(action);
  }

  async start(): Promise<void> {
    this.tickTimer = setInterval(() => this.dispatch({ type: 'tick', now: Date.now() }), 1000);
    this.tickTimer.unref?.();
    await this.connect();
  }

  stop(): void {
    this.stopped = true;
    this.stream?.close();
    this.stream = null;
    for (const t of [this.refetchTimer, this.safetyTimer, this.retryTimer, this.detailTimer]) if (t) clearTimeout(t);
    if (this.tickTimer) clearInterval(this.tickTimer);
    this.chargeAnswer?.(false);
  }

  // First contact: who am I, which projects; a refusal or silence is a screen, retried in the background.
  private async connect(): Promise<void> {
    if (this.stopped) return;
    const { api } = this.config;
    try {
      const early = this.early.identity;
      this.early.identity = null;
      const [me, { projects }] = await (early ?? Promise.all([api.whoami(), api.projects()]));
      this.dispatch({ type: 'actor', name: me.name });
      this.dispatch({ type: 'failure', failure: null });
      this.dispatch({ type: 'projects_loaded', projects });
    } catch (err) {
      this.failed(err);
      return;
    }
    this.started = true;
    this.openStream();
    this.refetch(['frontier', 'claims', 'machines', 'events']);
    this.safety();
  }

  private failed(err: unknown): void {
    const url = this.config.api.baseUrl;
    if (err instanceof SvcConnectionError) {
      this.dispatch({
        type: 'failure',
        failure: {
          kind: 'no_daemon',
          title: `No svc daemon at ${url}`,
          lines: [
            'Start one with `svc up` (it runs the daemon in the background on an embedded database), or point the TUI at another daemon with --url or SVC_URL.',
            `(${describe(err)})`,
          ],
        },
      });
    } else if (isHttpError(err, 401) || isHttpError(err, 403)) {
      this.dispatch({
        type: 'failure',
        failure: {
          kind: 'unauthorized',
          title: `The daemon at ${url} refused the credential`,
          lines: [
            `${describe(err)}`,
            `The token is missing, expired or revoked. Connect this machine again with \`svc connect ${url}\` (an admin approves the code it shows), or set SVC_TOKEN to a valid API token, then press r.`,
          ],
        },
      });
    } else {
      this.dispatch({
        type: 'failure',
        failure: { kind: 'error', title: `The daemon at ${url} answered with an error`, lines: [describe(err)] },
      });
    }
    this.dispatch({ type: 'connection', state: 'offline' });
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const delay = this.state.failure?.kind === 'unauthorized' ? 10_000 : RETRY_START_MS;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.connect();
    }, delay);
  }

  private openStream(): void {
    this.stream?.close();
    this.stream = this.config.openStream({
      baseUrl: this.config.api.baseUrl,
      token: this.config.token,
      maxRetryMs: this.config.maxRetryMs ?? 5000,
      onNotice: (notice) => this.onNotice(notice),
      onStatus: (status, detail) => {
        if (this.stopped) return;
        if (status === 'open') {
          const afterGap = this.state.connection === 'reconnecting' || this.state.connection === 'offline';
          this.dispatch({ type: 'connection', state: 'live' });
          // back after a gap: everything may have changed meanwhile (the first opening follows the first fetch)
          if (afterGap) this.refetch(['projects', 'frontier', 'claims', 'machines', 'events']);
        } else if (status === 'reconnecting') {
          this.dispatch({ type: 'connection', state: 'reconnecting' });
        } else if (status === 'closed' && detail?.error) {
          this.failed(detail.error);
        }
      },
    });
  }

  private onNotice(notice: StreamNotice): void {
    // the open detail pane follows changes to its item, and to its deployment run (the run's events and changes
    // do not always name the item)
    const detail = this.state.detailOpen ? this.state.detail : null;
    if (detail && notice.data.name !== 'FrontierComputed') {
      const aboutItem = notice.data.item_id === detail.ref || notice.data.ref === detail.ref;
      if (aboutItem || (detail.pipeline && notice.type !== 'machine_authorization')) this.loadDetail(detail.ref);
    }
    switch (notice.type) {
      case 'event': {
        const name = typeof notice.data.name === 'string' ? notice.data.name : '';
        // a frontier read records FrontierComputed: refetching the frontier on it would loop
        if (name !== 'FrontierComputed') this.frontierNotice(null);
        this.refetch(name === 'FrontierComputed' ? ['events'] : ['events', 'claims']);
        break;
      }
      case 'frontier':
        // the daemon's frontier notice names the answer's new ETag: nothing to do when it is the one shown
        if (notice.data.project === this.state.project) {
          this.frontierNotice(typeof notice.data.etag === 'string' ? notice.data.etag : null);
        }
        break;
      case 'machine_authorization':
        this.refetch(['machines']);
        break;
      case 'item':
      case 'items':
      case 'dependency':
      case 'claim':
      case 'claims':
        this.frontierNotice(null);
        this.refetch(['claims']);
        break;
      default:
        break;
    }
  }

  // The frontier follows a notice at once (one request in flight, the rest coalesced), not on the refetch timer.
  private frontierNotice(etag: string | null): void {
    if (this.stopped || !this.started) return;
    void this.guard('frontier', () => this.live.notice(etag));
  }

  private safety(): void {
    if (this.safetyTimer) clearTimeout(this.safetyTimer);
    this.safetyTimer = setTimeout(() => {
      this.refetch(['projects', 'frontier', 'claims', 'machines', 'events']);
      this.safety();
    }, SAFETY_REFETCH_MS);
    this.safetyTimer.unref?.();
  }

  // Coalesced: parts asked for while a fetch runs, or within REFETCH_INTERVAL_MS of the last, wait and go together.
  refetch(parts: Part[]): void {
    parts.forEach((p) => this.pending.add(p));
    if (this.inFlight || this.refetchTimer || this.stopped) return;
    const wait = Math.max(0, this.lastFetch + REFETCH_INTERVAL_MS - Date.now());
    this.refetchTimer = setTimeout(() => {
      this.refetchTimer = null;
      void this.runRefetch();
    }, wait);
  }

  private async runRefetch(): Promise<void> {
    if (this.stopped || this.pending.size === 0) return;
    const parts = this.pending;
    this.pending = new Set();
    this.inFlight = true;
    this.lastFetch = Date.now();
    try {
      if (parts.has('projects')) await this.loadProjects();
      await Promise.all([
        parts.has('frontier') ? this.loadFrontier() : null,
        parts.has('claims') ? this.loadClaims() : null,
        parts.has('machines') ? this.loadMachines() : null,
        parts.has('events') ? this.loadEvents() : null,
      ]);
    } finally {
      this.inFlight = false;
      if (this.pending.size > 0) this.refetch([]);
    }
  }

  private async guard(what: string, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (err) {
      if (this.stopped) return;
      if (err instanceof SvcConnectionError) {
        this.dispatch({ type: 'connection', state: 'reconnecting' });
      } else if (isHttpError(err, 401)) {
        this.failed(err);
      } else {
        this.dispatch({ type: 'status', text: `${what}: ${describe(err)}`, tone: 'error' });
      }
    }
  }

  private loadProjects(): Promise<void> {
    return this.guard('projects', async () => {
      const { projects } = await this.config.api.projects();
      this.dispatch({ type: 'projects_loaded', projects });
    });
  }

  private loadFrontier(): Promise<void> {
    const project = this.state.project;
    if (!project) return Promise.resolve();
    return this.guard('frontier', () => this.live.sync());
  }

  private loadClaims(): Promise<void> {
    const project = this.state.project;
    if (!project) return Promise.resolve();
    return this.guard('claims', async () => {
      try {
        const body = await this.config.api.claims(project);
        this.dispatch({ type: 'claims_loaded', project, claims: body.claims });
      } catch (err) {
        // a daemon without the claims route: no holder column, not an error
        if (!isHttpError(err, 404) || err.code === 'project_not_found') throw err;
      }
    });
  }

  private loadMachines(): Promise<void> {
    return this.guard('machine requests', async () => {
      try {
        const body = await this.config.api.machineAuthorizationRequests();
        this.dispatch({ type: 'machines_loaded', requests: body.requests });
      } catch (err) {
        // not an approver here (403), or a daemon without the list route (404): an empty tab
        if (isHttpError(err, 403) || isHttpError(err, 404)) this.dispatch({ type: 'machines_loaded', requests: [] });
        else throw err;
      }
    });
  }

  private loadEvents(): Promise<void> {
    return this.guard('events', async () => {
      const body = await this.config.api.events({ limit: 200 });
      this.dispatch({ type: 'events_loaded', events: body.events });
    });
  }

  private loadDetail(ref: string, delay = DETAIL_DEBOUNCE_MS): void {
    if (this.detailTimer) clearTimeout(this.detailTimer);
    this.detailTimer = setTimeout(() => {
      this.detailTimer = null;
      void this.fetchDetail(ref);
    }, delay);
  }

  private async fetchDetail(ref: string): Promise<void> {
    const { api } = this.config;
    const project = this.state.project;
    const item = isFrontierTab(this.state.tab)
      ? this.state.frontier?.[this.state.tab].find((i) => i.item_id === ref)
      : null;
    const part = async (name: string, work: () => Promise<void>) => {
      try {
        await work();
      } catch (err) {
        if (err instanceof SvcConnectionError) return;
        this.dispatch({ type: 'detail_loaded', ref, data: { part: 'error', message: `${name}: ${describe(err)}` } });
      }
    };
    await Promise.all([
      part('explain', async () => {
        this.dispatch({ type: 'detail_loaded', ref, data: { part: 'explain', value: await api.explain(ref) } });
      }),
      part('item', async () => {
        const value = await api.item(ref);
        this.dispatch({ type: 'detail_loaded', ref, data: { part: 'item', value } });
        // an item carried by a deployment flow: its pipeline position and any halt
        if (value.deployment_flow && project) {
          const [progress, flows] = await Promise.all([api.itemProgress(ref), api.deploymentFlows(project)]);
          const flow = flows.flows.find((f) => f.id === value.deployment_flow);
          this.dispatch({
            type: 'detail_loaded',
            ref,
            data: {
              part: 'pipeline',
              value: pipelineOf(value.deployment_flow, value.deploy_stage, progress, flow?.stages),
            },
          });
        } else {
          this.dispatch({ type: 'detail_loaded', ref, data: { part: 'pipeline', value: null } });
        }
      }),
      project
        ? part('edges', async () => {
            const [stored, into, out] = await Promise.all([
              api.dependencies(ref, { direction: 'both' }),
              api.frontierList({ project, dependent: ref, only: 'edges' }),
              api.frontierList({ project, blocker: ref, only: 'edges' }),
            ]);
            this.dispatch({
              type: 'detail_loaded',
              ref,
              data: {
                part: 'edges',
                edges: detailEdges(stored.dependencies, into.dependency_edges, out.dependency_edges),
              },
            });
          })
        : null,
      part('db claim', async () => {
        let value: DbClaimResponse | null = null;
        try {
          value = await api.dbClaim(ref);
        } catch (err) {
          if (!isHttpError(err, 404)) throw err;
        }
        this.dispatch({ type: 'detail_loaded', ref, data: { part: 'dbClaim', value } });
      }),
      item?.workflow_id === 'epic'
        ? part('epic tasks', async () => {
            const body = await api.epicTasks(ref);
            this.dispatch({ type: 'detail_loaded', ref, data: { part: 'epicTasks', value: body.tasks } });
          })
        : null,
    ]);
  }

  private onAction(action: Action, previous: State, next: State): void {
    if (this.stopped) return;
    // the detail pane follows the selection: fetch when it shows a new item
    if (next.detailOpen && next.detail && next.detail.ref !== previous.detail?.ref) this.loadDetail(next.detail.ref);
    if (next.project !== previous.project && next.project) {
      this.live.reset();
      this.refetch(['frontier', 'claims']);
    }
    if (action.type !== 'key') return;
    switch (action.action) {
      case 'refresh':
        if (next.failure || !this.started) {
          if (this.retryTimer) clearTimeout(this.retryTimer);
          this.retryTimer = null;
          void this.connect();
        } else {
          this.live.reset();
          this.refetch(['projects', 'frontier', 'claims', 'machines', 'events']);
          if (next.detail) this.loadDetail(next.detail.ref, 0);
        }
        break;
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
        if (before?.kind === 'confirm-deny' && after?.kind === 'confirm-deny' && after.busy && !before.busy) {
          void this.resolveMachine(after.requestId, after.code, 'deny', after.machineName);
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
    const io: ChargeFlowIO = {
      confirm: (target: ScheduleStep) =>
        new Promise<boolean>((resolve) => {
          this.chargeAnswer = resolve;
          this.dispatch({ type: 'charge_confirm', step: target });
          if (this.state.dialog?.kind !== 'charge') {
            this.chargeAnswer = null;
            resolve(false);
          }
        }),
      report: (message) => this.dispatch({ type: 'status', text: message.trim(), tone: 'info' }),
      runDispatcher: (result) => this.runDispatcher(result),
    };
    let outcome: ChargeOutcome;
    try {
      outcome = await (this.config.charge ?? runCharge)(
        this.config.api,
        {
          project,
          item: ref,
          session: this.session,
          harness: this.config.harness,
          model: this.config.model,
          dispatchCommand: this.config.dispatchCommand,
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
    this.dispatch({ type: 'charge_done' });
    const d = outcome.decision;
    if (d.dispatched) {
      const exit = outcome.dispatcher_exit;
      const how = this.config.dispatchCommand
        ? exit === 0
          ? ', dispatcher exited 0'
          : `, dispatcher exited ${exit}`
        : '';
      this.dispatch({
        type: 'status',
        text: `charge: dispatched ${d.item_id} (${d.adapter}: ${outcome.dispatch?.entrypoint ?? ''})${how}`,
        tone: exit === 0 || exit === null ? 'ok' : 'warn',
      });
    } else {
      const why = outcome.error ? ` — ${outcome.error.message}` : '';
      this.dispatch({
        type: 'status',
        text: `charge: ${d.reason}${d.item_id ? ` (${d.item_id})` : ''}, not dispatched${why}`,
        tone: d.reason === 'operator_cancelled' ? 'info' : 'warn',
      });
    }
    this.refetch(['events', 'frontier', 'claims']);
  }

  // The dispatch runs on the operator's machine: SVC_DISPATCH_COMMAND (output kept off the screen), or shown.
  private runDispatcher(result: DispatchResponse): Promise<number> {
    this.dispatch({ type: 'charge_done' });
    const template = this.config.dispatchCommand;
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
      await this.config.api.resolveMachineAuthorizationRequest(requestId, { code, action });
      this.dispatch({ type: 'code_result', ok: true });
      this.dispatch({
        type: 'status',
        text: action === 'approve' ? `approved ${name}: the machine receives its credential` : `denied ${name}`,
        tone: 'ok',
      });
      this.refetch(['machines', 'events']);
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
      this.refetch(['machines']);
    }
  }

  // The same HTTP function as `svc approve <ref>`; a refusal (409: not awaiting approval, already approved; 403)
  // is a status line with the daemon's words.
  private async approveDeployment(ref: string): Promise<void> {
    try {
      const a = await this.config.api.approveDeployment(ref);
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
    this.refetch(['events', 'frontier']);
    if (this.state.detail?.ref === ref) this.loadDetail(ref, 0);
  }

  private async importDemo(): Promise<void> {
    if (this.state.readOnly || this.state.importing) return;
    const path = this.config.demoBacklogPath;
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
      const result = await this.config.api.importBacklog(JSON.parse(readFileSync(path, 'utf8')));
      this.dispatch({
        type: 'status',
        text: `imported the demo backlog: project ${result.project}, ${result.items} items`,
        tone: 'ok',
      });
      await this.loadProjects();
      this.refetch(['frontier', 'claims', 'events']);
    } catch (err) {
      this.dispatch({ type: 'status', text: `import failed: ${describe(err)}`, tone: 'error' });
    } finally {
      this.dispatch({ type: 'importing', on: false });
    }
  }
}
