import { createProject, insertItems } from '@app/testing';

import { ChargeRepository } from '../../src/charge/charge.repository';
import { ItemsRepository } from '../../src/items/items.repository';
import { parseRef } from '../../src/refs/refs.service';
import { holderOf, RulebookRepository } from '../../src/rulebook/rulebook.repository';
import { createMediumDatabase, MediumDatabase } from './setup/medium';

// A claimed write reads the item it names by ref and its live claim in one statement (ItemsRepository.lockWithClaim,
// ADR 0092, 0097): both rows locked, the item first, and the holder the same as the claim's own read
// (RulebookRepository.holder).
describe('ItemsRepository.lockWithClaim', () => {
  let db: MediumDatabase;
  let items: ItemsRepository;
  let rulebook: RulebookRepository;
  let charge: ChargeRepository;
  let session: number;

  beforeAll(async () => {
    db = await createMediumDatabase('claim-lock');
    items = new ItemsRepository(db.dataSource);
    rulebook = new RulebookRepository(db.dataSource);
    charge = new ChargeRepository(db.dataSource);
    await createProject(db.client, { id: 'atl', prefix: 'ATL' });
    const { rows } = await db.client.query<{ id: number }>(
      `INSERT INTO executor_sessions (harness, model, lane) VALUES ('claude-code', 'model', 'default') RETURNING id`,
    );
    session = rows[0].id;
  });

  afterAll(() => db?.close());

  const claim = (itemId: number) =>
    charge.transaction((manager) =>
      charge.claim(manager, {
        itemId,
        sessionId: session,
        project: 'atl',
        entrypoint: 'implement',
        adapter: 'code',
        wipSlot: true,
        ttlSeconds: 600,
        wipRemaining: 5,
      }),
    );

  const lockedElsewhere = async (table: 'items' | 'item_claims', column: string, id: number): Promise<boolean> => {
    try {
      await db.client.query('BEGIN');
      await db.client.query(`SELECT 1 FROM ${table} WHERE ${column} = $1 FOR UPDATE NOWAIT`, [id]);
      return false;
    } catch (err) {
      if ((err as { code?: string }).code === '55P03') return true;
      throw err;
    } finally {
      await db.client.query('ROLLBACK');
    }
  };

  it('gives the item with no holder when nobody holds it, and null for an item that is gone', async () => {
    const [item] = await insertItems(db.client, 'atl', [{ title: 'free' }]);
    const locked = await items.transaction((manager) => items.lockWithClaim(parseRef(item.ref), manager));
    expect(locked).toMatchObject({ id: item.id, ref: item.ref, title: 'free', claim_holder: null });
    expect(await items.transaction((manager) => items.lockWithClaim(parseRef('ATL-999999999'), manager))).toBeNull();
    expect(await items.transaction((manager) => items.lockWithClaim(parseRef('NOPE-1'), manager))).toBeNull();
  });

  it('gives the holder the claim read gives, and holds both rows until the transaction ends', async () => {
    const [item] = await insertItems(db.client, 'atl', [{ title: 'held' }]);
    expect(await claim(item.id)).not.toBeNull();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let seen: unknown[] = [];
    const work = items.transaction(async (manager) => {
      const locked = await items.lockWithClaim(parseRef(item.ref), manager);
      seen = [holderOf(locked!.claim_holder), await rulebook.holder(manager, item.id)];
      await held;
    });
    while (seen.length === 0) await new Promise((resolve) => setImmediate(resolve));
    try {
      expect(await lockedElsewhere('items', 'id', item.id)).toBe(true);
      expect(await lockedElsewhere('item_claims', 'item_id', item.id)).toBe(true);
    } finally {
      release();
      await work;
    }
    const [fromLock, fromRead] = seen as [{ expiresAt: Date }, { expiresAt: Date }];
    expect(fromLock).toEqual({
      sessionId: session,
      actorId: null,
      actor: null,
      harness: 'claude-code',
      expiresAt: expect.any(Date),
    });
    expect(fromLock).toEqual(fromRead);
    const { rows } = await db.client.query<{ expires_at: Date }>(
      'SELECT expires_at FROM item_claims WHERE item_id = $1',
      [item.id],
    );
    expect(fromLock.expiresAt.toISOString()).toBe(rows[0].expires_at.toISOString());
    expect(await lockedElsewhere('item_claims', 'item_id', item.id)).toBe(false);
  });

  it('leaves an expired claim out, as the claim rule does', async () => {
    const [item] = await insertItems(db.client, 'atl', [{ title: 'lapsed' }]);
    await claim(item.id);
    await db.client.query(`UPDATE item_claims SET expires_at = now() - interval '1 second' WHERE item_id = $1`, [
      item.id,
    ]);
    const locked = await items.transaction((manager) => items.lockWithClaim(parseRef(item.ref), manager));
    expect(locked?.claim_holder).toBeNull();
  });
});
