import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from 'pg';
import { DataSource, MigrationInterface, QueryRunner } from 'typeorm';

import { dataSourceOptions } from './data-source';

// Any fixed 64-bit key: replicas booting together take turns, the first one applies the migrations.
const MIGRATION_LOCK_KEY = 7_301_001;

const MIGRATIONS_DIR = join(__dirname, 'migrations');
const MIGRATION_FILE = /^\d+-[A-Za-z0-9]+\.(js|ts)$/;

type MigrationClass = new () => MigrationInterface;

// A database migrated by a newer svc: its migrations table names migrations this code does not have.
export class NewerSchemaError extends Error {
  constructor(readonly unknown: string[]) {
    super(
      `the database was migrated by a newer version of svc: it has applied ${unknown.length === 1 ? 'migration' : 'migrations'} ` +
        `${unknown.join(', ')}, which this version does not know; run that newer version (an older one must not ` +
        'write a schema it does not understand), or restore a backup taken by this version into an empty database',
    );
    this.name = 'NewerSchemaError';
  }
}

export function migrationClasses(): MigrationClass[] {
  const classes: MigrationClass[] = [];
  for (const file of readdirSync(MIGRATIONS_DIR).filter((name) => MIGRATION_FILE.test(name))) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const exported = require(join(MIGRATIONS_DIR, file)) as Record<string, unknown>;
    for (const value of Object.values(exported)) {
      if (typeof value === 'function') classes.push(value as MigrationClass);
    }
  }
  return classes.sort((a, b) => migrationTimestamp(migrationName(a)) - migrationTimestamp(migrationName(b)));
}

export function migrationName(migration: MigrationClass): string {
  return new migration().name ?? migration.name;
}

function migrationTimestamp(name: string): number {
  return Number(/(\d{13})$/.exec(name)?.[1] ?? 0);
}

export function knownMigrations(): string[] {
  return migrationClasses().map(migrationName);
}

export async function appliedMigrations(dataSource: DataSource): Promise<string[]> {
  const exists: { present: boolean }[] = await dataSource.query(
    `SELECT to_regclass('public.migrations') IS NOT NULL AS present`,
  );
  if (!exists[0].present) return [];
  const rows: { name: string }[] = await dataSource.query('SELECT name FROM migrations ORDER BY id');
  return rows.map((r) => r.name);
}

async function assertNotNewer(dataSource: DataSource, known: ReadonlySet<string>): Promise<void> {
  const unknown = (await appliedMigrations(dataSource)).filter((name) => !known.has(name));
  if (unknown.length > 0) throw new NewerSchemaError(unknown);
}

// `only`: a restore first reaches its snapshot's schema version. A newer svc's database is refused untouched.
export async function runMigrations(url: string, only?: ReadonlySet<string>): Promise<string[]> {
  const classes = migrationClasses();
  const known = new Set(classes.map(migrationName));
  const dataSource = new DataSource({
    ...dataSourceOptions(url, 2),
    migrations: only ? classes.filter((m) => only.has(migrationName(m))) : classes,
  });
  await dataSource.initialize();
  try {
    const runner = dataSource.createQueryRunner();
    await runner.connect();
    try {
      await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
      try {
        await assertNotNewer(dataSource, known);
        const applied = await dataSource.runMigrations({ transaction: 'each' });
        return applied.map((m) => m.name);
      } finally {
        await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
      }
    } finally {
      await runner.release();
    }
  } finally {
    await dataSource.destroy();
  }
}

// The migrations table as TypeORM makes it (MigrationExecutor), so a daemon's later runMigrations finds it as its own.
const MIGRATIONS_TABLE_DDL = `CREATE TABLE IF NOT EXISTS "migrations" ("id" SERIAL NOT NULL, "timestamp" bigint NOT NULL,
  "name" character varying NOT NULL, CONSTRAINT "PK_8c82d7f526340ab734260ea46be" PRIMARY KEY ("id"))`;

// Inside the caller's transaction: a restore drops, migrates and loads as one.
export async function runMigrationsInTransaction(client: Client, only?: ReadonlySet<string>): Promise<string[]> {
  await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
  await client.query(MIGRATIONS_TABLE_DDL);
  const applied = new Set(
    (await client.query<{ name: string }>('SELECT name FROM migrations')).rows.map((r) => r.name),
  );
  const runner = {
    query: async (sql: string, parameters?: unknown[]) => {
      const result = await client.query(sql, parameters);
      return result.command === 'UPDATE' || result.command === 'DELETE' ? [result.rows, result.rowCount] : result.rows;
    },
  } as unknown as QueryRunner;
  const done: string[] = [];
  for (const migration of migrationClasses()) {
    const name = migrationName(migration);
    if (applied.has(name) || (only && !only.has(name))) continue;
    await new migration().up(runner);
    await client.query('INSERT INTO migrations ("timestamp", name) VALUES ($1, $2)', [migrationTimestamp(name), name]);
    // A table with pending trigger events cannot be altered, and the next migration may alter one.
    await client.query('SET CONSTRAINTS ALL IMMEDIATE');
    done.push(name);
  }
  return done;
}

export async function revertAllMigrations(url: string): Promise<number> {
  const dataSource = new DataSource({ ...dataSourceOptions(url, 2) });
  await dataSource.initialize();
  let reverted = 0;
  try {
    for (;;) {
      const rows: { count: string }[] = await dataSource.query('SELECT count(*) AS count FROM migrations');
      if (Number(rows[0].count) === 0) break;
      await dataSource.undoLastMigration({ transaction: 'each' });
      reverted += 1;
    }
  } finally {
    await dataSource.destroy();
  }
  return reverted;
}
