import 'reflect-metadata';
import { join } from 'node:path';
import { parse } from 'pg-connection-string';
import type { DataSourceOptions } from 'typeorm';

import { PipeliningClient } from './pipelined-transactions';
import { installRowTemplates } from './row-templates';
import { WriterSubscriber } from './writer.subscriber';

// TypeORM's own URL parser drops query parameters such as ?host=/socket/dir, so the URL is parsed here.
export function connectionParts(url: string) {
  const parts = parse(url);
  return {
    host: parts.host ?? undefined,
    port: parts.port ? Number(parts.port) : undefined,
    username: parts.user ?? undefined,
    password: parts.password ?? undefined,
    database: parts.database ?? undefined,
    ssl: parts.ssl ? (parts.ssl as boolean) : undefined,
  };
}

// One definition serves the daemon and the TypeORM CLI: migrations are explicit, never synchronize.
export function dataSourceOptions(url: string, poolSize = 10, prepared = false): DataSourceOptions {
  if (prepared) installRowTemplates();
  return {
    type: 'postgres',
    ...connectionParts(url),
    synchronize: false,
    migrationsRun: false,
    migrationsTableName: 'migrations',
    migrations: [join(__dirname, 'migrations', '*.{ts,js}')],
    entities: [],
    // names the writer of every transaction opened during a write (the change record)
    subscribers: [WriterSubscriber],
    logging: false,
    // Connecting fails within seconds when the database is away (503). min: 1 keeps a connection open, so `svc restore`
    // sees a running daemon by application_name however idle it is.
    // The daemon's pool prepares its repeated statements (ADR 0092) and sends a transaction's START and COMMIT with its
    // statements (ADR 0101); the CLI's and the migrations' do not need to.
    extra: {
      max: poolSize,
      min: 1,
      application_name: 'svc-daemon',
      connectionTimeoutMillis: 5000,
      keepAlive: true,
      ...(prepared ? { Client: PipeliningClient } : {}),
    },
  };
}
