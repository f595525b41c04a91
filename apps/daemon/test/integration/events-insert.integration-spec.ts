import { Notification } from 'pg';

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
});
