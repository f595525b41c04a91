import { createProject, insertItems } from '@app/testing';

import { ChargeRepository, NewClaim } from '../../src/charge/charge.repository';
import { createMediumDatabase, MediumDatabase } from './setup/medium';

// The dispatch claim is one conditional upsert under the project's charge lock (ChargeRepository.claim): two
// sessions racing for the last WIP slot, or for one item, on a real database: exactly one wins.
describe('ChargeRepository.claim under the WIP cap', () => {
  let db: MediumDatabase;
  let sut: ChargeRepository;
  let sessions: number[];

  const claimOf = (itemId: number, sessionId: number, wipRemaining: number): NewClaim => ({
    itemId,
    sessionId,
    project: 'atl',
    entrypoint: 'implement',
    adapter: 'code',
    wipSlot: true,
    ttlSeconds: 600,
    wipRemaining,
  });
  // Each claim in its own transaction, all started together (the pool holds 4 connections).
  const race = (claims: NewClaim[]) =>
    Promise.all(claims.map((claim) => sut.transaction((manager) => sut.claim(manager, claim))));

  beforeAll(async () => {
    db = await createMediumDatabase('charge-claim');
    sut = new ChargeRepository(db.dataSource);
    await createProject(db.client, { id: 'atl', prefix: 'ATL' });
    const { rows } = await db.client.query<{ id: number }>(
      `INSERT INTO executor_sessions (harness, model, lane)
       SELECT 'test', 'model-' || n, 'default' FROM generate_series(1, 3) n RETURNING id`,
    );
    sessions = rows.map((r) => r.id);
  });

  afterAll(async () => {
    await db?.close();
  });

  beforeEach(async () => {
    await db.client.query('DELETE FROM item_claims');
  });

  it('two sessions racing for the last slot: exactly one claim is taken', async () => {
    const [a, b] = await insertItems(db.client, 'atl', [{ title: 'a' }, { title: 'b' }]);
    const results = await race([claimOf(a.id, sessions[0], 1), claimOf(b.id, sessions[1], 1)]);
    expect(results.filter((r) => r !== null)).toHaveLength(1);
    const { rows } = await db.client.query('SELECT item_id FROM item_claims WHERE wip_slot');
    expect(rows).toHaveLength(1);
  });

  it('two sessions racing for one item: one holds it, the other is refused', async () => {
    const [item] = await insertItems(db.client, 'atl', [{ title: 'contested' }]);
    const results = await race([claimOf(item.id, sessions[0], 5), claimOf(item.id, sessions[1], 5)]);
    expect(results.filter((r) => r !== null)).toHaveLength(1);
    const { rows } = await db.client.query<{ session_id: number }>(
      'SELECT session_id FROM item_claims WHERE item_id = $1',
      [item.id],
    );
    expect(rows).toHaveLength(1);
  });

  it('a full cap refuses a slot; work that takes no slot, the holder re-claiming and an expired claim pass', async () => {
    const [held, next, free] = await insertItems(db.client, 'atl', [
      { title: 'held' },
      { title: 'next' },
      { title: 'free' },
    ]);
    expect(await sut.transaction((m) => sut.claim(m, claimOf(held.id, sessions[0], 1)))).not.toBeNull();
    // the cap is full: another slot is refused
    expect(await sut.transaction((m) => sut.claim(m, claimOf(next.id, sessions[1], 1)))).toBeNull();
    // no slot needed: the cap does not apply
    expect(
      await sut.transaction((m) => sut.claim(m, { ...claimOf(free.id, sessions[1], 1), wipSlot: false })),
    ).not.toBeNull();
    // the holder renews its own claim (its slot does not count against itself)
    expect(await sut.transaction((m) => sut.claim(m, claimOf(held.id, sessions[0], 1)))).not.toBeNull();
    // another session cannot take a live claim, but takes it over once it expired
    expect(await sut.transaction((m) => sut.claim(m, claimOf(held.id, sessions[2], 1)))).toBeNull();
    await db.client.query(`UPDATE item_claims SET expires_at = now() - interval '1 second' WHERE item_id = $1`, [
      held.id,
    ]);
    expect(await sut.transaction((m) => sut.claim(m, claimOf(held.id, sessions[2], 1)))).not.toBeNull();
    expect(await sut.transaction((m) => sut.claimHolder(m, held.id))).toBe(sessions[2]);
  });

  it('an item already in a WIP status does not take a second slot from the cap', async () => {
    const [started, next] = await insertItems(db.client, 'atl', [
      { title: 'started', status: 'implementing' },
      { title: 'next' },
    ]);
    expect(await sut.transaction((m) => sut.claim(m, claimOf(started.id, sessions[0], 1)))).not.toBeNull();
    // wip_active already counts the started item: its claim holds no further slot of the remaining one
    expect(await sut.transaction((m) => sut.claim(m, claimOf(next.id, sessions[1], 1)))).not.toBeNull();
  });
});
