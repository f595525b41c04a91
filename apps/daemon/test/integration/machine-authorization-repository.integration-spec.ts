import { randomBytes } from 'node:crypto';

import { waitFor } from '@app/testing';

import { BudgetPool } from '../../src/machine-authorization/budget-pool';
import { CLIENT_CAPACITY } from '../../src/machine-authorization/limits';
import {
  MachineAuthorizationRepository,
  NewAuthorization,
} from '../../src/machine-authorization/machine-authorization.repository';
import { RateLimitRepository } from '../../src/machine-authorization/rate-limit.repository';
import type { AppConfig } from '../../src/config/app-config';
import { createMediumDatabase, MediumDatabase } from './setup/medium';

// The machine-authorization and rate-limit repositories' conditional statements on a real database: a code is
// decided once and consumed once (concurrent polls: one wins), starts stop at the client's capacity, and the
// one-minute counters count every hit exactly once across concurrent callers.
describe('machine-authorization and rate-limit repositories', () => {
  let db: MediumDatabase;
  let budgets: BudgetPool;
  let codes: MachineAuthorizationRepository;
  let counters: RateLimitRepository;
  let approver: number;
  let organization: number;

  const code = (overrides: Partial<NewAuthorization> = {}): NewAuthorization => ({
    deviceCodeHash: randomBytes(32),
    userCodeHash: randomBytes(32),
    clientKey: `client-${randomBytes(4).toString('hex')}`,
    networkKey: `net-${randomBytes(4).toString('hex')}`,
    wideNetworkKey: `wide-${randomBytes(4).toString('hex')}`,
    machineId: 'machine-1',
    machineName: 'build box',
    origin: 'http://127.0.0.1',
    organizationId: null,
    ...overrides,
  });

  beforeAll(async () => {
    db = await createMediumDatabase('machine-auth');
    budgets = new BudgetPool(db.dataSource, { dbPoolSize: 4 } as AppConfig);
    codes = new MachineAuthorizationRepository(db.dataSource, budgets);
    counters = new RateLimitRepository(db.dataSource, budgets);
    const { rows: org } = await db.client.query<{ id: number }>(
      `INSERT INTO organizations (slug, name) VALUES ('acme', 'Acme') RETURNING id`,
    );
    organization = org[0].id;
    const { rows: actor } = await db.client.query<{ id: number }>(
      `INSERT INTO actors (name, kind, status) VALUES ('ada', 'person', 'active') RETURNING id`,
    );
    approver = actor[0].id;
  });

  afterAll(async () => {
    await budgets?.onModuleDestroy();
    await db?.close();
  });

  it('a code is decided once, and of two concurrent polls exactly one consumes it', async () => {
    const started = await codes.insertWithinCapacity(code());
    const id = started.inserted!.id;
    const decide = (status: 'approved' | 'denied') =>
      db.dataSource.transaction((m) => codes.recordDecision(m, id, status, approver, organization, null));
    expect(await decide('approved')).toBe(true);
    // a second decision (either way) changes nothing
    expect(await decide('denied')).toBe(false);

    const polls = await Promise.all(
      [0, 1].map(() => db.dataSource.transaction((m) => codes.markConsumed(m, id, 'machine-1'))),
    );
    expect(polls.filter((p) => p !== null)).toEqual([
      { decidedBy: approver, organizationId: organization, machineName: 'build box', parent: null },
    ]);
    // consumed: a later poll finds nothing to consume
    expect(await db.dataSource.transaction((m) => codes.markConsumed(m, id, 'machine-1'))).toBeNull();
  });

  it('another machine, an expired or an undecided code is never consumed', async () => {
    const other = (await codes.insertWithinCapacity(code())).inserted!.id;
    await db.dataSource.transaction((m) => codes.recordDecision(m, other, 'approved', approver, organization, null));
    expect(await db.dataSource.transaction((m) => codes.markConsumed(m, other, 'machine-2'))).toBeNull();

    const pending = (await codes.insertWithinCapacity(code())).inserted!.id;
    expect(await db.dataSource.transaction((m) => codes.markConsumed(m, pending, 'machine-1'))).toBeNull();

    const expired = (await codes.insertWithinCapacity(code())).inserted!.id;
    await db.dataSource.transaction((m) => codes.recordDecision(m, expired, 'approved', approver, organization, null));
    await db.client.query(`UPDATE machine_authorizations SET expires_at = now() - interval '1 second' WHERE id = $1`, [
      expired,
    ]);
    expect(await db.dataSource.transaction((m) => codes.markConsumed(m, expired, 'machine-1'))).toBeNull();
    // nor decided once expired
    expect(
      await db.dataSource.transaction((m) => codes.recordDecision(m, expired, 'denied', approver, organization, null)),
    ).toBe(false);
  });

  it("concurrent starts from one client stop at the client's capacity", async () => {
    const clientKey = 'one-client';
    const results = await Promise.all(
      Array.from({ length: CLIENT_CAPACITY + 3 }, () => codes.insertWithinCapacity(code({ clientKey }))),
    );
    expect(results.filter((r) => r.inserted !== null)).toHaveLength(CLIENT_CAPACITY);
    const { rows } = await db.client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM machine_authorizations WHERE client_key = $1`,
      [clientKey],
    );
    expect(rows[0].n).toBe(CLIENT_CAPACITY);
  });

  it('the one-minute counters count every concurrent hit once; peek reads the highest subject', async () => {
    // the counters' window is the database clock's minute: start with two seconds of it left at least (waits ≤ 2 s)
    await waitFor(
      async () =>
        (await db.client.query<{ s: number }>(`SELECT extract(second FROM now())::float AS s`)).rows[0].s < 58,
      { timeout: 3_000, interval: 200, what: 'two seconds left in the minute' },
    );
    const hits = await Promise.all(Array.from({ length: 12 }, () => counters.hit('test-scope', 'subject-a')));
    expect(hits.map((h) => h.hits).sort((x, y) => x - y)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    for (const h of hits) {
      expect(h.retryAfter).toBeGreaterThanOrEqual(1);
      expect(h.retryAfter).toBeLessThanOrEqual(60);
    }
    await counters.hit('test-scope', 'subject-b');
    expect((await counters.peek('test-scope', ['subject-a', 'subject-b'])).hits).toBe(12);
    expect((await counters.peek('test-scope', ['subject-b'])).hits).toBe(1);
    expect((await counters.peek('test-scope', ['nobody'])).hits).toBe(0);
    expect((await counters.peek('other-scope', ['subject-a'])).hits).toBe(0);
  });

  it("the sweep removes only the counters past their window's expiry", async () => {
    await counters.hit('sweep-scope', 'old');
    await counters.hit('sweep-scope', 'new');
    await db.client.query(
      `UPDATE rate_counters SET expires_at = now() - interval '1 second' WHERE scope = 'sweep-scope' AND subject = 'old'`,
    );
    expect(await counters.sweep()).toBeGreaterThanOrEqual(1);
    const { rows } = await db.client.query<{ subject: string }>(
      `SELECT subject FROM rate_counters WHERE scope = 'sweep-scope'`,
    );
    expect(rows.map((r) => r.subject)).toEqual(['new']);
  });
});
