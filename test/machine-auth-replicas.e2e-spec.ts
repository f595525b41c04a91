import { createTestDatabase, DaemonProcess, startDaemonProcess, TestDatabase, waitFor } from '@app/testing';
import {
  awaitRoomInMinute,
  freshClientIp,
  http,
  pollMachineAuthorization,
  resolveMachineAuthorization,
  sql,
  startMachineAuthorization,
} from '@app/testing/machine-auth';

const SECRET = 'e2e-machine-auth-replicas-0123456789abcdef';

// Two daemon processes on one database, as replicas behind a load balancer.
describe('machine authorization across two daemon processes', () => {
  let db: TestDatabase;
  let one: DaemonProcess;
  let two: DaemonProcess;
  let admin: string;

  const env = (db: TestDatabase) => ({
    SVC_DATABASE_URL: db.url,
    SVC_SERVER_SECRET: SECRET,
    SVC_API_TRUSTED_PROXIES: '127.0.0.1,::1',
  });

  beforeAll(async () => {
    db = await createTestDatabase('server', 'mauth_replicas');
    one = await startDaemonProcess({ env: env(db) });
    two = await startDaemonProcess({ env: env(db) });
    admin = one.token!;
  });

  afterAll(async () => {
    await one?.stop();
    await two?.stop();
    await db?.drop();
  });

  it('should deliver exactly one credential to fifty parallel polls of one approved code', async () => {
    const m = { id: 'm-fifty', name: 'fifty' };
    const started = (await startMachineAuthorization(one.url, m, freshClientIp())).body;
    expect((await resolveMachineAuthorization(two.url, admin, started.user_code, 'approve')).status).toBe(200);
    // Each poll from its own address, so the poll budget (120/min per client) is not what decides.
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        pollMachineAuthorization(i % 2 === 0 ? one.url : two.url, started.device_code, m, freshClientIp()),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 410)).toHaveLength(49);
    for (const r of results.filter((x) => x.status === 410))
      expect(r.body).toMatchObject({ code: 'authorization_consumed' });
    expect(await sql(db.url, `SELECT id FROM machine_credentials WHERE machine_id = 'm-fifty'`)).toHaveLength(1);
  });

  it('should refuse the seventh start in a minute when the starts are split across both processes', async () => {
    const ip = freshClientIp();
    await awaitRoomInMinute(db.url);
    const statuses: number[] = [];
    for (let i = 0; i < 7; i += 1) {
      const res = await startMachineAuthorization(
        i % 2 === 0 ? one.url : two.url,
        { id: `m-split-${i}`, name: 'n' },
        ip,
      );
      statuses.push(res.status);
      if (res.status === 429) {
        expect(res.body).toMatchObject({ code: 'authorization_start_rate_limited' });
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      }
    }
    expect(statuses).toEqual([201, 201, 201, 201, 201, 201, 429]);
  });

  it('should refuse the 121st poll in a minute, split across both processes', async () => {
    const ip = freshClientIp();
    const m = { id: 'm-poll-budget', name: 'n' };
    const started = (await startMachineAuthorization(one.url, m, freshClientIp())).body;
    await awaitRoomInMinute(db.url);
    const results = await Promise.all(
      Array.from({ length: 120 }, (_, i) =>
        pollMachineAuthorization(i % 2 ? one.url : two.url, started.device_code, m, ip),
      ),
    );
    const last = await pollMachineAuthorization(two.url, started.device_code, m, ip);
    expect(results.every((r) => r.status === 202)).toBe(true);
    expect(last.status).toBe(429);
    expect(last.body).toMatchObject({ code: 'authorization_poll_rate_limited' });
    const retryAfter = Number(last.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
  });

  it('should spend the poll budget on malformed, oversized and wrong-type polls too', async () => {
    const ip = freshClientIp();
    await awaitRoomInMinute(db.url);
    const bodies = [
      { raw: '{bad', type: 'application/json' },
      { raw: '<a/>', type: 'application/xml' },
      { raw: '{"device_code": 5}', type: 'application/json' },
      { raw: `{"x":"${'a'.repeat(1_100_000)}"}`, type: 'application/json' },
    ];
    for (let i = 0; i < 120; i += 1) {
      const { raw, type } = bodies[i % bodies.length];
      const res = await http(i % 2 ? one.url : two.url, 'POST', '/api/machine/authorizations/token', {
        raw,
        headers: { 'content-type': type },
        clientIp: ip,
      });
      expect([400, 413, 415]).toContain(res.status);
    }
    // Each reply spends the budget once it has been sent (on 'finish'): wait until all 120 are counted.
    await waitFor(
      async () => {
        const rows = await sql<{ hits: number }>(
          db.url,
          `SELECT coalesce(sum(hits), 0)::int AS hits FROM rate_counters WHERE scope = 'machine_auth_poll' AND subject = $1`,
          [ip],
        );
        return rows[0].hits >= 120;
      },
      { what: 'the 120 rejected polls counted', timeout: 10000, interval: 50 },
    );
    const next = await pollMachineAuthorization(one.url, 'x'.repeat(43), { id: 'm', name: 'n' }, ip);
    expect(next.status).toBe(429);
    expect(next.body).toMatchObject({ code: 'authorization_poll_rate_limited' });
  });

  it('should keep the start budget across a daemon restart', async () => {
    const ip = freshClientIp();
    await awaitRoomInMinute(db.url, 20);
    for (let i = 0; i < 6; i += 1) await startMachineAuthorization(one.url, { id: `m-restart-${i}`, name: 'n' }, ip);
    await one.stop();
    one = await startDaemonProcess({ env: env(db) });
    const res = await startMachineAuthorization(one.url, { id: 'm-restart-7', name: 'n' }, ip);
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({ code: 'authorization_start_rate_limited' });
  });

  it('should ignore a spoofed X-Forwarded-For from an undeclared peer', async () => {
    // A third replica that declares no proxy: the loopback peer's forwarding headers must change nothing.
    const strict = await startDaemonProcess({ env: { ...env(db), SVC_API_TRUSTED_PROXIES: '' } });
    try {
      await awaitRoomInMinute(db.url);
      const statuses: number[] = [];
      for (let i = 0; i < 7; i += 1) {
        const res = await http(strict.url, 'POST', '/api/machine/authorizations', {
          body: { machine_id: `m-spoof-${i}`, machine_name: 'n' },
          headers: { 'x-forwarded-for': `203.0.113.${i}` },
        });
        statuses.push(res.status);
      }
      expect(statuses).toEqual([201, 201, 201, 201, 201, 201, 429]);
      const subjects = await sql<{ subject: string }>(
        db.url,
        `SELECT DISTINCT subject FROM rate_counters WHERE scope = 'machine_auth_start' AND subject LIKE '203.0.113.%'`,
      );
      expect(subjects).toHaveLength(0);
      const stored = await sql<{ client_key: string }>(
        db.url,
        `SELECT DISTINCT client_key FROM machine_authorizations WHERE machine_id LIKE 'm-spoof-%'`,
      );
      expect(stored.map((r) => r.client_key)).toEqual(['127.0.0.1']);
    } finally {
      await strict.stop();
    }
  });

  it('should count a declared proxy’s forwarded clients separately', async () => {
    const a = freshClientIp();
    const b = freshClientIp();
    for (let i = 0; i < 6; i += 1) {
      expect((await startMachineAuthorization(one.url, { id: `m-a-${i}`, name: 'n' }, a)).status).not.toBe(500);
    }
    expect((await startMachineAuthorization(two.url, { id: 'm-b', name: 'n' }, b)).status).toBe(201);
  });

  it('should delete expired codes on the next start', async () => {
    const started = (await startMachineAuthorization(two.url, { id: 'm-sweep', name: 'n' }, freshClientIp())).body;
    expect(started.device_code).toBeDefined();
    await sql(
      db.url,
      `UPDATE machine_authorizations SET expires_at = now() - interval '1 minute' WHERE machine_id = 'm-sweep'`,
    );
    await two.stop();
    two = await startDaemonProcess({ env: env(db) });
    expect(await sql(db.url, `SELECT 1 FROM machine_authorizations WHERE machine_id = 'm-sweep'`)).toHaveLength(0);
    expect(await sql(db.url, `SELECT 1 FROM rate_counters WHERE expires_at < now()`)).toHaveLength(0);
  });
});

describe('the scheduled sweep', () => {
  it('should run on one replica at a time (advisory lock)', async () => {
    const db = await createTestDatabase('server', 'mauth_sweep');
    try {
      const { runMigrations } = await import('../apps/daemon/src/database/migrate');
      await runMigrations(db.url);
      const { DataSource } = await import('typeorm');
      const { dataSourceOptions } = await import('../apps/daemon/src/database/data-source');
      const { MachineAuthorizationSweepService } =
        await import('../apps/daemon/src/machine-authorization/machine-authorization-sweep.service');
      const { MachineAuthorizationSweepRepository } =
        await import('../apps/daemon/src/machine-authorization/machine-authorization-sweep.repository');
      const { SWEEP_LOCK_KEY } = await import('../apps/daemon/src/machine-authorization/limits');
      const dataSource = await new DataSource(dataSourceOptions(db.url, 2)).initialize();
      try {
        await sql(
          db.url,
          `INSERT INTO rate_counters (scope, subject, window_start, hits, expires_at)
           VALUES ('s', 'x', now() - interval '1 hour', 1, now() - interval '1 minute')`,
        );
        const sweeper = new MachineAuthorizationSweepService(new MachineAuthorizationSweepRepository(dataSource));
        const holder = await dataSource.createQueryRunner();
        await holder.connect();
        await holder.startTransaction();
        await holder.query('SELECT pg_advisory_xact_lock($1)', [SWEEP_LOCK_KEY]);
        expect((await sweeper.sweep()).ran).toBe(false);
        await holder.commitTransaction();
        await holder.release();
        expect(await sweeper.sweep()).toMatchObject({ ran: true, rateCounters: 1 });
      } finally {
        await dataSource.destroy();
      }
    } finally {
      await db.drop();
    }
  });
});
