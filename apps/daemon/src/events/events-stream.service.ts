import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit, Optional } from '@nestjs/common';
import type { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { Client } from 'pg';
import { Observable, Subject } from 'rxjs';
import type { DataSource } from 'typeorm';
import { PostgresConnectionOptions } from 'typeorm/driver/postgres/PostgresConnectionOptions';

import { InjectDataSource } from '../common/inject-data-source';
import { InjectHttpAdapterHost } from '../common/inject-http-adapter-host';
import { EVENTS_CHANNEL, StreamPosition } from './events.repository';
import { NoticeFeedRepository } from './notice-feed.repository';

export interface StreamMessage {
  channel: string;
  type: string;
  id: string | null;
  project: string | null;
  name: string | null;
  data: Record<string, unknown>;
  position?: StreamPosition;
}

export const STREAM_RECONNECT_MS = 1000;
// A write answered here and a NOTIFY read the feed at once; otherwise it is polled, backing off when idle.
export const POLL_MIN_MS = 5;
export const POLL_MAX_MS = 50;
const PRUNE_EVERY_MS = 60_000;

export const LISTEN_CLIENT_FACTORY = Symbol('LISTEN_CLIENT_FACTORY');
export type ListenClientFactory = () => Client;

export function parseNotification(channel: string, payload: string | undefined): StreamMessage | null {
  if (!payload) return null;
  let data: unknown;
  try {
    data = JSON.parse(payload);
  } catch {
    return null;
  }
  if (typeof data !== 'object' || data === null) return null;
  const record = data as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : null);
  return {
    channel,
    type: str(record.type) ?? (channel === EVENTS_CHANNEL ? 'event' : 'item'),
    id: channel === EVENTS_CHANNEL ? str(record.id) : null,
    project: str(record.project),
    name: str(record.name),
    data: record,
  };
}

// One dedicated connection reads the notice feed and LISTENs; every SSE client of this replica shares the Subject.
// A feed rather than a NOTIFY per writing transaction, because PostgreSQL commits those one at a time. Each read
// delivers the notices below pg_snapshot_xmin (every transaction below it has ended) in (xid, id) order: the same on
// every replica, and a recorded event's place for Last-Event-ID. A NOTIFY is delivered after a read that began after
// it arrived, so it never overtakes notices committed before it.
@Injectable()
export class EventsStreamService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(EventsStreamService.name);
  private readonly subject = new Subject<StreamMessage>();
  private client: Client | null = null;
  // the connection being opened or in use; events of older connections are ignored
  private current: Client | null = null;
  private stopped = false;
  private retry: NodeJS.Timeout | null = null;
  private readonly closers = new Set<() => void>();
  private readonly followers = new Set<(project: string) => boolean>();
  // the feed: everything below `cursor` (an xid8) is delivered; null until the first read sets it to the present
  private cursor: string | null = null;
  // the highest id read, and notices delivered ahead of the horizon (id → xid), skipped when it passes them
  private highest: string | null = null;
  private readonly early = new Map<string, bigint>();
  private reading: Promise<void> | null = null;
  private queued: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private idleMs = POLL_MIN_MS;
  private prunedAt = 0;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(LISTEN_CLIENT_FACTORY) private readonly factory: ListenClientFactory,
    private readonly noticeFeedRepository: NoticeFeedRepository,
    @Optional() @InjectHttpAdapterHost() private readonly adapterHost?: HttpAdapterHost,
  ) {}

  static clientFactory(dataSource: DataSource): ListenClientFactory {
    const o = dataSource.options as PostgresConnectionOptions;
    // the pool's own client class: with prepared statements on, the feed's read is parsed and planned once (ADR 0092)
    const Connection = (o.extra as { Client?: typeof Client } | undefined)?.Client ?? Client;
    return () =>
      new Connection({
        host: o.host,
        port: o.port,
        user: o.username,
        password: typeof o.password === 'string' ? o.password : undefined,
        database: o.database,
        ssl: o.ssl as boolean | undefined,
        application_name: 'svc-daemon-listen',
      });
  }

  get messages(): Observable<StreamMessage> {
    return this.subject.asObservable();
  }

  async onModuleInit(): Promise<void> {
    // A write this replica answered: read the feed now rather than at the next tick.
    const fastify = this.adapterHost?.httpAdapter?.getInstance<FastifyInstance>();
    fastify?.addHook?.('onResponse', (request, _reply, done) => {
      if (request.method !== 'GET' && request.method !== 'HEAD') this.kick();
      done();
    });
    await this.connect();
  }

  kick(): void {
    if (this.client && !this.stopped) void this.read().catch(() => undefined);
  }

  // One read in flight is followed by exactly one more, shared by every caller meanwhile. The queue empties even when
  // a read fails, or every later caller would get that failure and the feed would never be read again.
  private read(): Promise<void> {
    if (this.queued) return this.queued;
    if (!this.reading) {
      this.reading = this.readOnce().finally(() => (this.reading = null));
      return this.reading;
    }
    this.queued = this.reading
      .catch(() => undefined)
      .then(() => {
        this.queued = null;
        return this.read();
      });
    return this.queued;
  }

  private async readOnce(): Promise<void> {
    const client = this.client;
    if (!client || this.stopped) return;
    if (this.cursor === null) {
      const start = await this.noticeFeedRepository.findStart(client);
      if (client !== this.client) return;
      this.cursor = start.horizon;
      this.highest = start.highest ?? '0';
      return;
    }
    const rows = await this.noticeFeedRepository.findSince(client, this.cursor, this.highest);
    if (client !== this.client) return;
    let delivered = 0;
    for (const row of rows) {
      if (row.channel === null || row.id === null || row.xid === null) continue;
      if (this.highest === null || BigInt(row.id) > BigInt(this.highest)) this.highest = row.id;
      if (row.safe) {
        if (this.early.delete(row.id)) continue;
      } else {
        if (this.early.has(row.id)) continue;
        this.early.set(row.id, BigInt(row.xid));
      }
      const message = parseNotification(row.channel, row.payload ?? undefined);
      if (!message) continue;
      if (message.id !== null && /^\d+$/.test(message.id)) {
        message.position = { xid: BigInt(row.xid), id: BigInt(message.id) };
      }
      delivered++;
      if (!this.stopped) this.subject.next(message);
    }
    // xmin never moves back; a read on a fresh connection may not see further than the last one did
    if (rows.length > 0 && BigInt(rows[0].horizon) > BigInt(this.cursor)) {
      this.cursor = rows[0].horizon;
      // every one below the horizon was met among the safe rows (or its row is gone): nothing left to skip
      const horizon = BigInt(this.cursor);
      for (const [id, xid] of this.early) if (xid < horizon) this.early.delete(id);
    }
    this.idleMs = delivered > 0 ? POLL_MIN_MS : Math.min(POLL_MAX_MS, this.idleMs * 2);
    if (Date.now() - this.prunedAt > PRUNE_EVERY_MS) {
      this.prunedAt = Date.now();
      await this.noticeFeedRepository
        .prune(client)
        .catch((err: Error) => this.logger.warn(`notice feed prune failed: ${err.message}`));
    }
  }

  private tick(): void {
    if (this.stopped || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (!this.client) return;
      void this.read()
        .catch((err: Error) => this.logger.warn(`notice feed read failed: ${err.message}`))
        .finally(() => this.tick());
    }, this.idleMs);
  }

  get openStreams(): number {
    return this.closers.size;
  }

  onClose(closer: () => void): () => void {
    this.closers.add(closer);
    return () => this.closers.delete(closer);
  }

  follow(wants: (project: string) => boolean): () => void {
    this.followers.add(wants);
    return () => this.followers.delete(wants);
  }

  followed(project: string): boolean {
    for (const wants of this.followers) if (wants(project)) return true;
    return false;
  }

  // A notice made here (frontier-notices.ts) passes the same filters and standing checks as a NOTIFY.
  publish(message: StreamMessage): void {
    if (!this.stopped) this.subject.next(message);
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    if (this.timer) clearTimeout(this.timer);
    await this.reading?.catch(() => undefined);
    for (const close of [...this.closers]) close();
    this.subject.complete();
    await this.client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = this.factory();
    this.current = client;
    client.on('notification', (n) => {
      const message = parseNotification(n.channel, n.payload);
      // after the notices committed before it (a read of the feed that began after it arrived)
      if (message)
        void this.read()
          .catch(() => undefined)
          .then(() => {
            if (!this.stopped) this.subject.next(message);
          });
    });
    client.on('error', (err) => {
      this.logger.warn(`event listener connection lost: ${err.message}`);
      this.reconnect(client);
    });
    client.on('end', () => this.reconnect(client));
    try {
      await client.connect();
      await this.noticeFeedRepository.listen(client);
      this.client = client;
      await this.read();
      this.tick();
    } catch (err) {
      this.logger.warn(`event listener could not connect: ${(err as Error).message}`);
      this.reconnect(client);
    }
  }

  private reconnect(client: Client): void {
    if (this.stopped || this.retry || client !== this.current) return;
    this.client = null;
    this.current = null;
    void client.end().catch(() => undefined);
    this.retry = setTimeout(() => {
      this.retry = null;
      void this.connect();
    }, STREAM_RECONNECT_MS);
  }
}
