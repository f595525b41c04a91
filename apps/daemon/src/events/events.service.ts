import type { IncomingMessage } from 'node:http';

import { Inject, Injectable, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EntityManager } from 'typeorm';

import { AccessService } from '../auth/access.service';
import { AuthenticatedActor, organizationScope, seesEveryProject } from '../auth/actor';
import { bearerRequired } from '../auth/auth.errors';
import { invalidRequest } from '../common/domain-error';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { clientAddress, clientKey, compileTrust, TrustFunction } from '../common/client-identity';
import { onConnectionClose } from '../common/connection-close';
import { projectNotFound } from '../projects/projects.errors';
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
import { streamMembershipRequired } from './events.errors';
import {
  EventsRepository,
  NewEvent,
  positionAfter,
  REPLAY_LIMIT,
  StreamCloseCode,
  StreamPosition,
  StreamStanding,
} from './events.repository';
import { followsFrontier, FRONTIER_NOTICE, frontierProjectsOf } from './stream-follow';
import { StreamLimits } from './stream-limits';
import { STREAM_ORIGIN_HEADER, StreamOrigins } from './stream-origins';

export const STREAM_HEARTBEAT_MS = 15_000;

const CLOSE_MESSAGES: Record<StreamCloseCode, string> = {
  token_revoked: 'the API token of this stream was revoked',
  token_expired: 'the credential of this stream expired',
  machine_credential_revoked: "this machine's credential was revoked",
  actor_disabled: 'this actor was disabled',
  membership_removed: 'this actor is no longer an active member of an organization it could see here',
  project_not_visible: 'the project this stream follows is no longer visible to this actor',
};

@Injectable()
export class EventsService {
  private readonly logger = new Logger(EventsService.name);
  private readonly limits: StreamLimits;
  private readonly origins = new StreamOrigins();
  private readonly trust: TrustFunction;
  private readonly heartbeatMs = STREAM_HEARTBEAT_MS;

  constructor(
    private readonly repository: EventsRepository,
    private readonly access: AccessService,
    private readonly stream: EventsStreamService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.limits = new StreamLimits(config.eventStreamsPerActor, config.eventStreamsPerAddress);
    this.trust = compileTrust(config.trustedProxies);
  }

  // For a stream the daemon opens to itself for the caller (MCP over HTTP): it counts against the caller's address,
  // not loopback (StreamOrigins).
  vouchForStreams(
    actor: AuthenticatedActor,
    request: IncomingMessage,
  ): { headers: Record<string, string>; revoke: () => void } {
    const { secret, revoke } = this.origins.vouch(actor.id, clientKey(clientAddress(request, this.trust)));
    return { headers: { [STREAM_ORIGIN_HEADER]: secret }, revoke };
  }

  record(event: NewEvent, manager?: EntityManager): Promise<{ id: string; created_at: Date }> {
    return this.repository.insert(event, manager);
  }

  // Telemetry that must never fail its caller: failures are logged and dropped; the commit skips the WAL flush.
  async recordBestEffort(event: NewEvent): Promise<void> {
    try {
      await this.repository.insert(event, undefined, true);
    } catch (err) {
      this.logger.warn(`event ${event.name} not recorded: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private async visibleProjects(actor: AuthenticatedActor): Promise<string[] | null> {
    if (seesEveryProject(actor)) return null;
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

  // SSE with a comment line every 15 s. A reconnect with Last-Event-ID first replays the newest REPLAY_LIMIT missed
  // recorded events (`replay_truncated` when older ones were left out), then the live stream, holding live messages
  // meanwhile. Only recorded events carry an id. Frontier notices only for followed projects (stream-follow.ts).
  // Revocation reaches open streams: every notice and heartbeat waits for a standing check that began after it arrived;
  // a failed check ends the stream with `event: closed`. Checks are coalesced per credential.
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
    const hosted = this.config.mode === 'hosted';
    const first = await this.standing(actor, hosted);
    // The guard checked the credential an instant ago; what can still fail is membership (or a race).
    if (!first.ok) throw first.code === 'membership_removed' ? streamMembershipRequired() : bearerRequired();
    if (dto.project && first.projects !== null && !first.projects.includes(dto.project)) {
      throw projectNotFound(dto.project);
    }
    const address =
      this.origins.addressOf(request.headers[STREAM_ORIGIN_HEADER], actor.id) ??
      clientKey(clientAddress(request.raw, this.trust));
    const release = this.limits.acquire(actor.id, address);
    let visible = first.projects ? new Set(first.projects) : null;
    let machines = first.machines;
    const frontier = frontierProjectsOf(dto);
    // What the caller's filters ask for; visibility is applied at delivery, with the latest standing.
    const asked = (m: StreamMessage) =>
      m.type === 'machine_authorization' ||
      (m.type === FRONTIER_NOTICE
        ? m.project !== null && frontier.has(m.project)
        : (!dto.project || m.project === dto.project) &&
          (!dto.event_name || m.type !== 'event' || m.name === dto.event_name));
    const allowed = (m: StreamMessage) => {
      if (m.type === 'machine_authorization') {
        if (machines === null) return true;
        const org = m.data.org;
        return typeof org === 'string' ? machines.orgs.has(org) : machines.unbound;
      }
      return m.project === null || visible === null || visible.has(m.project);
    };
    const unfollow = this.stream.follow((project) => followsFrontier(frontier, visible, project));
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
    // A replica whose feed is behind may still hear events the client already has: not sent again.
    let floor: StreamPosition | null = null;
    const send = (m: { id: string | null; type: string; data: Record<string, unknown>; position?: StreamPosition }) => {
      if (closed) return;
      if (floor && m.position) {
        if (!positionAfter(m.position, floor)) return;
        floor = m.position;
      }
      raw.write(`${m.id ? `id: ${m.id}\n` : ''}event: ${m.type}\ndata: ${JSON.stringify(m.data)}\n\n`);
    };
    // Held while the replay is read: the subscription starts first so nothing committed meanwhile is lost.
    let held: StreamMessage[] | null = lastEventId === null ? null : [];
    // Notices waiting for a standing check that began after they arrived, and the arrival mark of the newest one.
    let waiting: StreamMessage[] = [];
    let newest = 0;
    let checking = false;
    const check = (): void => {
      if (checking || closed) return;
      checking = true;
      const batch = waiting;
      const mark = newest;
      waiting = [];
      void this.sharedStanding(actor, hosted, mark)
        .then((standing) => {
          if (closed) return;
          if (!standing.ok) return end(standing.code);
          visible = standing.projects ? new Set(standing.projects) : null;
          machines = standing.machines;
          if (dto.project && visible !== null && !visible.has(dto.project)) return end('project_not_visible');
          for (const m of batch) {
            if (!allowed(m)) continue;
            if (held) held.push(m);
            else send(m);
          }
        })
        .catch((err: unknown) => {
          // Fail closed: a notice is never delivered unchecked; the client reconnects and is checked anew.
          this.logger.warn(`event stream re-check failed: ${err instanceof Error ? err.message : String(err)}`);
          close();
        })
        .finally(() => {
          checking = false;
          if (waiting.length > 0) check();
        });
    };
    const subscription = this.stream.messages.subscribe((m) => {
      if (closed || !asked(m)) return;
      waiting.push(m);
      newest = this.arrive();
      check();
    });
    const heartbeat = setInterval(() => {
      raw.write(': ping\n\n');
      newest = this.arrive();
      check();
    }, this.heartbeatMs);
    const close = () => {
      if (closed) return;
      closed = true;
      clearInterval(heartbeat);
      subscription.unsubscribe();
      unfollow();
      unregister();
      release();
      raw.end();
    };
    const end = (code: StreamCloseCode) => {
      send({ id: null, type: 'closed', data: { code, message: CLOSE_MESSAGES[code] } });
      close();
    };
    const unregister = this.stream.onClose(close);
    // the client may have gone while the standing check ran: its slot is given back at once
    onConnectionClose(request.raw, close);
    if (lastEventId !== null)
      await this.replay(
        lastEventId,
        dto,
        first.projects,
        send,
        (position) => (floor = position),
        () => held ?? [],
        () => (held = null),
      );
  }

  // Arrival marks: a check that began at mark k has seen every notice marked k or lower arrive first.
  private arrival = 0;
  private arrive(): number {
    return ++this.arrival;
  }

  // One check per credential in flight; a stream joins it only if it began after its newest waiting notice.
  private readonly inFlight = new Map<string, { mark: number; result: Promise<StreamStanding> }>();

  private sharedStanding(actor: AuthenticatedActor, hosted: boolean, mark: number): Promise<StreamStanding> {
    const key = `${actor.via}:${actor.credentialId}:${organizationScope(actor) ?? ''}`;
    const current = this.inFlight.get(key);
    if (current && current.mark >= mark) return current.result;
    const started = { mark: this.arrive(), result: this.standing(actor, hosted) };
    this.inFlight.set(key, started);
    const forget = () => {
      if (this.inFlight.get(key) === started) this.inFlight.delete(key);
    };
    started.result.then(forget, forget);
    return started.result;
  }

  private async standing(actor: AuthenticatedActor, hosted: boolean): Promise<StreamStanding> {
    if (actor.expiresAt && actor.expiresAt.getTime() <= Date.now()) return { ok: false, code: 'token_expired' };
    return this.repository.standing(actor, hosted);
  }

  private async replay(
    lastEventId: string,
    dto: EventsStreamQueryDto,
    projects: string[] | null,
    send: (m: { id: string | null; type: string; data: Record<string, unknown>; position?: StreamPosition }) => void,
    setFloor: (position: StreamPosition | null) => void,
    takeHeld: () => StreamMessage[],
    release: () => void,
  ): Promise<void> {
    const replayed = new Set<string>();
    try {
      const { rows, after } = await this.repository.replayAfter({
        afterId: lastEventId,
        name: dto.event_name,
        project: dto.project,
        projects,
        limit: REPLAY_LIMIT + 1,
      });
      setFloor(after);
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
        const position = { xid: BigInt(row.xid), id: BigInt(row.id) };
        // the same body as the live notice of a recorded event
        send({
          id: row.id,
          type: 'event',
          data: { type: 'event', id: Number(row.id), name: row.name, project: row.project, item_ref: row.item_ref },
          position,
        });
        setFloor(position);
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

  purgeExpired(): Promise<number | null> {
    return this.repository.deleteOlderThan(this.config.eventRetentionDays);
  }
}
