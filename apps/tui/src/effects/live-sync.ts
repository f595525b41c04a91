import {
  FollowingEventStream,
  FrontierNoticeTracker,
  isHttpError,
  openFollowingEventStream,
  SvcConnectionError,
} from '@app/client';

import { CHANGES_PAGE } from '../state/state';
import type { StreamNotice } from '../wire';
import { describe, EffectsContext, Part, Prefetch } from './context';
import { LiveFrontier } from './frontier-live';

export const REFETCH_INTERVAL_MS = 250;
// A slow safety net under the event stream (a notice lost while reconnecting, a clock-driven change).
export const SAFETY_REFETCH_MS = 30_000;

export class LiveSync {
  private stream: FollowingEventStream | null = null;
  private pending = new Set<Part>();
  private inFlight = false;
  private lastFetch = 0;
  private refetchTimer: NodeJS.Timeout | null = null;
  private safetyTimer: NodeJS.Timeout | null = null;
  private readonly frontier: LiveFrontier;
  private readonly notices = new FrontierNoticeTracker();

  constructor(
    private readonly ctx: EffectsContext,
    early: Prefetch['frontier'] = null,
  ) {
    this.frontier = new LiveFrontier(
      ctx.config.api,
      () => ctx.state,
      (action) => ctx.dispatch(action),
      () => {
        const now = ctx.state;
        if (now.detailOpen && now.detail) ctx.loadDetail(now.detail.ref, 0);
      },
      early,
      ctx.config.windowAbove,
    );
  }

  // after each action (a window of the answer follows the list, filter, sort and cursor)
  followWindow(): void {
    this.frontier.follow();
  }

  stop(): void {
    this.stream?.close();
    this.stream = null;
    for (const t of [this.refetchTimer, this.safetyTimer]) if (t) clearTimeout(t);
  }

  forgetEtag(): void {
    this.frontier.reset();
  }

  // Only the project shown: the daemon computes a project's frontier after each change for every stream following it,
  // so following all (an administrator sees every project) would make it compute every project written to.
  private followed(): string[] {
    const project = this.ctx.state.project;
    return project ? [project] : [];
  }

  // Make before break (no notice lost, no 'reconnecting'); the new connection's 'open' resets the tracker, so the
  // project's change notices move the frontier until its first frontier notice.
  followProject(): void {
    this.stream?.follow(this.followed());
  }

  open(): void {
    const { config } = this.ctx;
    this.stream?.close();
    this.stream = openFollowingEventStream(
      {
        baseUrl: config.api.baseUrl,
        token: config.token,
        frontier: this.followed(),
        maxRetryMs: config.maxRetryMs ?? 5000,
        onNotice: (notice) => this.onNotice(notice),
        onStatus: (status, detail) => {
          if (this.ctx.stopped) return;
          if (status === 'open') {
            // a new connection, perhaps to an older replica: its frontier notices are not known yet
            this.notices.reset();
            const afterGap = this.ctx.state.connection === 'reconnecting' || this.ctx.state.connection === 'offline';
            this.ctx.dispatch({ type: 'connection', state: 'live' });
            // back after a gap: everything may have changed meanwhile (the first opening follows the first fetch)
            if (afterGap) this.refetch(['projects', 'frontier', 'claims', 'machines', 'events', 'history']);
          } else if (status === 'reconnecting') {
            this.ctx.dispatch({ type: 'connection', state: 'reconnecting' });
          } else if (status === 'closed' && detail?.error) {
            this.ctx.failed(detail.error);
          }
        },
      },
      config.openStream,
    );
  }

  private onNotice(notice: StreamNotice): void {
    // a deployment run's events and changes do not always name the item
    const state = this.ctx.state;
    const detail = state.detailOpen ? state.detail : null;
    if (detail && notice.data.name !== 'FrontierComputed') {
      // a recorded event names its item as item_ref (an ItemCommented event: a comment the pane shows)
      const aboutItem =
        notice.data.item_id === detail.ref || notice.data.ref === detail.ref || notice.data.item_ref === detail.ref;
      if (aboutItem || (detail.pipeline && notice.type !== 'machine_authorization')) this.ctx.loadDetail(detail.ref);
    }
    switch (notice.type) {
      case 'event': {
        const name = typeof notice.data.name === 'string' ? notice.data.name : '';
        // a frontier read records FrontierComputed: refetching the frontier on it would loop
        if (name !== 'FrontierComputed') this.frontierMove(notice);
        this.refetch(name === 'FrontierComputed' ? ['events'] : ['events', 'claims', 'history']);
        break;
      }
      case 'frontier':
        this.frontierMove(notice);
        break;
      case 'machine_authorization':
        this.refetch(['machines', 'history']);
        break;
      case 'item':
      case 'items':
      case 'dependency':
      case 'claim':
      case 'claims':
        this.frontierMove(notice);
        this.refetch(['claims', 'history']);
        break;
      default:
        break;
    }
    this.ctx.noticed(notice);
  }

  // Once this connection has announced a project's frontier ETags only those move it: a change notice before them
  // would make a second read of the same change.
  private frontierMove(notice: StreamNotice): void {
    const move = this.notices.move(notice);
    if (move === null) return;
    if (move.announced && move.project !== this.ctx.state.project) return;
    this.frontierNotice(move.etag);
  }

  private frontierNotice(etag: string | null): void {
    if (this.ctx.stopped) return;
    void this.guard('frontier', () => this.frontier.notice(etag));
  }

  safety(): void {
    if (this.safetyTimer) clearTimeout(this.safetyTimer);
    this.safetyTimer = setTimeout(() => {
      this.refetch(['projects', 'frontier', 'claims', 'machines', 'events', 'history']);
      this.safety();
    }, SAFETY_REFETCH_MS);
    this.safetyTimer.unref?.();
  }

  refetch(parts: Part[]): void {
    parts.forEach((p) => (p !== 'history' || this.ctx.state.tab === 'events') && this.pending.add(p));
    if (this.inFlight || this.refetchTimer || this.ctx.stopped) return;
    const wait = Math.max(0, this.lastFetch + REFETCH_INTERVAL_MS - Date.now());
    this.refetchTimer = setTimeout(() => {
      this.refetchTimer = null;
      void this.runRefetch();
    }, wait);
  }

  private async runRefetch(): Promise<void> {
    if (this.ctx.stopped || this.pending.size === 0) return;
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
        parts.has('history') ? this.loadHistory() : null,
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
      if (this.ctx.stopped) return;
      if (err instanceof SvcConnectionError) {
        this.ctx.dispatch({ type: 'connection', state: 'reconnecting' });
      } else if (isHttpError(err, 401)) {
        this.ctx.failed(err);
      } else {
        this.ctx.dispatch({ type: 'status', text: `${what}: ${describe(err)}`, tone: 'error' });
      }
    }
  }

  loadProjects(): Promise<void> {
    return this.guard('projects', async () => {
      const { projects } = await this.ctx.config.api.projects();
      this.ctx.dispatch({ type: 'projects_loaded', projects });
    });
  }

  private loadFrontier(): Promise<void> {
    if (!this.ctx.state.project) return Promise.resolve();
    return this.guard('frontier', () => this.frontier.sync());
  }

  private loadClaims(): Promise<void> {
    const project = this.ctx.state.project;
    if (!project) return Promise.resolve();
    return this.guard('claims', async () => {
      try {
        const body = await this.ctx.config.api.claims(project);
        this.ctx.dispatch({ type: 'claims_loaded', project, claims: body.claims });
      } catch (err) {
        // a daemon without the claims route: no holder column, not an error
        if (!isHttpError(err, 404) || err.code === 'project_not_found') throw err;
      }
    });
  }

  private loadMachines(): Promise<void> {
    return this.guard('machine requests', async () => {
      try {
        const body = await this.ctx.config.api.machineAuthorizationRequests();
        this.ctx.dispatch({ type: 'machines_loaded', requests: body.requests });
      } catch (err) {
        // not an approver here (403), or a daemon without the list route (404): an empty tab
        if (isHttpError(err, 403) || isHttpError(err, 404))
          this.ctx.dispatch({ type: 'machines_loaded', requests: [] });
        else throw err;
      }
    });
  }

  private loadHistory(): Promise<void> {
    const project = this.ctx.state.project;
    if (!project) return Promise.resolve();
    return this.guard('history', async () => {
      try {
        const body = await this.ctx.config.api.history({ project, limit: CHANGES_PAGE });
        this.ctx.dispatch({ type: 'changes_loaded', project, changes: body.changes });
      } catch (err) {
        // a daemon without the record (404), or a project the caller may no longer read: no change rows
        if (isHttpError(err, 404) || isHttpError(err, 403)) {
          this.ctx.dispatch({ type: 'changes_loaded', project, changes: [] });
        } else throw err;
      }
    });
  }

  private loadEvents(): Promise<void> {
    return this.guard('events', async () => {
      const body = await this.ctx.config.api.events({ limit: 200 });
      this.ctx.dispatch({ type: 'events_loaded', events: body.events });
    });
  }
}
