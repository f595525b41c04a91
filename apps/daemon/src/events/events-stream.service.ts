import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Client } from 'pg';
import { Observable, Subject } from 'rxjs';
import { DataSource } from 'typeorm';
import { PostgresConnectionOptions } from 'typeorm/driver/postgres/PostgresConnectionOptions';

import { EVENTS_CHANNEL, ITEMS_CHANNEL, MACHINE_AUTHORIZATIONS_CHANNEL } from './events.repository';

export interface StreamMessage {
  channel: string;
  type: string;
  id: string | null;
  project: string | null;
  name: string | null;
  data: Record<string, unknown>;
}

export const STREAM_RECONNECT_MS = 1000;

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

// One dedicated connection per daemon LISTENs on the event, item and machine-authorization channels; every SSE client of this
// replica subscribes to the same Subject. NOTIFY reaches every replica, so every listener sees every change.
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
  // per open stream: whether it follows a project's frontier notices (stream-follow.ts: the projects it asked for,
  // what its caller may see)
  private readonly followers = new Set<(project: string) => boolean>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(LISTEN_CLIENT_FACTORY) private readonly factory: ListenClientFactory,
  ) {}

  static clientFactory(dataSource: DataSource): ListenClientFactory {
    const o = dataSource.options as PostgresConnectionOptions;
    return () =>
      new Client({
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
    await this.connect();
  }

  // Streams open on this replica (the metrics gauge).
  get openStreams(): number {
    return this.closers.size;
  }

  // Registered by each open stream, so shutdown can end them before the HTTP server drains.
  onClose(closer: () => void): () => void {
    this.closers.add(closer);
    return () => this.closers.delete(closer);
  }

  // Registered by each open stream while it is open: `wants(project)` answers, with the stream's latest standing,
  // whether that project's frontier notices would be delivered to it.
  follow(wants: (project: string) => boolean): () => void {
    this.followers.add(wants);
    return () => this.followers.delete(wants);
  }

  // Whether any stream open on this replica follows the project (the frontier notices are computed only then).
  followed(project: string): boolean {
    for (const wants of this.followers) if (wants(project)) return true;
    return false;
  }

  // A notice made on this replica (the frontier's new ETag, frontier-notices.ts): every stream of this replica
  // receives it as it receives a NOTIFY, through the same filters and standing checks. Every replica makes its own.
  publish(message: StreamMessage): void {
    if (!this.stopped) this.subject.next(message);
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
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
      if (message) this.subject.next(message);
    });
    client.on('error', (err) => {
      this.logger.warn(`event listener connection lost: ${err.message}`);
      this.reconnect(client);
    });
    client.on('end', () => this.reconnect(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${EVENTS_CHANNEL}`);
      await client.query(`LISTEN ${ITEMS_CHANNEL}`);
      await client.query(`LISTEN ${MACHINE_AUTHORIZATIONS_CHANNEL}`);
      this.client = client;
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
