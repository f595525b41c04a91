import { Injectable } from '@nestjs/common';
import type { DataSource } from 'typeorm';

import { InjectDataSource } from '../common/inject-data-source';

export interface ReplicaRow {
  replica_id: string;
  name: string;
  version: string;
  secret_fingerprint: string;
  clock_skew_ms: number;
  started_at: Date;
  seen_at: Date;
}

export interface ClockReading {
  // the database clock, in epoch milliseconds, and this process's clock before and after the query
  databaseMs: number;
  sentMs: number;
  receivedMs: number;
}

export interface ServerFacts {
  server_version: string;
  data_directory: string | null;
}

const FORGET_AFTER = '1 day';

@Injectable()
export class DoctorRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async readClock(): Promise<ClockReading> {
    const sentMs = Date.now();
    const [row] = await this.dataSource.query<{ ms: number }[]>(
      `SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS ms`,
    );
    return { databaseMs: Number(row.ms), sentMs, receivedMs: Date.now() };
  }

  // data_directory is readable only by superusers and pg_read_all_settings members: null elsewhere.
  async serverFacts(): Promise<ServerFacts> {
    const [row] = await this.dataSource.query<ServerFacts[]>(
      `SELECT current_setting('server_version') AS server_version,
              CASE WHEN pg_has_role('pg_read_all_settings', 'member') THEN current_setting('data_directory') END
                AS data_directory`,
    );
    return row;
  }

  async appliedMigrations(): Promise<string[]> {
    const rows = await this.dataSource.query<{ name: string }[]>(`SELECT name FROM migrations ORDER BY id`);
    return rows.map((r) => r.name);
  }

  knownMigrations(): string[] {
    return this.dataSource.migrations.map((m) => m.name ?? m.constructor.name);
  }

  async report(row: Omit<ReplicaRow, 'seen_at'>): Promise<void> {
    await this.dataSource.query(
      `WITH forgotten AS (DELETE FROM daemon_replicas WHERE seen_at < now() - interval '${FORGET_AFTER}')
       INSERT INTO daemon_replicas (replica_id, name, version, secret_fingerprint, clock_skew_ms, started_at, seen_at)
       VALUES ($1, $2, $3, $4, $5, $6, now())
       ON CONFLICT (replica_id) DO UPDATE
         SET secret_fingerprint = EXCLUDED.secret_fingerprint, clock_skew_ms = EXCLUDED.clock_skew_ms,
             seen_at = now()`,
      [row.replica_id, row.name, row.version, row.secret_fingerprint, row.clock_skew_ms, row.started_at],
    );
  }

  async replicasSeenWithin(seconds: number): Promise<ReplicaRow[]> {
    return this.dataSource.query<ReplicaRow[]>(
      `SELECT replica_id, name, version, secret_fingerprint, clock_skew_ms, started_at, seen_at
         FROM daemon_replicas WHERE seen_at >= now() - make_interval(secs => $1)
        ORDER BY started_at, name`,
      [seconds],
    );
  }
}
