import { writeFileSync } from 'node:fs';

import { FrontierChange, FrontierMirror, FrontierRead, FrontierWindowQuery, SvcApi } from '@app/client';
import { FRONTIER_WINDOW_MAX_ROWS } from '@app/contracts';
import type { FrontierWindowWire } from '@app/contracts';

import type { Action } from '../state/actions';
import { carryAnswerCounts } from '../state/answer-counts';
import { effectiveFilter, selectedIndex, windowOf } from '../state/selectors';
import { isFrontierTab, State } from '../state/state';

export const FIRST_SCREEN_ITEMS = 200;
// Above this many items (runnable, blocked and frozen) the TUI holds a window of the answer, not the whole of it
// (docs/user-guide.md, "A project too large to hold"); SVC_TUI_WINDOW_ABOVE sets another.
export const WINDOW_ABOVE = 200_000;
// Rows a window holds, and how near its edge the cursor comes before the next window is read around it (more for a
// list taller than a quarter of them).
export const WINDOW_ROWS = 200;
export const WINDOW_MARGIN = 50;

const BENCH_STATS = process.env.SVC_TUI_BENCH_STATS;
export const BENCH_STATS_EVERY_MS = 250;

export interface FrontierPrefetch {
  project: string;
  // the first screen: a window of the runnable list, with every list's length
  first: Promise<FrontierWindowWire>;
  // the whole answer, read once the first screen says it is small enough to hold; null: a window project
  read: Promise<FrontierRead | null>;
}

export function answerItems(w: FrontierWindowWire): number {
  const t = w.window.totals;
  return t.runnable + t.blocked + t.frozen;
}

// Unhandled rejections are avoided here; the live frontier reads the outcomes.
export function prefetchFrontier(api: SvcApi, project: string, windowAbove = WINDOW_ABOVE): FrontierPrefetch {
  const first = api.frontierWindow({ project, list: 'runnable', offset: 0, limit: FIRST_SCREEN_ITEMS });
  first.catch(() => undefined);
  // a daemon without the window route: the whole answer, as before it
  const read = first.then(
    (w) => (answerItems(w) > windowAbove ? null : api.frontier({ project })),
    () => api.frontier({ project }),
  );
  read.catch(() => undefined);
  return { project, first, read };
}

function sameWindow(a: FrontierWindowQuery | null, b: FrontierWindowQuery): boolean {
  return (
    a !== null &&
    a.project === b.project &&
    a.list === b.list &&
    a.offset === b.offset &&
    a.filter === b.filter &&
    a.sort === b.sort &&
    a.desc === b.desc
  );
}

// The window the screen wants: the list shown (or the last one read), the filter and sort, and rows around the
// cursor. The window read last stays while the cursor is well inside it.
export function wantedWindow(state: State, project: string): FrontierWindowQuery {
  const w = windowOf(state);
  const list = isFrontierTab(state.tab) ? state.tab : (w?.list ?? 'runnable');
  const filter = effectiveFilter(state, list).trim();
  const sort = state.sort ?? 'rank';
  const desc = state.sortDesc ?? false;
  const cursor = Math.max(0, state.tab === list ? selectedIndex(state, list) : state.cursors[list].index);
  // a tall list holds more: a page and more on either side of the cursor
  const rows = Math.min(FRONTIER_WINDOW_MAX_ROWS, Math.max(WINDOW_ROWS, 4 * state.pageSize));
  const margin = Math.max(WINDOW_MARGIN, state.pageSize);
  let offset = Math.max(0, cursor - Math.floor(rows / 2));
  if (w && w.list === list && w.filter === filter && w.sort === sort && w.desc === desc) {
    const end = w.offset + (state.frontier?.[list].length ?? 0);
    const top = w.offset === 0 || cursor >= w.offset + margin;
    const bottom = end >= w.total || cursor < end - margin;
    if (top && bottom) offset = w.offset;
  }
  return { project, list, offset, limit: rows, filter, sort, desc };
}

export class LiveFrontier {
  private mirror: FrontierMirror | null = null;
  // once the full answer (or a delta) is shown, the first screen may no longer replace it
  private shown = false;
  private statsTimer: NodeJS.Timeout | null = null;
  // the project held as a window of the answer, the window read last, and whether a change made it stale
  private windowed: string | null = null;
  private windowRead: FrontierWindowQuery | null = null;
  private windowStale = false;
  private windowBusy: Promise<void> | null = null;
  private windows = 0;
  // a project's first screen is on its way and says whether it is held whole or as windows: syncs and notices wait
  // for it (a notice before it would read the whole answer of a project that turns out too large to hold)
  private deciding: { project: string; done: Promise<void> } | null = null;

  constructor(
    private readonly api: SvcApi,
    private readonly state: () => State,
    private readonly dispatch: (action: Action) => void,
    private readonly changed: () => void,
    private early: FrontierPrefetch | null,
    private readonly windowAbove = WINDOW_ABOVE,
  ) {}

  get stats() {
    if (this.windowed) return { full: this.windows, deltas: 0, fallbacks: 0, windows: this.windows };
    return this.mirror?.stats ?? null;
  }

  reset(): void {
    this.mirror = null;
    this.shown = false;
    this.windowed = null;
    this.windowRead = null;
    this.deciding = null;
  }

  sync(): Promise<void> {
    const project = this.state().project;
    if (!project) return Promise.resolve();
    if (this.deciding?.project === project) return this.deciding.done.then(() => this.sync());
    if (this.windowed === project) return this.readWindow(true);
    const mirror = this.mirrorOf(project);
    const early = this.early;
    this.early = null;
    if (mirror.answer !== null) return mirror.sync();
    // a project not read yet: its first screen says whether the whole answer is held or a window of it
    const first = early?.project === project ? early : prefetchFrontier(this.api, project, this.windowAbove);
    const done: Promise<void> = this.fromPrefetch(mirror, first).finally(() => {
      if (this.deciding?.done === done) this.deciding = null;
    });
    this.deciding = { project, done };
    return done;
  }

  notice(etag: string | null): Promise<void> {
    const project = this.state().project;
    if (!project) return Promise.resolve();
    if (this.deciding?.project === project) return this.deciding.done.then(() => this.notice(etag));
    if (this.windowed === project) {
      if (etag !== null && etag === windowOf(this.state())?.etag) return Promise.resolve();
      return this.readWindow(true);
    }
    return this.mirrorOf(project).notice(etag);
  }

  // After each action: a window project reads the window the screen now wants (another list, filter or sort, or the
  // cursor near the edge of the rows held). A failure waits for the next change or the safety refetch.
  follow(): void {
    if (this.windowed === null || this.windowed !== this.state().project) return;
    this.readWindow(false).catch(() => undefined);
  }

  private async fromPrefetch(mirror: FrontierMirror, early: FrontierPrefetch): Promise<void> {
    early.first
      .then((first) => {
        if (!this.shown && this.mirror === mirror) {
          this.dispatch({ type: 'frontier_loaded', project: mirror.query.project, frontier: first });
        }
      })
      .catch(() => undefined);
    const read = await early.read;
    if (this.mirror !== mirror) return;
    if (read === null) {
      this.mirror = null;
      this.windowed = mirror.query.project;
      this.windowRead = null;
      return this.readWindow(true);
    }
    if (read.notModified) return mirror.sync();
    mirror.seed(read.body, read.etag);
  }

  // One read at a time; when it lands, the screen may want another (the user moved on, or a change came).
  private readWindow(stale: boolean): Promise<void> {
    this.windowStale ||= stale;
    if (this.windowBusy) return this.windowBusy;
    // (the loop may end at once: the busy mark is cleared after it is set, never before)
    const busy: Promise<void> = this.windowLoop().finally(() => {
      if (this.windowBusy === busy) this.windowBusy = null;
    });
    this.windowBusy = busy;
    return busy;
  }

  private async windowLoop(): Promise<void> {
    for (;;) {
      const project = this.windowed;
      const state = this.state();
      if (project === null || state.project !== project) return;
      const query = wantedWindow(state, project);
      if (!this.windowStale && sameWindow(this.windowRead, query)) return;
      this.windowStale = false;
      let body: FrontierWindowWire;
      try {
        body = await this.api.frontierWindow(query);
      } catch (err) {
        // read again on the next action or change
        this.windowStale = true;
        throw err;
      }
      if (this.windowed !== project) return;
      this.windowRead = query;
      this.windows++;
      this.dispatch({ type: 'frontier_loaded', project, frontier: body });
      this.shown = true;
      this.changed();
      this.writeStats();
    }
  }

  private mirrorOf(project: string): FrontierMirror {
    if (this.mirror?.query.project !== project) {
      this.shown = false;
      const mirror: FrontierMirror = new FrontierMirror(this.api, { project }, (change) => this.apply(mirror, change));
      this.mirror = mirror;
    }
    return this.mirror;
  }

  private apply(mirror: FrontierMirror, change: FrontierChange): void {
    if (this.mirror !== mirror) return;
    const project = mirror.query.project;
    const state = this.state();
    // a delta applies to the answer shown; after the first screen (or anything else) the whole answer goes in
    if (change.kind === 'delta' && this.shown && state.frontier === change.previous) {
      carryAnswerCounts(change.previous, change.delta, change.answer);
      this.dispatch({ type: 'frontier_delta', project, frontier: change.answer, delta: change.delta });
    } else {
      this.dispatch({ type: 'frontier_loaded', project, frontier: change.answer });
    }
    this.shown = true;
    this.changed();
    this.writeStats();
  }

  // Counters at most every BENCH_STATS_EVERY_MS, not after each change: the bench would charge the writes to the TUI.
  private writeStats(): void {
    if (!BENCH_STATS || this.statsTimer !== null) return;
    this.statsTimer = setTimeout(() => {
      this.statsTimer = null;
      writeFileSync(BENCH_STATS, JSON.stringify(this.stats));
    }, BENCH_STATS_EVERY_MS);
    this.statsTimer.unref();
  }
}
