import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { createTestDatabase, DaemonProcess, runSvc, startDaemonProcess, svcEnv, TestDatabase } from '@app/testing';
import { createActor, http, sql } from '@app/testing/machine-auth';

const SECRET = 'e2e-doctor-shared-secret-0123456789abcdef';

interface DoctorJson {
  ok: boolean;
  checks: { check: string; status: 'ok' | 'warn' | 'fail'; detail: string }[];
}

// `svc doctor` against replicas on one database: each check a line, exit 1 when one fails.
describe('svc doctor', () => {
  let db: TestDatabase;
  let one: DaemonProcess;
  let two: DaemonProcess;
  let admin: string;

  const env = { SVC_SERVER_SECRET: SECRET, SVC_API_TRUSTED_PROXIES: '127.0.0.1' };
  const doctor = (daemon: DaemonProcess, token = admin, json = false) =>
    runSvc(json ? ['doctor', '--json'] : ['doctor'], { env: { ...svcEnv(daemon), SVC_TOKEN: token } });
  const line = (stdout: string, name: string) => stdout.split('\n').find((l) => l.includes(`  ${name}  `)) ?? '';

  beforeAll(async () => {
    db = await createTestDatabase('server', 'doctor');
    one = await startDaemonProcess({ env: { ...env, SVC_DATABASE_URL: db.url } });
    two = await startDaemonProcess({ env: { ...env, SVC_DATABASE_URL: db.url } });
    admin = one.token!;
  });

  afterAll(async () => {
    await one?.stop();
    await two?.stop();
    await db?.drop();
  });

  it('should pass every check on two healthy replicas sharing a secret, one line per check', async () => {
    const result = await doctor(two);
    expect(result.code).toBe(0);
    for (const name of ['database', 'migrations', 'server secret', 'public url', 'trusted proxies', 'clock skew']) {
      expect(line(result.stdout, name)).toMatch(/^ok /);
    }
    expect(line(result.stdout, 'server secret')).toContain('from SVC_SERVER_SECRET, shared by 2 replicas');
    expect(line(result.stdout, 'embedded server')).toMatch(/^ok .*not used \(SVC_DATABASE_URL/);
    expect(line(result.stdout, 'trusted proxies')).toContain('127.0.0.1');
  });

  it('should print the checks as JSON with --json', async () => {
    const result = await doctor(one, admin, true);
    expect(result.code).toBe(0);
    const body = JSON.parse(result.stdout) as DoctorJson;
    expect(body.ok).toBe(true);
    expect(body.checks.map((c) => c.check)).toEqual([
      'database',
      'migrations',
      'server secret',
      'public url',
      'trusted proxies',
      'clock skew',
      'embedded server',
    ]);
  });

  it('should refuse the report to a member (403) and fail the check without an admin token', async () => {
    const member = await createActor(db.url, { name: 'doctor-member' });
    expect((await http(one.url, 'GET', '/v1/doctor', { token: member.token })).status).toBe(403);
    const result = await doctor(one, member.token);
    expect(result.code).toBe(1);
    expect(line(result.stdout, 'report')).toMatch(/^FAIL .*server admin's token/);
  });

  it('should fail the migrations check on a database migrated by a newer svc', async () => {
    await sql(db.url, `INSERT INTO migrations (timestamp, name) VALUES (9999999999999, 'FromTheFuture9999999999999')`);
    try {
      const result = await doctor(one);
      expect(result.code).toBe(1);
      expect(line(result.stdout, 'migrations')).toMatch(/^FAIL .*newer svc: FromTheFuture9999999999999/);
    } finally {
      await sql(db.url, `DELETE FROM migrations WHERE name = 'FromTheFuture9999999999999'`);
    }
  });

  it('should fail when a replica holds another secret, trusts every proxy, or publishes a plain-HTTP URL', async () => {
    const stray = await startDaemonProcess({
      env: {
        SVC_DATABASE_URL: db.url,
        SVC_SERVER_SECRET: 'another-secret-entirely-0123456789abcdef',
        SVC_API_TRUSTED_PROXIES: '0.0.0.0/1,128.0.0.0/1',
        SVC_PUBLIC_URL: 'http://svc.example.com',
      },
    });
    try {
      const result = await doctor(stray);
      expect(result.code).toBe(1);
      expect(line(result.stdout, 'server secret')).toMatch(/^FAIL .*replicas hold different secrets/);
      expect(line(result.stdout, 'trusted proxies')).toMatch(
        /^FAIL .*0\.0\.0\.0\/1, 128\.0\.0\.0\/1 trusts the X-Forwarded-For of clients anywhere/,
      );
      expect(line(result.stdout, 'public url')).toMatch(/^FAIL .*plain HTTP/);
      // every replica sees the disagreement: the fingerprints are in the database
      expect((await doctor(one)).code).toBe(1);
    } finally {
      await stray.stop();
    }
  });

  it('should fail at once when no daemon answers', async () => {
    // a home of its own: with no daemon, doctor also checks this machine's SVC_HOME offline (never the user's)
    const home = mkdtempSync(join(tmpdir(), 'svc-doctor-home-'));
    const result = await runSvc(['doctor'], {
      env: { SVC_URL: 'http://127.0.0.1:9', SVC_TOKEN: admin, SVC_HOME: home },
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^FAIL +daemon +cannot reach the svc daemon/m);
    expect(result.stdout).toMatch(/^ok +lock +free$/m);
    expect(result.stdout).toMatch(/^ok +database +no svc database in .* yet: svc up creates it$/m);
  });
});
