import { applyFrontierDelta, FrontierDeltaWire, FrontierResultWire } from '@app/contracts';

import type { FrontierRead, FrontierSinceRead } from './api';

export interface FrontierSource {
  frontier(q: { project: string; wip_cap?: number | string }, etag?: string | null): Promise<FrontierRead>;
  frontierSince(q: { project: string; wip_cap?: number | string }, since: string): Promise<FrontierSinceRead>;
}

export type FrontierChange =
  | { kind: 'full'; answer: FrontierResultWire; etag: string | null; reason: string | null }
  | { kind: 'delta'; answer: FrontierResultWire; etag: string; previous: FrontierResultWire; delta: FrontierDeltaWire };

export interface FrontierMirrorStats {
  full: number;
  deltas: number;
  fallbacks: number;
  notModified: number;
  skipped: number;
}

// One request at a time: changes announced while one is in flight make exactly one more after it (coalesced by "in
// flight", never by a timer).
export class FrontierMirror {
  answer: FrontierResultWire | null = null;
  etag: string | null = null;
  readonly stats: FrontierMirrorStats = { full: 0, deltas: 0, fallbacks: 0, notModified: 0, skipped: 0 };
  private inFlight: Promise<void> | null = null;
  private again = false;
  private announced: string | null = null;
  private unknown = false;

  constructor(
    private readonly source: FrontierSource,
    readonly query: { project: string; wip_cap?: number | string },
    private readonly onChange: (change: FrontierChange) => void = () => undefined,
  ) {}

  seed(answer: FrontierResultWire, etag: string | null): void {
    this.answer = answer;
    this.etag = etag;
    this.stats.full++;
    this.onChange({ kind: 'full', answer, etag, reason: null });
  }

  notice(etag: string | null): Promise<void> {
    if (etag !== null && etag === this.etag && this.inFlight === null) {
      this.stats.skipped++;
      return Promise.resolve();
    }
    return this.sync(etag);
  }

  sync(announced: string | null = null): Promise<void> {
    if (this.inFlight !== null) {
      this.again = true;
      if (announced === null) this.unknown = true;
      else this.announced = announced;
      return this.inFlight;
    }
    const run = async (): Promise<void> => {
      try {
        for (;;) {
          this.again = false;
          this.unknown = false;
          this.announced = null;
          await this.fetchOnce();
          if (!this.again) break;
          // the notices meanwhile all named the ETag now held: nothing more to fetch
          if (!this.unknown && this.announced === this.etag) {
            this.stats.skipped++;
            break;
          }
        }
      } finally {
        this.inFlight = null;
      }
    };
    this.inFlight = run();
    return this.inFlight;
  }

  private async fetchOnce(): Promise<void> {
    if (this.answer === null || this.etag === null) {
      await this.fetchFull(null);
      return;
    }
    const read = await this.source.frontierSince(this.query, this.etag);
    if (read.kind === 'not_modified') {
      this.stats.notModified++;
      return;
    }
    if (read.kind === 'full') {
      this.stats.fallbacks++;
      this.replace(read.body, read.etag, read.reason);
      return;
    }
    const previous = this.answer;
    let answer: FrontierResultWire;
    try {
      if (read.delta.base !== this.etag) throw new Error('frontier delta from another base');
      answer = applyFrontierDelta(previous, read.delta);
    } catch {
      this.stats.fallbacks++;
      await this.fetchFull('delta_mismatch');
      return;
    }
    this.answer = answer;
    this.etag = read.etag;
    this.stats.deltas++;
    this.onChange({ kind: 'delta', answer, etag: read.etag, previous, delta: read.delta });
  }

  private async fetchFull(reason: string | null): Promise<void> {
    const read = await this.source.frontier(this.query);
    if (read.notModified) return;
    this.replace(read.body, read.etag, reason);
  }

  private replace(answer: FrontierResultWire, etag: string | null, reason: string | null): void {
    this.answer = answer;
    this.etag = etag;
    this.stats.full++;
    this.onChange({ kind: 'full', answer, etag, reason });
  }
}
