import { waitFor } from '@app/testing';

import { EventsStreamService, StreamMessage } from '../../src/events/events-stream.service';
import { EventsRepository } from '../../src/events/events.repository';
import { NoticeFeedRepository } from '../../src/events/notice-feed.repository';
import { createMediumDatabase, MediumDatabase } from './setup/medium';

// Recorded events reach the live stream through the notice feed (stream_notices, read below the oldest transaction in
// flight: events-stream.service.ts), in (xid, id) order, the order a stream resumes in with Last-Event-ID. No writer
// waits for another's commit (issue 38: this used to be an advisory lock held through every event's commit).
describe(`${EventsRepository.name}.insert and the notice feed`, () => {
  let db: MediumDatabase;
  let sut: EventsRepository;
  const readers: EventsStreamService[] = [];

  // A replica's reader of the feed, and the recorded events it delivered, in order.
  async function reader(name: string): Promise<{ ids: string[]; stream: EventsStreamService }> {
    const stream = new EventsStreamService(
      db.dataSource,
      EventsStreamService.clientFactory(db.dataSource),
      new NoticeFeedRepository(),
    );
    readers.push(stream);
    const ids: string[] = [];
    stream.messages.subscribe((m: StreamMessage) => {
      if (m.type === 'event' && m.name === name && m.id !== null) ids.push(m.id);
    });
    await stream.onModuleInit();
    return { ids, stream };
  }

  beforeAll(async () => {
    db = await createMediumDatabase('events_insert');
    sut = new EventsRepository(db.dataSource);
  });

  afterAll(async () => {
    for (const r of readers) await r.onModuleDestroy();
    await db?.close();
  });

  it('commits the row and announces it, and leaves synchronous_commit as it was on the connection', async () => {
    const { ids } = await reader('FrontierComputed');
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
      await waitFor(() => ids.length === 1, { timeout: 10_000, interval: 10, what: 'the notice' });
      expect(ids).toEqual([inserted.id]);
      expect(await runner.query('SHOW synchronous_commit')).toEqual([{ synchronous_commit: 'on' }]);
    } finally {
      await runner.release();
    }
  });

  // The older transaction draws the larger id and commits last: the stream holds the younger one's event back until
  // the older has ended, then delivers both in (xid, id) order, and a resume after the first delivered gets the other.
  it('never makes a writer wait for another, and delivers nothing an older transaction could still precede', async () => {
    const { ids, stream } = await reader('Ordered');
    const older = db.dataSource.createQueryRunner();
    const younger = db.dataSource.createQueryRunner();
    await older.connect();
    await younger.connect();
    try {
      await older.startTransaction();
      await older.query('SELECT pg_current_xact_id()');
      await younger.startTransaction();
      await younger.query('SELECT pg_current_xact_id()');
      const b = await sut.insert({ name: 'Ordered', kind: 'telemetry', payload: { n: 2 } }, younger.manager);
      // the younger commits while the older is still open: no lock in between
      await younger.commitTransaction();
      const a = await sut.insert({ name: 'Ordered', kind: 'telemetry', payload: { n: 1 } }, older.manager);
      expect(BigInt(a.id)).toBeGreaterThan(BigInt(b.id));
      // a NOTIFY is delivered after a read of the feed that began after it arrived: that read held b back
      let marked = false;
      stream.messages.subscribe((m) => (marked ||= m.type === 'marker'));
      await db.client.query(`SELECT pg_notify('svc_items', '{"type":"marker"}')`);
      await waitFor(() => marked, { timeout: 10_000, interval: 10, what: 'the marker' });
      expect(ids).toEqual([]);
      await older.commitTransaction();
      await waitFor(() => ids.length === 2, { timeout: 10_000, interval: 10, what: 'both events' });
      expect(ids).toEqual([a.id, b.id]);

      const resumed = await sut.replayAfter({ afterId: a.id, name: 'Ordered', projects: null, limit: 10 });
      expect(resumed.rows.map((r) => r.id)).toEqual([b.id]);
      const fromStart = await sut.replayAfter({ afterId: '0', name: 'Ordered', projects: null, limit: 10 });
      expect(fromStart.rows.map((r) => r.id)).toEqual([a.id, b.id]);
    } finally {
      if (older.isTransactionActive) await older.rollbackTransaction();
      if (younger.isTransactionActive) await younger.rollbackTransaction();
      await older.release();
      await younger.release();
    }
  });

  it('delivers concurrent writers in one order on every replica, and a resume after any of them gets exactly the rest', async () => {
    const first = await reader('Concurrent');
    const second = await reader('Concurrent');
    // Each writer does other work in its transaction before and after its event's insert, in random spans.
    const writes = Array.from({ length: 24 }, async (_, i) => {
      const runner = db.dataSource.createQueryRunner();
      await runner.connect();
      try {
        await runner.startTransaction();
        if (i % 2 === 0) await runner.query('SELECT pg_current_xact_id()');
        await runner.query('SELECT pg_sleep($1)', [((i * 7) % 5) / 1000]);
        await sut.insert({ name: 'Concurrent', kind: 'telemetry', payload: { i } }, runner.manager);
        await runner.query('SELECT pg_sleep($1)', [((i * 3) % 4) / 1000]);
        await runner.commitTransaction();
      } finally {
        await runner.release();
      }
    });
    await Promise.all(writes);
    await waitFor(() => first.ids.length === 24 && second.ids.length === 24, {
      timeout: 10_000,
      interval: 20,
      what: 'every notice on both replicas',
    });
    expect(second.ids).toEqual(first.ids);
    expect(new Set(first.ids).size).toBe(24);
    for (let k = 0; k < first.ids.length; k++) {
      const { rows } = await sut.replayAfter({ afterId: first.ids[k], name: 'Concurrent', projects: null, limit: 100 });
      expect(rows.map((r) => r.id)).toEqual(first.ids.slice(k + 1));
    }
  });
  // Item, dependency, claim and machine-authorization notices carry no id and are not replayed: they are delivered as
  // soon as they are committed, ahead of the horizon, and not again when it passes them.
  it('delivers a notice that is no recorded event at once, and once, while an older transaction is open', async () => {
    const stream = new EventsStreamService(
      db.dataSource,
      EventsStreamService.clientFactory(db.dataSource),
      new NoticeFeedRepository(),
    );
    readers.push(stream);
    const seen: string[] = [];
    stream.messages.subscribe((m) => {
      if (m.type === 'item' || m.type === 'marker') seen.push(String(m.data.item_id ?? m.type));
    });
    await stream.onModuleInit();
    const older = db.dataSource.createQueryRunner();
    await older.connect();
    try {
      await older.startTransaction();
      await older.query('SELECT pg_current_xact_id()');
      await db.client.query(`SELECT svc_notice('svc_items', '{"type":"item","project":"p","item_id":"EARLY-1"}')`);
      await waitFor(() => seen.includes('EARLY-1'), { timeout: 10_000, interval: 10, what: 'the early notice' });
      await older.commitTransaction();
      // a marker read after the horizon passed the notice
      await db.client.query(`SELECT pg_notify('svc_items', '{"type":"marker"}')`);
      await waitFor(() => seen.includes('marker'), { timeout: 10_000, interval: 10, what: 'the marker' });
      expect(seen).toEqual(['EARLY-1', 'marker']);
    } finally {
      if (older.isTransactionActive) await older.rollbackTransaction();
      await older.release();
    }
  });
});
