import { Inject, Injectable, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { EntityManager } from 'typeorm';

import { AccessService } from '../auth/access.service';
import { AuthenticatedActor } from '../auth/actor';
import { invalidRequest } from '../common/domain-error';
import { APP_CONFIG, AppConfig } from '../config/config';
import {
  DEFAULT_EVENTS_LIMIT,
  EventsListResponse,
  EventsQueryDto,
  EventsStreamQueryDto,
  parseSince,
  toEventResponse,
} from './dto/events.dto';
import { EventsStreamService, StreamMessage } from './events-stream.service';
import { EventsRepository, NewEvent } from './events.repository';

export const STREAM_HEARTBEAT_MS = 15_000;

@Injectable()
export class EventsService {
  private readonly logger = new Logger(EventsService.name);

  constructor(
    private readonly repository: EventsRepository,
    private readonly access: AccessService,
    private readonly stream: EventsStreamService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  // For events the decision depends on (e.g. inside the caller's transaction).
  record(event: NewEvent, manager?: EntityManager): Promise<{ id: string; created_at: Date }> {
    return this.repository.insert(event, manager);
  }

  // Telemetry that must never fail its caller (DbClaimAmended): a failure is logged and dropped.
  async recordBestEffort(event: NewEvent): Promise<void> {
    try {
      await this.repository.insert(event);
    } catch (err) {
      this.logger.warn(`event ${event.name} not recorded: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private async visibleProjects(actor: AuthenticatedActor): Promise<string[] | null> {
    if (actor.isAdmin) return null;
    return (await this.access.accessibleProjects(actor)).map((p) => p.id);
  }

  async query(actor: AuthenticatedActor, dto: EventsQueryDto): Promise<EventsListResponse> {
    const since = dto.since ? parseSince(dto.since) : undefined;
    if (since === null) throw invalidRequest('since is not a valid timestamp');
    const rows = await this.repository.query({
      name: dto.event_name,
      project: dto.project,
      itemRef: dto.item,
      since,
      limit: dto.limit ?? DEFAULT_EVENTS_LIMIT,
      projects: await this.visibleProjects(actor),
    });
    return { events: rows.map(toEventResponse) };
  }

  // Server-sent events: `event: <type>`, `id: <event id>`, `data: <json>`; a comment line every 15 s.
  async openStream(
    actor: AuthenticatedActor,
    dto: EventsStreamQueryDto,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<void> {
    const projects = await this.visibleProjects(actor);
    const visible = projects ? new Set(projects) : null;
    const wanted = (m: StreamMessage) =>
      (m.project === null || visible === null || visible.has(m.project)) &&
      (!dto.project || m.project === dto.project) &&
      (!dto.event_name || m.type !== 'event' || m.name === dto.event_name);
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    raw.write(': connected\nretry: 2000\n\n');
    const subscription = this.stream.messages.subscribe((m) => {
      if (!wanted(m)) return;
      raw.write(`${m.id ? `id: ${m.id}\n` : ''}event: ${m.type}\ndata: ${JSON.stringify(m.data)}\n\n`);
    });
    const heartbeat = setInterval(() => raw.write(': ping\n\n'), STREAM_HEARTBEAT_MS);
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      clearInterval(heartbeat);
      subscription.unsubscribe();
      unregister();
      raw.end();
    };
    const unregister = this.stream.onClose(close);
    request.raw.on('close', close);
  }

  // Retention by age; returns null when another replica holds the sweep.
  purgeExpired(): Promise<number | null> {
    return this.repository.deleteOlderThan(this.config.eventRetentionDays);
  }
}
