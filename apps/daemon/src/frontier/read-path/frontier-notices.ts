import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { Subscription } from 'rxjs';

import { EventsStreamService, StreamMessage } from '../../events/events-stream.service';
import { FRONTIER_NOTICE } from '../../events/stream-follow';
import { wipCapOf } from './frontier-projects';
import { FrontierRepository } from './frontier.repository';
import { FrontierService } from './frontier.service';

// A client holding the notice's ETag does nothing, one behind asks for the delta. Each replica makes its own
// notices: the ETag hashes the body, so all name the same one, and frontierBody warms the client's next read.

// Not FrontierComputed: every frontier read records one, so following it would loop.
export function movesFrontier(m: StreamMessage): m is StreamMessage & { project: string } {
  if (m.project === null || m.type === FRONTIER_NOTICE || m.type === 'machine_authorization') return false;
  return !(m.type === 'event' && m.name === 'FrontierComputed');
}

export function frontierNotice(project: string, etag: string | null): StreamMessage {
  return { channel: FRONTIER_NOTICE, type: FRONTIER_NOTICE, id: null, project, name: null, data: { project, etag } };
}

// After a run that left its key touched again, the next one waits `ratio` times as long as that run took, at most
// `maxMs` (ADR 0094): under a stream of writes a followed project's computations then take at most 1 / (1 + ratio)
// of the thread that also answers the writes, and each one covers the writes of its pause. A run after a quiet spell
// starts at once.
export interface Pace {
  ratio: number;
  maxMs: number;
}

// FrontierNotices' pace (ADR 0094, retuned by ADR 0110): a computation of 10 ms or more waits 60 ms, so the notice's
// latency goes to a fixed pause and a cheaper computation leaves the thread to the writes (at 100k items under 8
// mixed writers: a notice p50 of 65–69 ms, and about a tenth more writes than a pause of twice the computation, which
// held the computations at a third of the thread whatever they cost). A small project's runs still wait little.
export const NOTICE_PACE: Pace = { ratio: 6, maxMs: 60 };

// Per key, one run at a time: touches during a run make exactly one more run after it (paced, above); touches before
// a run starts join it. Runs start on the next turn (setImmediate: the notices of one commit arrive together). A key
// nobody `wanted` any more is dropped.
export class InFlightCoalescer {
  private readonly entries = new Map<string, { dirty: boolean }>();

  constructor(
    private readonly run: (key: string) => Promise<void>,
    private readonly wanted: (key: string) => boolean,
    private readonly pace: Pace | null = null,
    private readonly defer: (start: () => void) => void = (start) => setImmediate(start),
    private readonly wait: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
    private readonly now: () => number = () => performance.now(),
  ) {}

  get pending(): number {
    return this.entries.size;
  }

  touch(key: string): void {
    const entry = this.entries.get(key);
    if (entry) {
      entry.dirty = true;
      return;
    }
    const fresh = { dirty: true };
    this.entries.set(key, fresh);
    this.defer(() => void this.loop(key, fresh));
  }

  private async loop(key: string, entry: { dirty: boolean }): Promise<void> {
    try {
      while (entry.dirty && this.wanted(key)) {
        entry.dirty = false;
        const started = this.now();
        await this.run(key).catch(() => undefined);
        if (this.pace && entry.dirty) {
          await this.wait(Math.min(this.pace.maxMs, (this.now() - started) * this.pace.ratio));
        }
      }
    } finally {
      this.entries.delete(key);
    }
  }
}

@Injectable()
export class FrontierNotices implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(FrontierNotices.name);
  private subscription: Subscription | null = null;
  private stopped = false;
  private readonly coalescer = new InFlightCoalescer(
    (project) => this.announce(project),
    (project) => !this.stopped && this.stream.followed(project),
    NOTICE_PACE,
  );

  constructor(
    private readonly stream: EventsStreamService,
    private readonly frontier: FrontierService,
    private readonly repository: FrontierRepository,
  ) {}

  onModuleInit(): void {
    this.subscription = this.stream.messages.subscribe((m) => this.changed(m));
  }

  onModuleDestroy(): void {
    this.stopped = true;
    this.subscription?.unsubscribe();
  }

  changed(m: StreamMessage): void {
    if (this.stopped || !movesFrontier(m) || !this.stream.followed(m.project)) return;
    this.coalescer.touch(m.project);
  }

  // A failed computation is announced with etag null ("changed, ETag unknown"): clients then read in full.
  private async announce(projectId: string): Promise<void> {
    let etag: string | null;
    try {
      const project = await this.repository.findProject(projectId);
      if (project === null) return;
      etag = (await this.frontier.frontierBody(project, wipCapOf(project, undefined), null, false)).etag;
    } catch (err) {
      this.logger.warn(`frontier notice of ${projectId}: ${err instanceof Error ? err.message : String(err)}`);
      etag = null;
    }
    if (!this.stopped) this.stream.publish(frontierNotice(projectId, etag));
  }
}
