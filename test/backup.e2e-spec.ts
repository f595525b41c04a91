import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
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
  SVC_BIN,
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

// A snapshot file taken apart (gunzipped): the magic line, the header line, each table's frames, the trailer line.
interface SnapshotParts {
  magic: string;
  header: { format: number; tables: { name: string }[]; migrations: string[] } & Record<string, unknown>;
  tables: Buffer[][];
  trailer: { rows: Record<string, number> } & Record<string, unknown>;
}

function takeApart(file: string): SnapshotParts {
  const text = gunzipSync(readFileSync(file));
  let at = 0;
  const line = () => {
    const end = text.indexOf(10, at);
    const out = text.subarray(at, end).toString();
    at = end + 1;
    return out;
  };
  const magic = line();
  const header = JSON.parse(line()) as SnapshotParts['header'];
  const tables = header.tables.map(() => {
    const frames: Buffer[] = [];
    for (;;) {
      const length = text.readUInt32BE(at);
      at += 4;
      if (length === 0) return frames;
      frames.push(Buffer.from(text.subarray(at, at + length)));
      at += length;
    }
  });
  return { magic, header, tables, trailer: JSON.parse(line()) as SnapshotParts['trailer'] };
}

function putTogether(parts: SnapshotParts, file: string): string {
  const frame = (bytes: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    return Buffer.concat([length, bytes]);
  };
  const body = parts.tables.flatMap((frames) => [...frames.map(frame), frame(Buffer.alloc(0))]);
  writeFileSync(
    file,
    gzipSync(
      Buffer.concat([
        Buffer.from(`${parts.magic}\n${JSON.stringify(parts.header)}\n`),
        ...body,
        Buffer.from(`${JSON.stringify(parts.trailer)}\n`),
      ]),
    ),
  );
  return file;
}

// A file as svc wrote it before issue 40 (format 1): no checksums in the trailer.
function asFormatOne(parts: SnapshotParts): SnapshotParts {
  return {
    magic: 'SVC-SNAPSHOT 1',
    header: { ...parts.header, format: 1 },
    tables: parts.tables,
    trailer: { rows: parts.trailer.rows },
  };
}

// The same rows with one row of `table` given a column too many: same row count, refused by COPY at the load.
function withBadRow(parts: SnapshotParts, table: string): SnapshotParts {
  const index = parts.header.tables.findIndex((t) => t.name === table);
  const tables = parts.tables.map((frames, i) => {
    if (i !== index) return frames;
    const all = Buffer.concat(frames);
    const end = all.indexOf(10);
    return [Buffer.concat([all.subarray(0, end), Buffer.from('\textra'), all.subarray(end)])];
  });
  return { ...parts, tables };
}

// Every row of every table, the migrations included: equal means the database is exactly as it was.
const everything = async (url: string) => tableDigests(await tableRows(url, new Set()));

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

  it('should refuse a backup into a folder that does not exist with a clear error', async () => {
    const missing = join(dir, 'no-such-folder');
    const refused = await runSvc(['backup', join(missing, 'x.svcbak')], { env: { SVC_DATABASE_URL: db.url } });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`backup_folder_missing: ${missing} is not a folder`);
    expect(refused.stderr).not.toContain('.partial-');
  });

  it('should refuse to restore into a database a daemon is connected to, even with --force', async () => {
    // the running daemon itself touches the volatile tables meanwhile (its replica's heartbeat, a token's last use)
    const rows = async () => tableDigests(await tableRows(db.url, VOLATILE_TABLES));
    const before = await rows();
    const file = join(dir, 'live.svcbak');
    const refused = await runSvc(['restore', file, '--force'], { env: { SVC_DATABASE_URL: db.url } });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('daemon_running');
    expect(await rows()).toEqual(before);
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
      // the server secret is not in the backup: the restore says where it goes
      expect(restored.stderr).toContain(`no server secret in ${home}`);

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
      // with a password: the embedded fallback server asks for one (trust-only servers ignore it)
      const password = `pw-${role}`;
      await sql(db.url, `CREATE ROLE ${role} LOGIN NOSUPERUSER PASSWORD '${password}'`);
      // cleaned up in reverse: the database first, then its owner
      cleanup.push(() => sql(db.url, `DROP ROLE IF EXISTS ${role}`));
      const into = await emptyDatabase('backup_owner');
      await sql(into.url, `ALTER DATABASE ${into.name} OWNER TO ${role}`);
      await sql(into.url, `ALTER SCHEMA public OWNER TO ${role}`);
      const asOwner = new URL(into.url);
      asOwner.username = role;
      asOwner.password = password;
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
      // as a newer svc writes it: its header names a migration this version lacks, and its checksum agrees
      const parts = takeApart(file);
      parts.header.migrations.push('FromTheFuture1799999999999');
      parts.trailer.header_sha256 = createHash('sha256').update(JSON.stringify(parts.header)).digest('hex');
      const newer = putTogether(parts, join(dir, 'newer.svcbak'));
      const into = await emptyDatabase('backup_newer');
      const refused = await runSvc(['restore', newer], { env: { SVC_DATABASE_URL: into.url } });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('snapshot_newer');
      expect(refused.stderr).toContain('FromTheFuture1799999999999');
      expect(await sql(into.url, `SELECT 1 FROM pg_tables WHERE schemaname = 'public'`)).toEqual([]);
    });

    it('should name the server secret to keep beside a backup (it is not in the file)', async () => {
      const home = mkdtempSync(join(tmpdir(), 'svc-backup-secret-'));
      writeFileSync(join(home, 'server-secret'), 'a-secret-of-this-home-0123456789abcdef\n', { mode: 0o600 });
      const inHome = await runSvc(['backup', join(dir, 'secret-home.svcbak'), '--json'], {
        env: { SVC_DATABASE_URL: db.url, SVC_HOME: home },
      });
      expect(inHome).toMatchObject({ code: 0 });
      expect(JSON.parse(inHome.stdout)).toMatchObject({ server_secret_to_keep: join(home, 'server-secret') });
      expect(inHome.stderr).toContain(`the server secret (${join(home, 'server-secret')}) is not in the backup`);
      expect(gunzipSync(readFileSync(join(dir, 'secret-home.svcbak'))).includes('a-secret-of-this-home')).toBe(false);

      const inEnv = await runSvc(['backup', join(dir, 'secret-env.svcbak'), '--json'], {
        env: { SVC_DATABASE_URL: db.url, SVC_HOME: home, SVC_SERVER_SECRET: SECRET },
      });
      expect(JSON.parse(inEnv.stdout)).toMatchObject({ server_secret_to_keep: 'SVC_SERVER_SECRET' });
    });

    it('should leave no PostgreSQL or daemon.lock behind when a restore into a home is interrupted, and retry', async () => {
      const home = mkdtempSync(join(tmpdir(), 'svc-backup-interrupted-'));
      const child = spawn(process.execPath, [SVC_BIN, 'restore', file], {
        env: { PATH: process.env.PATH, HOME: process.env.HOME, SVC_HOME: home },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      // interrupted once its PostgreSQL runs and the restore has begun
      await waitFor(() => existsSync(join(home, 'pg', 'postmaster.pid')) && existsSync(join(home, 'daemon.lock')), {
        interval: 10,
        what: 'the restore to start its PostgreSQL',
      });
      child.kill('SIGINT');
      expect({ code: await exited, stderr }).toMatchObject({ code: 130 });
      expect(existsSync(join(home, 'pg', 'postmaster.pid'))).toBe(false);
      expect(existsSync(join(home, 'daemon.lock'))).toBe(false);

      const retried = await runSvc(['restore', file], { env: { SVC_HOME: home }, timeoutMs: 120000 });
      expect(retried).toMatchObject({ code: 0 });
    }, 180000);

    describe('a bad file (issue 40)', () => {
      const cutGzip = join(dir, 'cut-gzip.svcbak');
      const flipped = join(dir, 'flipped.svcbak');
      const wrongSum = join(dir, 'wrong-checksum.svcbak');

      beforeAll(() => {
        const bytes = readFileSync(file);
        writeFileSync(cutGzip, bytes.subarray(0, Math.floor(bytes.length * 0.7)));
        const damaged = Buffer.from(bytes);
        damaged[Math.floor(damaged.length / 2)] ^= 0x20;
        writeFileSync(flipped, damaged);
        // a byte changed inside the rows and gzipped again: gzip is whole, only the table's checksum can tell
        const parts = takeApart(file);
        const index = parts.header.tables.findIndex((t) => t.name === 'projects');
        const rows = Buffer.concat(parts.tables[index]);
        rows[rows.indexOf('shop')] = 'S'.charCodeAt(0);
        parts.tables[index] = [rows];
        putTogether(parts, wrongSum);
      });

      it('should verify a file without any database, and name what is wrong in a bad one', async () => {
        const nowhere = join(dir, 'no-home-here');
        const env = { SVC_HOME: nowhere };
        const good = await runSvc(['restore', '--verify', file, '--json'], { env });
        expect(good).toMatchObject({ code: 0 });
        const body = JSON.parse(good.stdout) as { ok: boolean; format: number; checksums: boolean; rows: object };
        expect(body).toMatchObject({ ok: true, format: 2, checksums: true, unknown_migrations: [] });
        expect(body.rows).toEqual(takeApart(file).trailer.rows);
        for (const [bad, says] of [
          [cutGzip, 'ends early'],
          [flipped, 'is damaged'],
          [wrongSum, 'table projects does not match its checksum'],
        ]) {
          const refused = await runSvc(['restore', '--verify', bad], { env });
          expect({ bad, code: refused.code, says: refused.stderr.includes(says) }).toEqual({
            bad,
            code: 1,
            says: true,
          });
          expect(refused.stderr).toContain('snapshot_corrupt');
        }
        expect(existsSync(nowhere)).toBe(false);
      });

      it('should leave a database exactly as it was when restore --force meets a bad file, in seconds', async () => {
        const into = await emptyDatabase('backup_bad_force');
        expect(await runSvc(['restore', file], { env: { SVC_DATABASE_URL: into.url } })).toMatchObject({ code: 0 });
        await sql(into.url, `INSERT INTO projects (id, name, public_item_prefix) VALUES ('kept', 'kept', 'KEPT')`);
        const before = await everything(into.url);
        for (const bad of [cutGzip, flipped, wrongSum]) {
          const refused = await runSvc(['restore', bad, '--force'], {
            env: { SVC_DATABASE_URL: into.url },
            timeoutMs: 60000,
          });
          expect({ bad, code: refused.code, corrupt: refused.stderr.includes('snapshot_corrupt') }).toEqual({
            bad,
            code: 1,
            corrupt: true,
          });
          expect(await everything(into.url)).toEqual(before);
        }
      });

      it('should read a format-1 file, and roll back all of a load that fails so that a retry works', async () => {
        const parts = takeApart(file);
        const old = putTogether(asFormatOne(parts), join(dir, 'format-1.svcbak'));
        const oldBad = putTogether(asFormatOne(withBadRow(parts, 'projects')), join(dir, 'format-1-bad.svcbak'));
        const verified = await runSvc(['restore', '--verify', old, '--json']);
        expect(verified).toMatchObject({ code: 0 });
        expect(JSON.parse(verified.stdout)).toMatchObject({ ok: true, format: 1, checksums: false });

        // its rows are damaged in a way only the load finds: nothing of the attempt is left behind
        const into = await emptyDatabase('backup_retry');
        const failed = await runSvc(['restore', oldBad], { env: { SVC_DATABASE_URL: into.url } });
        expect(failed.code).toBe(1);
        expect(failed.stderr).toContain('extra data after last expected column');
        expect(
          await sql(
            into.url,
            `SELECT relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                                     WHERE n.nspname = 'public'`,
          ),
        ).toEqual([]);
        // the retry, without --force
        expect(await runSvc(['restore', old], { env: { SVC_DATABASE_URL: into.url } })).toMatchObject({ code: 0 });
        expect(tableDigests(await tableRows(into.url))).toEqual(source);

        // and over a database with rows, --force keeps them when the load fails
        const before = await everything(into.url);
        const forced = await runSvc(['restore', oldBad, '--force'], { env: { SVC_DATABASE_URL: into.url } });
        expect(forced.code).toBe(1);
        expect(await everything(into.url)).toEqual(before);
      });
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
      expect(short.stderr).toContain('snapshot_corrupt');
      // nothing half-loaded: the file was checked before anything was made
      expect(await sql(into.url, `SELECT 1 FROM pg_tables WHERE schemaname = 'public'`)).toEqual([]);
    });
  });
});
