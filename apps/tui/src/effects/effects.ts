import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

import { isHttpError, SvcApi, SvcConnectionError } from '@app/client';

import { defaultOpener } from '../config';
import type { Action } from '../state/actions';
import type { State } from '../state/state';
import type { StreamNotice } from '../wire';
import { Commands } from './commands';
import { describe, EffectsConfig, EffectsContext, Part, Prefetch } from './context';
import { DetailLoader } from './detail-loader';
import { External } from './external';
import { prefetchFrontier } from './frontier-live';
import { ItemHistory } from './item-history';
import { LiveSync } from './live-sync';
import { TreeLoader } from './tree-loader';
import { TriageCommands } from './triage-commands';
import { Screens } from './screens';
import type { Store } from './store';

export type { EffectsConfig, Prefetch } from './context';
export { REFETCH_INTERVAL_MS, SAFETY_REFETCH_MS } from './live-sync';
export { dispatchView, PICKER_REFRESH_MS, unavailableView } from './screens';

export const RETRY_START_MS = 2_000;

// Unhandled rejections are avoided here; the effects read the outcomes.
export function prefetch(api: SvcApi, project: string | null, windowAbove?: number): Prefetch {
  const identity = Promise.all([api.whoami(), api.projects()]);
  identity.catch(() => undefined);
  return { identity, frontier: project ? prefetchFrontier(api, project, windowAbove) : null };
}

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

// The only daemon I/O of the TUI.
export class Effects implements EffectsContext {
  private readonly live: LiveSync;
  private readonly detail: DetailLoader;
  private readonly commands: Commands;
  private readonly triage: TriageCommands;
  private readonly screens: Screens;
  private readonly history: ItemHistory;
  private readonly external: External;
  private readonly tree: TreeLoader;
  private tickTimer: NodeJS.Timeout | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private isStopped = false;
  private started = false;
  private earlyIdentity: Prefetch['identity'] | null;

  constructor(
    private readonly store: Store,
    readonly config: EffectsConfig,
  ) {
    this.earlyIdentity = config.prefetch?.identity ?? null;
    this.live = new LiveSync(this, config.prefetch?.frontier ?? null);
    this.detail = new DetailLoader(this);
    this.commands = new Commands(this);
    this.triage = new TriageCommands(this);
    this.screens = new Screens(this);
    this.history = new ItemHistory(this);
    this.external = new External(this, config.opener ?? defaultOpener());
    this.tree = new TreeLoader(this);
    store.subscribe((action, previous, next) => this.onAction(action, previous, next));
  }

  get state(): State {
    return this.store.state;
  }

  get stopped(): boolean {
    return this.isStopped;
  }

  dispatch(action: Action): void {
    if (!this.isStopped) this.store.dispatch(action);
  }

  refetch(parts: Part[]): void {
    this.live.refetch(parts);
  }

  loadDetail(ref: string, delay?: number): void {
    this.detail.load(ref, delay);
  }

  noticed(notice: StreamNotice): void {
    this.screens.onNotice(notice);
    this.history.onNotice(notice);
  }

  async start(): Promise<void> {
    this.tickTimer = setInterval(() => this.dispatch({ type: 'tick', now: Date.now() }), 1000);
    this.tickTimer.unref?.();
    await this.connect();
  }

  stop(): void {
    this.isStopped = true;
    this.live.stop();
    this.detail.stop();
    this.commands.stop();
    this.screens.stop();
    this.history.stop();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.tickTimer) clearInterval(this.tickTimer);
  }

  private async connect(): Promise<void> {
    if (this.isStopped) return;
    const { api } = this.config;
    try {
      const early = this.earlyIdentity;
      this.earlyIdentity = null;
      const [me, { projects }] = await (early ?? Promise.all([api.whoami(), api.projects()]));
      this.dispatch({ type: 'actor', name: me.name, admin: me.is_admin });
      this.dispatch({ type: 'failure', failure: null });
      this.dispatch({ type: 'projects_loaded', projects });
    } catch (err) {
      this.failed(err);
      return;
    }
    this.started = true;
    this.live.open();
    this.live.refetch(['frontier', 'claims', 'machines', 'events', 'history']);
    this.live.safety();
  }

  failed(err: unknown): void {
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

  private onAction(action: Action, previous: State, next: State): void {
    if (this.isStopped) return;
    this.screens.onAction(action, previous, next);
    this.history.onAction(previous, next);
    this.external.onAction(previous, next);
    this.tree.onAction(previous, next);
    if (next.detailOpen && next.detail && next.detail.ref !== previous.detail?.ref) this.loadDetail(next.detail.ref);
    if (next.project !== previous.project) this.live.followProject();
    // followed only while it shows
    if (next.tab === 'events' && previous.tab !== 'events') this.refetch(['history']);
    if (next.project !== previous.project && next.project) {
      this.live.forgetEtag();
      this.refetch(['frontier', 'claims', 'history']);
    }
    this.triage.onAction(previous, next, action.type === 'key' ? action.action : null);
    this.live.followWindow();
    if (action.type !== 'key') return;
    if (action.action === 'refresh') {
      if (next.failure || !this.started) {
        if (this.retryTimer) clearTimeout(this.retryTimer);
        this.retryTimer = null;
        void this.connect();
      } else {
        this.live.forgetEtag();
        this.refetch(['projects', 'frontier', 'claims', 'machines', 'events', 'history']);
        if (next.detail) this.loadDetail(next.detail.ref, 0);
      }
      return;
    }
    this.commands.onKey(action, previous, next);
  }
}
