import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { Subscription } from 'rxjs';

import { EventsStreamService, StreamMessage } from '../../events/events-stream.service';
import { FRONTIER_NOTICE } from '../../events/stream-follow';
import { wipCapOf } from './frontier-projects';
import { FrontierRepository } from './frontier.repository';
import { FrontierService } from './frontier.service';

// The live stream's frontier notice (issue 27, deliverable 2): after changes in a project, every stream that follows
// it (asked for it with `?frontier=` or its `project` filter, and may see it: events/stream-follow.ts) receives
// `event: frontier` with `{"project", "etag"}`, the ETag of the default answer (no wip_cap
// parameter) as GET /v1/charge/frontier sends it. A client holding that ETag does nothing; one behind asks for the
// delta since the ETag it holds.
//
// Each replica makes its own notices from the changes it hears (the NOTIFYs of every replica reach every listener):
// the ETag is a hash of the body, so every replica names the same one for the same rows. The answer is computed by
// FrontierService.frontierBody, so the computation is the cached one the client's following read is served from.

// A notice that may change a project's frontier: every notice about a project but the frontier notices themselves,
// machine authorizations and FrontierComputed (recorded by every frontier read: following it would loop).
export function movesFrontier(m: StreamMessage): m is StreamMessage & { project: string } {
  if (m.project === null || m.type === FRONTIER_NOTICE || m.type === 'machine_authorization') return false;
  return !(m.type === 'event' && m.name === 'FrontierComputed');
}

export function frontierNotice(project: string, etag: string | null): StreamMessage {
  return { channel: FRONTIER_NOTICE, type: FRONTIER_NOTICE, id: null, project, name: null, data: { project, etag } };
}

// Per key, one run at a time: touches while a run is in flight mark the key dirty and make exactly one more run
// after it (however many they were); touches before a run starts join it. A run starts on the next turn of the
// event loop (setImmediate: the notices of one commit arrive together), never after a fixed delay. `wanted` is
// asked before every run: a key nobody wants any more is dropped.
export class InFlightCoalescer {
  private readonly entries = new Map<string, { dirty: boolean }>();

  constructor(
    private readonly run: (key: string) => Promise<void>,
    private readonly wanted: (key: string) => boolean,
    private readonly defer: (start: () => void) => void = (start) => setImmediate(start),
  ) {}

  // Keys queued or running.
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
        await this.run(key).catch(() => undefined);
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

  // A project nobody on this replica follows costs nothing.
  changed(m: StreamMessage): void {
    if (this.stopped || !movesFrontier(m) || !this.stream.followed(m.project)) return;
    this.coalescer.touch(m.project);
  }

  // The default answer's ETag (a FrontierComputed row is not recorded: no caller asked). A computation that fails
  // is announced with etag null, "changed, ETag unknown": clients then read as they did before these notices.
  private async announce(projectId: string): Promise<void> {
    let etag: string | null;
    try {
      const project = await this.repository.findProject(projectId);
      // deleted meanwhile: nothing to announce
      if (project === null) return;
      etag = (await this.frontier.frontierBody(project, wipCapOf(project, undefined), null, false)).etag;
    } catch (err) {
      this.logger.warn(`frontier notice of ${projectId}: ${err instanceof Error ? err.message : String(err)}`);
      etag = null;
    }
    if (!this.stopped) this.stream.publish(frontierNotice(projectId, etag));
  }
}
