import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';

import { createTestDatabase, DaemonProcess, runSvc, startDaemonProcess, TestDatabase } from '@app/testing';
import { http, sql } from '@app/testing/machine-auth';

import { knownMigrations, revertAllMigrations, runMigrations } from '../apps/daemon/src/database/migrate';
import { tableDigests, tableRows } from './support/database-rows';

// A database as commit b9ec66c left it (test/fixtures/upgrade-b9ec66c.sql, made by scripts/make-upgrade-fixture.js:
// that build's migrations as they ran, then data added through its daemon, with the frontier it served). That
// release ran ProgressFromRunFlow's landed text, and predates DeploymentResume. Today's migrations are applied with
// the function the daemon runs at boot, then today's daemon serves the upgraded database.
const FIXTURE = 'upgrade-b9ec66c';
const SECRET = 'e2e-upgrade-secret-0123456789abcdefghijkl';

interface Recorded {
  commit: string;
  admin_token: string;
  frontier: Record<string, unknown>;
}

async function load(url: string, file: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    // the file has its own transactions: one per migration, as they ran, then one for the data
    await client.query(readFileSync(file, 'utf8'));
  } finally {
    await client.end();
  }
}

// What defines the schema, object by object: columns, constraints, indexes, views, triggers, functions.
async function schema(url: string): Promise<Record<string, string[]>> {
  const client = new Client({ connectionString: url });
  await client.connect();
  const list = async (text: string) => (await client.query<{ d: string }>(text)).rows.map((r) => r.d).sort();
  try {
    return {
      columns: await list(
        `SELECT table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' ||
                coalesce(column_default, '') AS d
           FROM information_schema.columns WHERE table_schema = 'public'`,
      ),
      constraints: await list(
        `SELECT conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid) AS d FROM pg_constraint
          WHERE connamespace = 'public'::regnamespace AND conname NOT LIKE 'PK\\_%'`,
      ),
      indexes: await list(
        `SELECT indexdef AS d FROM pg_indexes WHERE schemaname = 'public' AND indexname NOT LIKE 'PK\\_%'`,
      ),
      views: await list(
        `SELECT viewname || ': ' || pg_get_viewdef(viewname::regclass) AS d FROM pg_views WHERE schemaname = 'public'`,
      ),
      triggers: await list(`SELECT pg_get_triggerdef(oid) AS d FROM pg_trigger WHERE NOT tgisinternal`),
      functions: await list(
        `SELECT pg_get_functiondef(p.oid) AS d FROM pg_proc p WHERE p.pronamespace = 'public'::regnamespace`,
      ),
    };
  } finally {
    await client.end();
  }
}

// Keeps only the keys the old release's answer had, at every depth: fields added since are not a difference.
function asRecorded(now: unknown, then: unknown): unknown {
  if (Array.isArray(then) && Array.isArray(now)) return now.map((value, i) => asRecorded(value, then[i] ?? then[0]));
  if (then && typeof then === 'object' && now && typeof now === 'object' && !Array.isArray(now)) {
    return Object.fromEntries(
      Object.keys(then).map((key) => [
        key,
        asRecorded((now as Record<string, unknown>)[key], (then as Record<string, unknown>)[key]),
      ]),
    );
  }
  return now;
}

describe('upgrading a database an earlier release created', () => {
  const fixtures = join(__dirname, 'fixtures');
  const recorded = JSON.parse(readFileSync(join(fixtures, `${FIXTURE}.frontier.json`), 'utf8')) as Recorded;
  let db: TestDatabase;
  let before: Map<string, string[]>;
  let after: Map<string, string[]>;
  let applied: string[];
  let daemon: DaemonProcess;
  const oldBackup = join(mkdtempSync(join(tmpdir(), 'svc-upgrade-')), 'old.svcbak');

  beforeAll(async () => {
    db = await createTestDatabase('server', 'upgrade');
    await load(db.url, join(fixtures, `${FIXTURE}.sql`));
    before = await tableRows(db.url);
    // a backup the old release's database would have had
    expect(await runSvc(['backup', oldBackup], { env: { SVC_DATABASE_URL: db.url } })).toMatchObject({ code: 0 });
    // what a daemon of today runs at boot, before its sweeps (which remove expired device codes) start
    applied = await runMigrations(db.url);
    after = await tableRows(db.url);
    daemon = await startDaemonProcess({ env: { SVC_DATABASE_URL: db.url, SVC_SERVER_SECRET: SECRET } });
  });

  afterAll(async () => {
    await daemon?.stop();
    await db?.drop();
  });

  it("should apply today's migrations and keep every row", async () => {
    const known = knownMigrations();
    expect(applied[applied.length - 1]).toBe(known[known.length - 1]);
    expect(applied).toContain('LandedMigrationFixes1764410000000');
    expect(applied).toContain('DeploymentResume1764187200000');
    for (const [table, rows] of before) {
      // the row as the old release had it: today's columns it did not have are left out
      const old = new Set(Object.keys(JSON.parse(rows[0] ?? '{}') as object));
      const project = (row: string) =>
        JSON.stringify(
          Object.fromEntries(
            Object.entries(JSON.parse(row) as object).filter(([key]) => old.size === 0 || old.has(key)),
          ),
        );
      expect({ table, rows: after.get(table)!.map(project).sort() }).toEqual({ table, rows: rows.map(project).sort() });
    }
  });

  it("should restore the old release's backup at its own schema version, then migrate it like the upgrade did", async () => {
    const into = await createTestDatabase('server', 'upgrade_restore');
    try {
      const restored = await runSvc(['restore', oldBackup, '--json'], { env: { SVC_DATABASE_URL: into.url } });
      expect(restored).toMatchObject({ code: 0 });
      const body = JSON.parse(restored.stdout) as { migrations_in_file: number; migrated_forward: string[] };
      expect(body.migrations_in_file).toBe(9);
      expect(body.migrated_forward).toContain('LandedMigrationFixes1764410000000');
      // every table as the upgrade left it, but the record of the migrations' own backfills: each run of a
      // migration records its changes at its own instant (path sql), so two runs never agree on those rows
      const own = new Set(['migrations', 'change_records']);
      expect(tableDigests(await tableRows(into.url, own))).toEqual(
        Object.fromEntries(Object.entries(tableDigests(after)).filter(([k]) => !k.startsWith('change_records'))),
      );
      expect(await schema(into.url)).toEqual(await schema(db.url));
    } finally {
      await into.drop();
    }
  });

  it('should serve the frontier the old release served', async () => {
    for (const [project, then] of Object.entries(recorded.frontier)) {
      const res = await http(daemon.url, 'GET', `/v1/charge/frontier?project=${project}`, {
        token: recorded.admin_token,
      });
      expect(res.status).toBe(200);
      expect({ project, frontier: asRecorded(res.body, then) }).toEqual({ project, frontier: then });
    }
  });

  it('should end with the schema of a fresh database, the halted-runs index and the named-column view included', async () => {
    const fresh = await createTestDatabase('server', 'upgrade_fresh');
    try {
      await runMigrations(fresh.url);
      const upgraded = await schema(db.url);
      expect(upgraded).toEqual(await schema(fresh.url));
      expect(upgraded.indexes).toContainEqual(expect.stringContaining('ix_deployment_runs_halted'));
      expect(upgraded.views.join('\n')).not.toMatch(/dr\.halted_at/);
    } finally {
      await fresh.drop();
    }
  });

  it('should revert every migration, the ones the old release ran included', async () => {
    await daemon.stop();
    expect(await revertAllMigrations(db.url)).toBeGreaterThan(0);
    expect(await sql(db.url, `SELECT tablename FROM pg_tables WHERE schemaname = 'public'`)).toEqual([
      { tablename: 'migrations' },
    ]);
  });
});

describe('a database that ran the edited texts of the two landed migrations', () => {
  it("should take today's migrations too, and end with a fresh database's schema", async () => {
    const edited = await createTestDatabase('server', 'upgrade_edited');
    const fresh = await createTestDatabase('server', 'upgrade_edited_fresh');
    try {
      await runMigrations(
        edited.url,
        new Set(knownMigrations().filter((n) => n !== 'LandedMigrationFixes1764410000000')),
      );
      // what the edited DeploymentResume and ProgressFromRunFlow left (main until issue 28)
      await sql(
        edited.url,
        `CREATE INDEX ix_deployment_runs_halted ON deployment_runs (project) WHERE status = 'halted'`,
      );
      expect(await runMigrations(edited.url)).toEqual(['LandedMigrationFixes1764410000000']);
      await runMigrations(fresh.url);
      expect(await schema(edited.url)).toEqual(await schema(fresh.url));
    } finally {
      await edited.drop();
      await fresh.drop();
    }
  });
});

describe('a daemon on a database a newer version migrated', () => {
  let db: TestDatabase;
  let applied: unknown[];

  beforeAll(async () => {
    db = await createTestDatabase('server', 'upgrade_newer');
    await runMigrations(db.url);
    await sql(
      db.url,
      `INSERT INTO migrations ("timestamp", name) VALUES (1799999999999, 'FromTheFuture1799999999999')`,
    );
    applied = await sql(db.url, `SELECT name FROM migrations ORDER BY id`);
  });

  afterAll(() => db?.drop());

  it('should refuse to start, name the migration it does not know, and exit non-zero', async () => {
    const started = startDaemonProcess({ env: { SVC_DATABASE_URL: db.url, SVC_SERVER_SECRET: SECRET } });
    await expect(started).rejects.toThrow(/exited with code 1 before listening[\s\S]*FromTheFuture1799999999999/);
    await expect(started).rejects.toThrow(/migrated by a newer version of svc/);
    // nothing was applied or changed
    expect(await sql(db.url, `SELECT name FROM migrations ORDER BY id`)).toEqual(applied);
  });
});
