import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';

import {
  createTestDatabase,
  DaemonProcess,
  insertEdges,
  insertEnvironment,
  insertItems,
  insertRun,
  runSvc,
  startDaemonProcess,
  TestDatabase,
  VOLATILE_TABLES,
  waitFor,
  withClient,
} from '@app/testing';
import {
  http,
  pollMachineAuthorization,
  resolveMachineAuthorization,
  sql,
  startMachineAuthorization,
} from '@app/testing/machine-auth';

import { tableDigests, tableRows } from './support/database-rows';

const SECRET = 'e2e-backup-secret-0123456789abcdefghij';

// A database with some of everything: projects, items (through the API, so with events, and in bulk), edges,
// tokens, a machine credential, deployment flows, environments and runs.
async function populate(base: string, url: string, admin: string): Promise<void> {
  const ok = (status: number, what: string) => {
    if (status >= 300) throw new Error(`${what}: ${status}`);
  };
  for (const [id, prefix] of [
    ['shop', 'SHOP'],
    ['ops', 'OPS'],
  ]) {
    ok(
      (await http(base, 'POST', '/v1/projects', { token: admin, body: { id, name: id, public_item_prefix: prefix } }))
        .status,
      id,
    );
  }
  for (let i = 0; i < 6; i++) {
    ok(
      (await http(base, 'POST', '/v1/items', { token: admin, body: { project: 'shop', title: `Shop ${i}` } })).status,
      'item',
    );
  }
  ok(
    (await http(base, 'POST', '/v1/items/SHOP-2/dependencies', { token: admin, body: { blocker: 'SHOP-1' } })).status,
    'edge',
  );
  ok((await http(base, 'POST', '/v1/tokens', { token: admin, body: { name: 'ci' } })).status, 'token');
  const machine = { id: 'backup-machine-1', name: 'build box' };
  const started = await startMachineAuthorization(base, machine);
  ok(started.status, 'machine start');
  ok((await resolveMachineAuthorization(base, admin, started.body.user_code, 'approve')).status, 'approve');
  ok((await pollMachineAuthorization(base, started.body.device_code, machine)).status, 'poll');
  ok(
    (
      await http(base, 'POST', '/v1/deployments/flows', {
        token: admin,
        body: { id: 'ship', project: 'shop', name: 'ship', stages: ['build', { name: 'production', approval: true }] },
      })
    ).status,
    'flow',
  );
  await withClient(url, async (client) => {
    const bulk = await insertItems(
      client,
      'ops',
      Array.from({ length: 40 }, (_, i) => ({
        title: `Bulk ${i}`,
        priority: (['high', 'medium', 'low'] as const)[i % 3],
      })),
    );
    await insertEdges(client, [
      { blocker: bulk[0].id, dependent: bulk[1].id },
      { blocker: bulk[1].id, dependent: bulk[2].id },
      { blocker: bulk[3].id, dependent: bulk[2].id, gatePoint: 'integration' },
    ]);
    await insertEnvironment(client, { project: 'ops', name: 'production', tier: 'production' });
    await insertRun(client, { project: 'ops', environment: 'production', status: 'halted', items: [bulk[4].id] });
    await insertRun(client, { project: 'ops', environment: 'production', items: [bulk[5].id] });
  });
}

async function frontier(base: string, token: string, project: string): Promise<unknown> {
  const res = await http(base, 'GET', `/v1/charge/frontier?project=${project}`, { token });
  expect(res.status).toBe(200);
  return res.body;
}

function embeddedUrl(home: string): string {
  const password = readFileSync(join(home, 'pg-password'), 'utf8').trim();
  return `postgres://postgres:${encodeURIComponent(password)}@localhost:5432/svc?host=${encodeURIComponent(join(home, 'pg'))}`;
}

describe('svc backup and svc restore', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-backup-'));
  let db: TestDatabase;
  let daemon: DaemonProcess;
  let admin: string;
  const cleanup: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('server', 'backup');
    daemon = await startDaemonProcess({ env: { SVC_DATABASE_URL: db.url, SVC_SERVER_SECRET: SECRET } });
    admin = daemon.token!;
    await populate(daemon.url, db.url, admin);
  });

  afterAll(async () => {
    await daemon?.stop();
    // (dropping a few databases and stopping an embedded server takes a while on a busy machine)
    for (const step of cleanup.reverse()) await step().catch(() => undefined);
    await db?.drop();
  }, 120000);

  async function emptyDatabase(label: string): Promise<TestDatabase> {
    const made = await createTestDatabase('server', label);
    cleanup.push(() => made.drop());
    return made;
  }

  it('should restore a snapshot taken while the daemon serves writes as one instant of the database', async () => {
    let stop = false;
    let written = 0;
    const writer = (async () => {
      while (!stop) {
        const res = await http(daemon.url, 'POST', '/v1/items', {
          token: admin,
          body: { project: 'ops', title: `w-${written}` },
        });
        expect(res.status).toBe(201);
        written += 1;
      }
    })();
    await waitFor(() => written >= 3, { interval: 20, what: 'three writes before the backup' });
    const before = written;
    const file = join(dir, 'live.svcbak');
    const backup = await runSvc(['backup', file, '--json'], { env: { SVC_DATABASE_URL: db.url } });
    expect(backup).toMatchObject({ code: 0 });
    const target = written + 3;
    await waitFor(() => written >= target, { interval: 20, what: 'three writes after the backup' });
    stop = true;
    await writer;

    const into = await emptyDatabase('backup_live');
    const restored = await runSvc(['restore', file, '--json'], { env: { SVC_DATABASE_URL: into.url } });
    expect(restored).toMatchObject({ code: 0 });
    expect(JSON.parse(restored.stdout)).toMatchObject({ migrated_forward: [] });

    // the writer's items as of one instant: a prefix of what it wrote, at least what was there before the backup
    const titles = (
      await sql<{ title: string }>(into.url, `SELECT title FROM items WHERE title LIKE 'w-%' ORDER BY id`)
    ).map((r) => r.title);
    expect(titles.length).toBeGreaterThanOrEqual(before);
    expect(titles.length).toBeLessThan(written);
    expect(titles).toEqual(titles.map((_, i) => `w-${i}`));
    // the project's counter as of the same instant as its items
    expect(
      await sql(
        into.url,
        `SELECT p.next_sequence = (SELECT max(project_sequence) + 1 FROM items WHERE project = 'ops') AS agrees
           FROM projects p WHERE p.id = 'ops'`,
      ),
    ).toEqual([{ agrees: true }]);
    // and every other row restored is a row of the source (the writer only added rows since, besides that counter;
    // the volatile tables are request counters and last-used stamps)
    const counter = (row: string) => row.replace(/"next_sequence": \d+/, '');
    const source = await tableRows(db.url);
    const copy = await tableRows(into.url);
    expect([...copy.keys()]).toEqual([...source.keys()]);
    for (const [table, rows] of copy) {
      if (VOLATILE_TABLES.has(table)) continue;
      const present = new Set(source.get(table)!.map(counter));
      expect({ table, missing: rows.filter((row) => !present.has(counter(row))) }).toEqual({ table, missing: [] });
    }
  });

  it('should refuse to restore into a database a daemon is connected to, even with --force', async () => {
    const before = tableDigests(await tableRows(db.url));
    const file = join(dir, 'live.svcbak');
    const refused = await runSvc(['restore', file, '--force'], { env: { SVC_DATABASE_URL: db.url } });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('daemon_running');
    expect(tableDigests(await tableRows(db.url))).toEqual(before);
  });

  describe('with the daemon stopped', () => {
    const file = join(dir, 'quiet.svcbak');
    let source: Record<string, string>;
    let frontiers: unknown[];
    let home: string;

    beforeAll(async () => {
      frontiers = [await frontier(daemon.url, admin, 'shop'), await frontier(daemon.url, admin, 'ops')];
      await daemon.stop();
      source = tableDigests(await tableRows(db.url));
      expect(await runSvc(['backup', file], { env: { SVC_DATABASE_URL: db.url } })).toMatchObject({ code: 0 });
    });

    it("should restore every table's rows into a fresh SVC_HOME, and its daemon serve the same frontier", async () => {
      home = mkdtempSync(join(tmpdir(), 'svc-backup-home-'));
      const restored = await runSvc(['restore', file], { env: { SVC_HOME: home }, timeoutMs: 120000 });
      expect(restored).toMatchObject({ code: 0 });
      expect(restored.stdout).toMatch(/rows\s+\d+/);

      const again = await startDaemonProcess({ env: { SVC_HOME: home, SVC_SERVER_SECRET: SECRET } });
      cleanup.push(() => again.stop());
      expect(tableDigests(await tableRows(embeddedUrl(home), new Set(['migrations', ...VOLATILE_TABLES])))).toEqual(
        Object.fromEntries(Object.entries(source).filter(([k]) => !VOLATILE_TABLES.has(k.split(' ')[0]))),
      );
      // the admin's token was restored with the rest
      expect([await frontier(again.url, admin, 'shop'), await frontier(again.url, admin, 'ops')]).toEqual(frontiers);

      // while that daemon runs, its folder is refused
      const busy = await runSvc(['restore', file, '--force'], { env: { SVC_HOME: home } });
      expect(busy.code).toBe(1);
      expect(busy.stderr).toContain('daemon_running');

      // and backed up through its running server, which keeps serving
      const second = join(dir, 'embedded.svcbak');
      expect(await runSvc(['backup', second], { env: { SVC_HOME: home } })).toMatchObject({ code: 0 });
      expect((await http(again.url, 'GET', '/v1/whoami', { token: admin })).status).toBe(200);
      const stable = new Set(['migrations', ...VOLATILE_TABLES]);
      const live = tableDigests(await tableRows(embeddedUrl(home), stable));
      const into = await emptyDatabase('backup_embedded');
      expect(await runSvc(['restore', second], { env: { SVC_DATABASE_URL: into.url } })).toMatchObject({ code: 0 });
      expect(tableDigests(await tableRows(into.url, stable))).toEqual(live);
    });

    it("should restore every table's rows exactly, volatile ones too, into an empty SVC_DATABASE_URL", async () => {
      const into = await emptyDatabase('backup_quiet');
      expect(await runSvc(['restore', file], { env: { SVC_DATABASE_URL: into.url } })).toMatchObject({ code: 0 });
      expect(tableDigests(await tableRows(into.url))).toEqual(source);
      // the sequences go on from where they were: a new row does not collide
      const next = await sql<{ id: number }>(
        into.url,
        `INSERT INTO projects (id, name, public_item_prefix) VALUES ('later', 'later', 'LATER') RETURNING 1 AS id`,
      );
      expect(next).toHaveLength(1);
      const seq = await sql<{ fresh: boolean }>(
        into.url,
        `SELECT nextval('events_id_seq') > (SELECT max(id) FROM events) AS fresh`,
      );
      expect(seq[0].fresh).toBe(true);
    });

    it('should restore as a role that is not a superuser but owns the database (triggers disabled per table)', async () => {
      const role = `svc_restorer_${Date.now().toString(36)}`;
      await sql(db.url, `CREATE ROLE ${role} LOGIN NOSUPERUSER`);
      // cleaned up in reverse: the database first, then its owner
      cleanup.push(() => sql(db.url, `DROP ROLE IF EXISTS ${role}`));
      const into = await emptyDatabase('backup_owner');
      await sql(into.url, `ALTER DATABASE ${into.name} OWNER TO ${role}`);
      await sql(into.url, `ALTER SCHEMA public OWNER TO ${role}`);
      const asOwner = new URL(into.url);
      asOwner.username = role;
      asOwner.password = '';
      const restored = await runSvc(['restore', file], { env: { SVC_DATABASE_URL: asOwner.toString() } });
      expect(restored).toMatchObject({ code: 0, stderr: '' });
      expect(tableDigests(await tableRows(into.url))).toEqual(source);
      // the triggers are on again: a new item is stamped for the frontier's change tracking
      const stamped = await sql<{ stamped: boolean }>(
        asOwner.toString(),
        `UPDATE items SET title = title || '!' WHERE id = (SELECT min(id) FROM items) RETURNING change_xid IS NOT NULL
           AND change_xid = pg_current_xact_id() AS stamped`,
      );
      expect(stamped).toEqual([{ stamped: true }]);
      await into.drop();
      await sql(db.url, `DROP ROLE ${role}`);
    });

    it('should refuse a non-empty database without --force, and replace it with --force', async () => {
      const into = await emptyDatabase('backup_force');
      expect(await runSvc(['restore', file], { env: { SVC_DATABASE_URL: into.url } })).toMatchObject({ code: 0 });
      await sql(into.url, `INSERT INTO projects (id, name, public_item_prefix) VALUES ('extra', 'extra', 'EXTRA')`);
      const before = tableDigests(await tableRows(into.url));
      const refused = await runSvc(['restore', file], { env: { SVC_DATABASE_URL: into.url } });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('database_not_empty');
      expect(tableDigests(await tableRows(into.url))).toEqual(before);

      expect(await runSvc(['restore', file, '--force'], { env: { SVC_DATABASE_URL: into.url } })).toMatchObject({
        code: 0,
      });
      expect(tableDigests(await tableRows(into.url))).toEqual(source);
    });

    it('should refuse a snapshot whose schema is newer than this version knows, naming the migration', async () => {
      const text = gunzipSync(readFileSync(file));
      const firstLine = text.indexOf(10);
      const headerEnd = text.indexOf(10, firstLine + 1);
      const header = JSON.parse(text.subarray(firstLine + 1, headerEnd).toString()) as { migrations: string[] };
      header.migrations.push('FromTheFuture1799999999999');
      const newer = join(dir, 'newer.svcbak');
      writeFileSync(
        newer,
        gzipSync(
          Buffer.concat([
            text.subarray(0, firstLine + 1),
            Buffer.from(JSON.stringify(header)),
            text.subarray(headerEnd),
          ]),
        ),
      );
      const into = await emptyDatabase('backup_newer');
      const refused = await runSvc(['restore', newer], { env: { SVC_DATABASE_URL: into.url } });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('snapshot_newer');
      expect(refused.stderr).toContain('FromTheFuture1799999999999');
      expect(await sql(into.url, `SELECT 1 FROM pg_tables WHERE schemaname = 'public'`)).toEqual([]);
    });

    it('should refuse a file that is not a backup, or one cut short', async () => {
      const into = await emptyDatabase('backup_cut');
      const notBackup = join(dir, 'not-a-backup');
      writeFileSync(notBackup, 'hello\n');
      const refused = await runSvc(['restore', notBackup], { env: { SVC_DATABASE_URL: into.url } });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('snapshot_unreadable');

      const whole = gunzipSync(readFileSync(file));
      const cut = join(dir, 'cut.svcbak');
      writeFileSync(cut, gzipSync(whole.subarray(0, whole.length - 200)));
      const short = await runSvc(['restore', cut], { env: { SVC_DATABASE_URL: into.url } });
      expect(short.code).toBe(1);
      expect(short.stderr).toContain('snapshot_unreadable');
      // nothing half-loaded: the rows went in one transaction
      expect(await sql<{ n: number }>(into.url, `SELECT count(*)::int AS n FROM items`)).toEqual([{ n: 0 }]);
    });
  });
});
