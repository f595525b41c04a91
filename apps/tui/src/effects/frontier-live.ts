import { writeFileSync } from 'node:fs';

import { FrontierChange, FrontierMirror, FrontierRead, SvcApi } from '@app/client';
import type { FrontierResultWire } from '@app/contracts';

import type { Action } from '../state/actions';
import { carryAnswerCounts } from '../state/answer-counts';
import type { State } from '../state/state';

export const FIRST_SCREEN_ITEMS = 200;

const BENCH_STATS = process.env.SVC_TUI_BENCH_STATS;
export const BENCH_STATS_EVERY_MS = 250;

export interface FrontierPrefetch {
  project: string;
  read: Promise<FrontierRead>;
  first: Promise<FrontierResultWire> | null;
}

export function prefetchFrontier(api: SvcApi, project: string): FrontierPrefetch {
  const read = api.frontier({ project });
  read.catch(() => undefined);
  const first = api.frontierFirstItems({ project }, FIRST_SCREEN_ITEMS);
  first.catch(() => undefined);
  return { project, read, first };
}

export class LiveFrontier {
  private mirror: FrontierMirror | null = null;
  // once the full answer (or a delta) is shown, the first items may no longer replace it
  private shown = false;
  private statsTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly api: SvcApi,
    private readonly state: () => State,
    private readonly dispatch: (action: Action) => void,
    private readonly changed: () => void,
    private early: FrontierPrefetch | null,
  ) {}

  get stats() {
    return this.mirror?.stats ?? null;
  }

  reset(): void {
    this.mirror = null;
    this.shown = false;
  }

  sync(): Promise<void> {
    const mirror = this.mirrorOf();
    if (!mirror) return Promise.resolve();
    const early = this.early;
    this.early = null;
    if (early?.project === mirror.query.project && mirror.answer === null) return this.fromPrefetch(mirror, early);
    return mirror.sync();
  }

  notice(etag: string | null): Promise<void> {
    const mirror = this.mirrorOf();
    return mirror ? mirror.notice(etag) : Promise.resolve();
  }

  private async fromPrefetch(mirror: FrontierMirror, early: FrontierPrefetch): Promise<void> {
    early.first
      ?.then((first) => {
        if (!this.shown && this.mirror === mirror) {
          this.dispatch({ type: 'frontier_loaded', project: mirror.query.project, frontier: first });
        }
      })
      .catch(() => undefined);
    const read = await early.read;
    if (read.notModified) return mirror.sync();
    if (this.mirror === mirror) mirror.seed(read.body, read.etag);
  }

  private mirrorOf(): FrontierMirror | null {
    const project = this.state().project;
    if (!project) return null;
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
    // a delta applies to the answer shown; after the first items (or anything else) the whole answer goes in
    if (change.kind === 'delta' && this.shown && state.frontier === change.previous) {
      carryAnswerCounts(change.previous, change.delta, change.answer);
      this.dispatch({ type: 'frontier_delta', project, frontier: change.answer, delta: change.delta });
    } else {
      this.dispatch({ type: 'frontier_loaded', project, frontier: change.answer });
    }
    this.shown = true;
    this.changed();
    // Counters at most every BENCH_STATS_EVERY_MS, not after each delta: the bench would charge the writes to the TUI.
    if (BENCH_STATS && this.statsTimer === null) {
      this.statsTimer = setTimeout(() => {
        this.statsTimer = null;
        writeFileSync(BENCH_STATS, JSON.stringify(mirror.stats));
      }, BENCH_STATS_EVERY_MS);
      this.statsTimer.unref();
    }
  }
}
