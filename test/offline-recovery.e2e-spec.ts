import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { createTestDatabase, runSvc, startDaemonProcess, TestDatabase } from '@app/testing';
import { freePort } from '@app/testing/caddy';
import { sql } from '@app/testing/machine-auth';

const SECRET = 'e2e-offline-recovery-0123456789abcdef0123456789';
const SLOW = { timeoutMs: 120_000 };
jest.setTimeout(240_000);

// Break-glass with the daemon down (issue 40): a new admin token straight in the database, and an offline doctor
// (and svc up) that say why a daemon will not start: PostgreSQL unreachable, a newer database, the lock held, a
// server secret that differs. Nothing answers at SVC_URL (port 9) in any of these.
describe('with no daemon: svc admin token --offline, the offline doctor and svc up’s reasons', () => {
  let db: TestDatabase;
  const noDaemon = 'http://127.0.0.1:9';

  beforeAll(async () => {
    db = await createTestDatabase('server', 'offline');
    // one daemon migrates the database, creates the admin and reports its secret's fingerprint, then stops
    const daemon = await startDaemonProcess({
      env: { SVC_DATABASE_URL: db.url, SVC_SERVER_SECRET: SECRET },
      timeoutMs: 120_000,
    });
    await daemon.stop();
  });

  afterAll(async () => {
    await db?.drop();
  });

  const offlineEnv = (extra: Record<string, string> = {}) => ({
    SVC_URL: noDaemon,
    SVC_DATABASE_URL: db.url,
    SVC_SERVER_SECRET: SECRET,
    SVC_HOME: mkdtempSync(join(tmpdir(), 'svc-offline-home-')),
    ...extra,
  });

  it('should mint a server-admin token in the database, print it once, record it with path offline, and let it in', async () => {
    const result = await runSvc(['admin', 'token', '--offline'], { env: offlineEnv(), ...SLOW });
    expect(result.stderr).toContain('recorded with path offline');
    expect(result.code).toBe(0);
    const token = result.stdout.trim();
    expect(token).toMatch(/^svc_[A-Za-z0-9_-]{43}$/);
    // stored as the daemon stores tokens: the SHA-256 only, for the admin
    const rows = await sql<{ actor: string; name: string }>(
      db.url,
      `SELECT a.name AS actor, t.name FROM api_tokens t JOIN actors a ON a.id = t.actor_id WHERE t.token_hash = $1`,
      [createHash('sha256').update(token).digest()],
    );
    expect(rows).toEqual([{ actor: 'admin', name: expect.stringMatching(/^break-glass /) }]);
    const records = await sql<{ path: string; action: string }>(
      db.url,
      `SELECT path, action FROM change_records WHERE object = 'api_token' ORDER BY id DESC LIMIT 1`,
    );
    expect(records).toEqual([{ path: 'offline', action: 'created' }]);
    // without --offline: refused, nothing written
    const plain = await runSvc(['admin', 'token'], { env: offlineEnv() });
    expect(plain.code).toBe(2);
    expect(plain.stderr).toContain('offline_required');
    // the token works once a daemon runs
    const daemon = await startDaemonProcess({
      env: { SVC_DATABASE_URL: db.url, SVC_SERVER_SECRET: SECRET },
      timeoutMs: 120_000,
    });
    try {
      const me = await runSvc(['whoami', '--json'], { env: { SVC_URL: daemon.url, SVC_TOKEN: token } });
      expect(me.code).toBe(0);
      expect(JSON.parse(me.stdout)).toMatchObject({ name: 'admin', is_admin: true });
    } finally {
      await daemon.stop();
    }
  });

  it('should pass the offline doctor on a healthy database with the same secret', async () => {
    const result = await runSvc(['doctor'], { env: offlineEnv(), ...SLOW });
    expect(result.stdout).toMatch(/^FAIL +daemon +cannot reach/m);
    expect(result.stdout).toMatch(/^ok +database +reachable at /m);
    expect(result.stdout).toMatch(/^ok +migrations +\d+ applied, none pending/m);
    expect(result.stdout).toMatch(/^ok +server secret +fingerprint [0-9a-f]{16} from SVC_SERVER_SECRET/m);
  });

  it('should say PostgreSQL is unreachable, and svc up should say so when its daemon exits', async () => {
    const env = offlineEnv({ SVC_DATABASE_URL: 'postgres://postgres@127.0.0.1:9/svc' });
    const doctor = await runSvc(['doctor'], { env, ...SLOW });
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(/^FAIL +database +PostgreSQL is unreachable at 127\.0\.0\.1:9\/svc: ECONNREFUSED/m);
    const up = await runSvc(['up', '--no-tui'], {
      env: { ...env, SVC_URL: `http://127.0.0.1:${await freePort()}` },
      ...SLOW,
    });
    expect(up.code).toBe(1);
    expect(up.stderr).toContain('daemon_exited');
    expect(up.stderr).toMatch(/PostgreSQL is unreachable at 127\.0\.0\.1:9\/svc/);
    expect(up.stderr).not.toMatch(/the daemon exited before it was ready; see/);
  });

  it('should fail the secret check when the secret differs from the one the replicas used', async () => {
    const result = await runSvc(['doctor'], {
      env: offlineEnv({ SVC_SERVER_SECRET: 'another-secret-0123456789abcdef0123456789abcdef' }),
      ...SLOW,
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /^FAIL +server secret +the secret of SVC_SERVER_SECRET \(fingerprint [0-9a-f]{16}\) is not/m,
    );
  });

  it('should name the lock holder, and svc up should show the daemon’s refusal', async () => {
    const home = mkdtempSync(join(tmpdir(), 'svc-offline-locked-'));
    // a live process holds the home's lock (this test's own pid: alive, and no daemon answers at its address)
    writeFileSync(
      join(home, 'daemon.lock'),
      JSON.stringify({ pid: process.pid, url: noDaemon, started_at: new Date().toISOString(), cmdline: '' }),
    );
    const env = { SVC_URL: noDaemon, SVC_HOME: home };
    const doctor = await runSvc(['doctor'], { env, ...SLOW });
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(
      new RegExp(`^FAIL +lock +.*daemon\\.lock is held by a live daemon \\(pid ${process.pid}`, 'm'),
    );
    const up = await runSvc(['up', '--no-tui'], {
      env: { ...env, SVC_URL: `http://127.0.0.1:${await freePort()}` },
      ...SLOW,
    });
    expect(up.code).toBe(1);
    expect(up.stderr).toContain(`another svc daemon (pid ${process.pid}`);
  });

  it('should say the database was migrated by a newer svc, and svc up should show the daemon’s refusal', async () => {
    await sql(db.url, `INSERT INTO migrations (timestamp, name) VALUES (9999999999999, 'FromTheFuture9999999999999')`);
    try {
      const doctor = await runSvc(['doctor'], { env: offlineEnv(), ...SLOW });
      expect(doctor.code).toBe(1);
      expect(doctor.stdout).toMatch(/^FAIL +migrations +the database was migrated by a newer svc \(FromTheFuture/m);
      const up = await runSvc(['up', '--no-tui'], {
        env: { ...offlineEnv(), SVC_URL: `http://127.0.0.1:${await freePort()}` },
        ...SLOW,
      });
      expect(up.code).toBe(1);
      expect(up.stderr).toMatch(/migrated by a newer version of svc/);
      expect(up.stderr).toContain('FromTheFuture9999999999999');
      // and no break-glass token is written into a schema this version does not know
      const token = await runSvc(['admin', 'token', '--offline'], { env: offlineEnv(), ...SLOW });
      expect(token.code).toBe(1);
      expect(token.stderr).toContain('database_newer');
    } finally {
      await sql(db.url, `DELETE FROM migrations WHERE name = 'FromTheFuture9999999999999'`);
    }
  });
});
