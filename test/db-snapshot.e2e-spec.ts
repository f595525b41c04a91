import { Client } from 'pg';

import { createTestDatabase, databaseDigest, DigestTracker, TestDatabase, WRITE_LOG } from '@app/testing';

// The authorization matrix's "nothing changed" rests on DigestTracker giving databaseDigest's answer while it re-reads
// only the tables written since its last digest.
describe('DigestTracker', () => {
  let db: TestDatabase;
  let reader: Client;
  let writer: Client;
  let tracker: DigestTracker;
  const full = () => databaseDigest(reader, new Set(['skipped', WRITE_LOG]));

  beforeAll(async () => {
    db = await createTestDatabase('server', 'digest_tracker');
    reader = new Client({ connectionString: db.url });
    writer = new Client({ connectionString: db.url });
    await Promise.all([reader.connect(), writer.connect()]);
    await writer.query(`CREATE TABLE a (id int PRIMARY KEY, v text);
                        CREATE TABLE b (id int PRIMARY KEY, v text);
                        CREATE TABLE skipped (id int);
                        INSERT INTO a VALUES (1, 'one'); INSERT INTO b VALUES (1, 'uno');`);
    tracker = await DigestTracker.install(reader, new Set(['skipped']));
  });

  it('should install again over its own log without logging the log', async () => {
    tracker = await DigestTracker.install(reader, new Set(['skipped']));
    await writer.query(`UPDATE a SET v = 'again' WHERE id = 1`);
    expect(await tracker.digest()).toBe(await full());
  });

  afterAll(async () => {
    await Promise.all([reader?.end(), writer?.end()]);
    await db?.drop();
  });

  it('should give the full digest before and after committed writes of every kind', async () => {
    const start = await tracker.digest();
    expect(start).toBe(await full());
    await writer.query(`UPDATE a SET v = 'two' WHERE id = 1`);
    const updated = await tracker.digest();
    expect(updated).not.toBe(start);
    expect(updated).toBe(await full());
    await writer.query('INSERT INTO b VALUES (2, $1)', ['dos']);
    expect(await tracker.digest()).toBe(await full());
    await writer.query('DELETE FROM b WHERE id = 2');
    expect(await tracker.digest()).toBe(await full());
    await writer.query('TRUNCATE a');
    const truncated = await tracker.digest();
    expect(truncated).toBe(await full());
    expect(truncated).not.toBe(updated);
  });

  it('should see a write that commits after a digest read while it was in flight', async () => {
    const before = await tracker.digest();
    await writer.query('BEGIN');
    await writer.query(`INSERT INTO a VALUES (7, 'seven')`);
    expect(await tracker.digest()).toBe(before);
    await writer.query('COMMIT');
    const after = await tracker.digest();
    expect(after).not.toBe(before);
    expect(after).toBe(await full());
  });

  it('should keep the digest of a rolled-back write, and leave skipped tables out', async () => {
    const before = await tracker.digest();
    await writer.query('BEGIN');
    await writer.query(`UPDATE b SET v = 'changed'`);
    await writer.query('ROLLBACK');
    await writer.query('INSERT INTO skipped VALUES (1)');
    expect(await tracker.digest()).toBe(before);
    expect(before).not.toContain('skipped');
  });
});
