import { Notification } from 'pg';

import { waitFor } from '@app/testing';

import { EVENTS_CHANNEL, EventsRepository } from '../../src/events/events.repository';
import { createMediumDatabase, MediumDatabase } from './setup/medium';

// Best-effort events (FrontierComputed on every frontier read) commit asynchronously: the row and its NOTIFY are
// there as with any insert, and the setting stays with that one statement's transaction, not with the pooled
// connection the next query runs on.
describe(`${EventsRepository.name}.insert with asynchronous commit`, () => {
  let db: MediumDatabase;
  let sut: EventsRepository;

  beforeAll(async () => {
    db = await createMediumDatabase('events_insert');
    sut = new EventsRepository(db.dataSource);
  });

  afterAll(async () => {
    await db?.close();
  });

  it('commits the row and announces it, and leaves synchronous_commit as it was on the connection', async () => {
    const notified = new Promise<Notification>((resolve) => db.client.on('notification', resolve));
    await db.client.query(`LISTEN ${EVENTS_CHANNEL}`);
    const runner = db.dataSource.createQueryRunner();
    await runner.connect();
    try {
      const inserted = await sut.insert(
        { name: 'FrontierComputed', kind: 'workflow', payload: { counts: { runnable: 1 } } },
        runner.manager,
        true,
      );

      expect(inserted.id).toEqual(expect.any(String));
      const { rows } = await db.client.query('SELECT name, payload FROM events WHERE id = $1', [inserted.id]);
      expect(rows).toEqual([{ name: 'FrontierComputed', payload: { counts: { runnable: 1 } } }]);
      expect(JSON.parse((await notified).payload!)).toMatchObject({ type: 'event', id: Number(inserted.id) });
      expect(await runner.query('SHOW synchronous_commit')).toEqual([{ synchronous_commit: 'on' }]);
    } finally {
      await runner.release();
    }
  });

  // A stream resumes after the last id it saw (Last-Event-ID), so an event with a smaller id must never commit after
  // a larger one: the next writer draws its id only once the one before has committed.
  it('draws event ids in commit order: a second writer waits for the first to commit', async () => {
    const first = db.dataSource.createQueryRunner();
    const second = db.dataSource.createQueryRunner();
    await first.connect();
    await second.connect();
    try {
      await first.startTransaction();
      const a = await sut.insert({ name: 'Ordered', kind: 'telemetry', payload: { n: 1 } }, first.manager);
      await second.startTransaction();
      const secondPid = String(((await second.query('SELECT pg_backend_pid() AS pid')) as { pid: number }[])[0].pid);
      const pending = sut.insert({ name: 'Ordered', kind: 'telemetry', payload: { n: 2 } }, second.manager);
      await waitFor(
        async () => {
          const { rows } = await db.client.query<{ wait: string | null }>(
            `SELECT wait_event AS wait FROM pg_stat_activity WHERE pid = $1`,
            [secondPid],
          );
          return rows[0]?.wait === 'advisory';
        },
        { timeout: 10_000, interval: 20, what: 'the second insert to wait on the first' },
      );
      await first.commitTransaction();
      const b = await pending;
      await second.commitTransaction();
      expect(BigInt(b.id)).toBeGreaterThan(BigInt(a.id));
    } finally {
      if (first.isTransactionActive) await first.rollbackTransaction();
      if (second.isTransactionActive) await second.rollbackTransaction();
      await first.release();
      await second.release();
    }
  });

  it('announces concurrent writers in ascending id order, whichever transaction began first', async () => {
    const seen: number[] = [];
    db.client.on('notification', (n) => {
      const body = JSON.parse(n.payload!) as { name: string; id: number };
      if (body.name === 'Concurrent') seen.push(body.id);
    });
    await db.client.query(`LISTEN ${EVENTS_CHANNEL}`);
    // Each writer does other work in its transaction before and after its event's insert, in random spans.
    const writes = Array.from({ length: 24 }, async (_, i) => {
      const runner = db.dataSource.createQueryRunner();
      await runner.connect();
      try {
        await runner.startTransaction();
        await runner.query('SELECT pg_sleep($1)', [((i * 7) % 5) / 1000]);
        await sut.insert({ name: 'Concurrent', kind: 'telemetry', payload: { i } }, runner.manager);
        await runner.query('SELECT pg_sleep($1)', [((i * 3) % 4) / 1000]);
        await runner.commitTransaction();
      } finally {
        await runner.release();
      }
    });
    await Promise.all(writes);
    await waitFor(() => seen.length === 24, { timeout: 10_000, interval: 20, what: 'every notice' });
    expect(seen).toEqual([...seen].sort((x, y) => x - y));
  });
});
