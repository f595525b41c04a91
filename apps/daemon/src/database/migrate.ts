import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource, MigrationInterface } from 'typeorm';

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

// Every migration class of this build, oldest first (by the timestamp ending its name).
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

// The names of every migration this build knows, oldest first: its schema version.
export function knownMigrations(): string[] {
  return migrationClasses().map(migrationName);
}

// The migrations the database has applied, in the order it applied them (none when it has no migrations table).
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

// Applies the pending migrations (only those named in `only`, when given: a restore brings a database to the schema
// version of its snapshot first). Refuses, before changing anything, a database that a newer svc has migrated.
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
