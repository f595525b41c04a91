import { Inject, Injectable, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { EntityManager } from 'typeorm';

import { AccessService } from '../auth/access.service';
import { AuthenticatedActor } from '../auth/actor';
import { invalidRequest } from '../common/domain-error';
import { APP_CONFIG, AppConfig } from '../config/config';
import {
  DEFAULT_EVENTS_LIMIT,
  EVENT_ID_PATTERN,
  EventsListResponse,
  EventsQueryDto,
  EventsStreamQueryDto,
  parseSince,
  toEventResponse,
} from './dto/events.dto';
import { EventsStreamService, StreamMessage } from './events-stream.service';
import { EventsRepository, NewEvent, REPLAY_LIMIT } from './events.repository';

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

  // Telemetry that must never fail its caller (DbClaimAmended, FrontierComputed): a failure is logged and dropped,
  // and the commit does not wait for the WAL flush (a PostgreSQL crash may drop the last instant of it).
  async recordBestEffort(event: NewEvent): Promise<void> {
    try {
      await this.repository.insert(event, undefined, true);
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

  // Server-sent events: `event: <type>`, `id: <event id>` (recorded events only), `data: <json>`; a comment line
  // every 15 s. A client reconnecting with Last-Event-ID (or ?last_event_id=) first gets the recorded events it
  // missed (the newest REPLAY_LIMIT of them, filtered as the live ones; `event: replay_truncated` says when older
  // ones were left out), then the live stream; live messages arriving meanwhile are held and sent after, without
  // the replayed ones. Item, claim and machine-authorization notices carry no id and are not replayed.
  async openStream(
    actor: AuthenticatedActor,
    dto: EventsStreamQueryDto,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<void> {
    const header = request.headers['last-event-id'];
    const lastEventId = (Array.isArray(header) ? header[0] : header)?.trim() || dto.last_event_id || null;
    if (lastEventId !== null && !EVENT_ID_PATTERN.test(lastEventId)) {
      throw invalidRequest('Last-Event-ID must be an event id (a whole number)');
    }
    const projects = await this.visibleProjects(actor);
    const visible = projects ? new Set(projects) : null;
    const machines = actor.isAdmin
      ? null
      : await this.repository.machineNoticeScope(actor.id, this.config.mode === 'hosted');
    const wanted = (m: StreamMessage) => {
      if (m.type === 'machine_authorization') {
        if (machines === null) return true;
        const org = m.data.org;
        return typeof org === 'string' ? machines.orgs.has(org) : machines.unbound;
      }
      return (
        (m.project === null || visible === null || visible.has(m.project)) &&
        (!dto.project || m.project === dto.project) &&
        (!dto.event_name || m.type !== 'event' || m.name === dto.event_name)
      );
    };
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    raw.write(': connected\nretry: 2000\n\n');
    let closed = false;
    const send = (m: { id: string | null; type: string; data: Record<string, unknown> }) => {
      if (!closed) raw.write(`${m.id ? `id: ${m.id}\n` : ''}event: ${m.type}\ndata: ${JSON.stringify(m.data)}\n\n`);
    };
    // Held while the replay is read: the subscription starts first so nothing committed meanwhile is lost.
    let held: StreamMessage[] | null = lastEventId === null ? null : [];
    const subscription = this.stream.messages.subscribe((m) => {
      if (!wanted(m)) return;
      if (held) held.push(m);
      else send(m);
    });
    const heartbeat = setInterval(() => raw.write(': ping\n\n'), STREAM_HEARTBEAT_MS);
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
    if (lastEventId !== null)
      await this.replay(
        lastEventId,
        dto,
        projects,
        send,
        () => held ?? [],
        () => (held = null),
      );
  }

  private async replay(
    lastEventId: string,
    dto: EventsStreamQueryDto,
    projects: string[] | null,
    send: (m: { id: string | null; type: string; data: Record<string, unknown> }) => void,
    takeHeld: () => StreamMessage[],
    release: () => void,
  ): Promise<void> {
    const replayed = new Set<string>();
    try {
      const rows = await this.repository.replayAfter({
        afterId: lastEventId,
        name: dto.event_name,
        project: dto.project,
        projects,
        limit: REPLAY_LIMIT + 1,
      });
      if (rows.length > REPLAY_LIMIT) {
        rows.shift();
        send({
          id: null,
          type: 'replay_truncated',
          data: { type: 'replay_truncated', last_event_id: lastEventId, replayed: REPLAY_LIMIT },
        });
      }
      for (const row of rows) {
        replayed.add(row.id);
        // the same body as the live NOTIFY of a recorded event
        send({
          id: row.id,
          type: 'event',
          data: { type: 'event', id: Number(row.id), name: row.name, project: row.project, item_ref: row.item_ref },
        });
      }
    } catch (err) {
      this.logger.warn(`event replay failed: ${err instanceof Error ? err.message : String(err)}`);
      send({
        id: null,
        type: 'replay_truncated',
        data: { type: 'replay_truncated', last_event_id: lastEventId, replayed: 0 },
      });
    }
    const held = takeHeld();
    release();
    for (const m of held) if (m.id === null || !replayed.has(m.id)) send(m);
  }

  // Retention by age; returns null when another replica holds the sweep.
  purgeExpired(): Promise<number | null> {
    return this.repository.deleteOlderThan(this.config.eventRetentionDays);
  }
}
