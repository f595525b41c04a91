import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';

import { dataSourceOptions } from '../../src/database/data-source';
import { PER_CONNECTION, PreparingClient } from '../../src/database/prepared-statements';
import { createMediumDatabase, MediumDatabase } from './setup/medium';

// A statement text no other test sends: the process remembers which texts it has seen.
const fresh = (sql: string) => `${sql} /* ${randomBytes(6).toString('hex')} */`;

const PREPARED = 'SELECT name, statement FROM pg_prepared_statements ORDER BY prepare_time';

describe('prepared statements (PreparingClient, ADR 0092)', () => {
  let db: MediumDatabase;
  let url: string;
  const clients: PreparingClient[] = [];

  const connect = async (): Promise<PreparingClient> => {
    const client = new PreparingClient({ connectionString: url });
    await client.connect();
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    db = await createMediumDatabase('prepared');
    url = db.url;
  });

  afterAll(async () => {
    for (const client of clients) await client.end().catch(() => undefined);
    await db?.close();
  });

  it('prepares a parameterized text the second time it is sent, and answers as the unnamed statement did', async () => {
    const client = await connect();
    const text = fresh('SELECT $1::int + 1 AS n, $2::text AS t');
    const first = await client.query(text, [1, 'a']);
    expect((await client.query(PREPARED)).rows).toEqual([]);
    const second = await client.query(text, [41, 'b']);
    const third = await client.query(text, [2, null]);
    expect(first.rows).toEqual([{ n: 2, t: 'a' }]);
    expect(second.rows).toEqual([{ n: 42, t: 'b' }]);
    expect(third.rows).toEqual([{ n: 3, t: null }]);
    const prepared = (await client.query(PREPARED)).rows as { name: string; statement: string }[];
    expect(prepared).toHaveLength(1);
    expect(prepared[0].name).toMatch(/^svc_[0-9a-f]{20}$/);
    expect(prepared[0].statement).toBe(text);
  });

  it('leaves a text sent once, a query without parameters and several statements in one text unprepared', async () => {
    const client = await connect();
    await client.query(fresh('SELECT $1::int AS once'), [1]);
    const plain = fresh('SELECT 1 AS one');
    await client.query(plain);
    await client.query(plain);
    const two = await client.query(`${fresh('SELECT 1 AS a')}; SELECT 2 AS b`);
    expect((two as unknown as { rows: unknown[] }[]).map((r) => r.rows)).toEqual([[{ a: 1 }], [{ b: 2 }]]);
    expect((await client.query(PREPARED)).rows).toEqual([]);
  });

  it(`keeps at most ${PER_CONNECTION} statements a connection; past them a text still answers, unnamed`, async () => {
    const client = await connect();
    const texts = Array.from({ length: PER_CONNECTION + 3 }, (_, i) => fresh(`SELECT $1::int + ${i} AS n`));
    for (const text of texts) await client.query(text, [0]);
    for (const [i, text] of texts.entries()) expect((await client.query(text, [1])).rows).toEqual([{ n: 1 + i }]);
    expect((await client.query('SELECT count(*)::int AS n FROM pg_prepared_statements')).rows).toEqual([
      { n: PER_CONNECTION },
    ]);
    // a second connection prepares its own
    const other = await connect();
    await other.query(texts[PER_CONNECTION + 2], [0]);
    expect((await other.query(PREPARED)).rows).toEqual([{ name: expect.any(String), statement: texts.at(-1) }]);
  });

  it('a statement whose first preparation failed is prepared once it can be', async () => {
    const client = await connect();
    const table = `later_${randomBytes(4).toString('hex')}`;
    const text = fresh(`SELECT v FROM ${table} WHERE id = $1`);
    await expect(client.query(text, [1])).rejects.toThrow(/does not exist/);
    await expect(client.query(text, [1])).rejects.toThrow(/does not exist/);
    await client.query(`CREATE TABLE ${table} (id int PRIMARY KEY, v text)`);
    await client.query(`INSERT INTO ${table} VALUES (1, 'x')`);
    expect((await client.query(text, [1])).rows).toEqual([{ v: 'x' }]);
    expect((await client.query(text, [1])).rows).toEqual([{ v: 'x' }]);
    expect((await client.query(PREPARED)).rows).toEqual([{ name: expect.any(String), statement: text }]);
  });

  it("the daemon's pool prepares its statements; with SVC_DB_PREPARED_STATEMENTS=false it does not", async () => {
    for (const prepared of [true, false]) {
      const dataSource = await new DataSource(dataSourceOptions(url, 1, prepared)).initialize();
      try {
        const text = fresh('SELECT count(*)::int AS n FROM items WHERE id = $1');
        await dataSource.query(text, [1]);
        await dataSource.query(text, [1]);
        const rows: { statement: string }[] = await dataSource.query(PREPARED);
        expect(rows.map((r) => r.statement)).toEqual(prepared ? [text] : []);
      } finally {
        await dataSource.destroy();
      }
    }
  });
});
