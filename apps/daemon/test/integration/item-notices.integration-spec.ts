import { createProject, insertItems } from '@app/testing';

import { createMediumDatabase, MediumDatabase } from './setup/medium';

// The items table's statement trigger (svc_notify_items) writes the live stream's item notices into stream_notices, in
// the writing transaction: one per row for a statement of up to 50 rows, one count per project above that. The
// payloads are what the stream delivers (events-stream.service.ts), byte for byte.
describe('svc_notify_items', () => {
  let db: MediumDatabase;

  // The notices the statement wrote, in the order the feed reads them.
  async function noticesOf(statement: string): Promise<string[]> {
    const { rows: before } = await db.client.query<{ id: string }>(
      `SELECT COALESCE(max(id), 0)::text AS id FROM stream_notices`,
    );
    await db.client.query(statement);
    const { rows } = await db.client.query<{ channel: string; payload: string }>(
      `SELECT channel, payload FROM stream_notices WHERE id > $1 ORDER BY xid, id`,
      [before[0].id],
    );
    expect(new Set(rows.map((r) => r.channel))).toEqual(new Set(['svc_items']));
    return rows.map((r) => r.payload);
  }

  beforeAll(async () => {
    db = await createMediumDatabase('item_notices');
    await createProject(db.client, { id: 'shop', prefix: 'SHOP' });
    await createProject(db.client, { id: 'lab', prefix: 'LAB' });
    await insertItems(
      db.client,
      'shop',
      Array.from({ length: 60 }, (_, i) => ({ title: `shop ${i + 1}` })),
    );
    await insertItems(db.client, 'lab', [{ title: 'lab 1' }, { title: 'lab 2' }]);
  });

  afterAll(async () => {
    await db?.close();
  });

  it('should write one notice per row for a statement of up to 50 rows', async () => {
    const updated = await noticesOf(
      `UPDATE items SET priority = 'high' WHERE project IN ('shop', 'lab') AND project_sequence <= 2`,
    );
    expect([...updated].sort()).toEqual(
      ['SHOP-1', 'SHOP-2', 'LAB-1', 'LAB-2']
        .map((ref) => {
          const project = ref.startsWith('SHOP') ? 'shop' : 'lab';
          return `{"type" : "item", "op" : "UPDATE", "project" : "${project}", "status" : "planned", "item_id" : "${ref}"}`;
        })
        .sort(),
    );

    const one = await noticesOf(`UPDATE items SET status = 'ready' WHERE project = 'lab' AND project_sequence = 1`);
    expect(one).toEqual([
      '{"type" : "item", "op" : "UPDATE", "project" : "lab", "status" : "ready", "item_id" : "LAB-1"}',
    ]);
  });

  it('should write one count per project for a statement of more than 50 rows', async () => {
    const updated = await noticesOf(`UPDATE items SET priority = 'low' WHERE project IN ('shop', 'lab')`);
    expect([...updated].sort()).toEqual([
      '{"type" : "items", "op" : "UPDATE", "project" : "lab", "count" : 2}',
      '{"type" : "items", "op" : "UPDATE", "project" : "shop", "count" : 60}',
    ]);
  });

  it('should name a deleted row with the status it had', async () => {
    await db.client.query(`DELETE FROM change_records WHERE project = 'lab'`);
    const deleted = await noticesOf(`DELETE FROM items WHERE project = 'lab' AND project_sequence = 2`);
    expect(deleted).toEqual([
      '{"type" : "item", "op" : "DELETE", "project" : "lab", "status" : "planned", "item_id" : "LAB-2"}',
    ]);
  });
});
