import { Client } from 'pg';

import { installRowTemplates } from '../../src/database/row-templates';
import { createMediumDatabase, MediumDatabase } from './setup/medium';

// Rows read through `pg` with the row templates kept per column list (row-templates.ts) against a real PostgreSQL: typed
// as `pg` types them, per statement and per client, and never sharing the kept template.
describe('a statement row template built once (row-templates.ts)', () => {
  let db: MediumDatabase;
  let first: Client;
  let second: Client;

  beforeAll(async () => {
    installRowTemplates();
    installRowTemplates(); // once in the process, however often it is asked
    db = await createMediumDatabase('row_templates');
    first = new Client({ connectionString: db.url });
    second = new Client({ connectionString: db.url });
    await Promise.all([first.connect(), second.connect()]);
  });

  afterAll(async () => {
    await Promise.all([first?.end(), second?.end()]);
    await db?.close();
  });

  const TYPED = `SELECT $1::int AS n, $1::bigint AS big, 'x'::text AS t, '{"a":[1]}'::json AS j, true AS b,
                        '2026-11-30T12:00:00Z'::timestamptz AS at, NULL::int AS none`;

  it('should type every column as pg does, at every execution of a prepared statement', async () => {
    const kept = new Set<unknown>();
    for (let run = 0; run < 3; run++) {
      const result = await first.query({ name: 'row_templates_typed', text: TYPED, values: [run] });
      const { rows, fields } = result;
      kept.add((result as unknown as { _prebuiltEmptyResultObject: unknown })._prebuiltEmptyResultObject);
      expect(rows).toEqual([
        { n: run, big: String(run), t: 'x', j: { a: [1] }, b: true, at: new Date('2026-11-30T12:00:00Z'), none: null },
      ]);
      expect(fields.map((f) => f.name)).toEqual(['n', 'big', 't', 'j', 'b', 'at', 'none']);
    }
    // one template for the three executions: it was built once
    expect(kept.size).toBe(1);
  });

  it('should tell apart statements whose columns share names but not types', async () => {
    const asInt = await first.query('SELECT 7::int AS v');
    const asText = await first.query('SELECT 7::text AS v');
    const asBig = await first.query('SELECT 7::bigint AS v');
    expect([asInt.rows[0].v, asText.rows[0].v, asBig.rows[0].v]).toEqual([7, '7', '7']);
  });

  it("should keep a client's own type parser to that client", async () => {
    first.setTypeParser(20, (value: string) => Number(value) * 10);
    const mine = await first.query('SELECT 4::bigint AS v');
    const theirs = await second.query('SELECT 4::bigint AS v');
    expect([mine.rows[0].v, theirs.rows[0].v]).toEqual([40, '4']);
  });

  it('should give every row its own object, the kept template untouched', async () => {
    const one = await first.query('SELECT g AS v FROM generate_series(1, 3) g');
    one.rows[0].v = 'changed';
    one.rows[1].extra = true;
    const again = await first.query('SELECT g AS v FROM generate_series(1, 3) g');
    expect(again.rows).toEqual([{ v: 1 }, { v: 2 }, { v: 3 }]);
  });

  it('should read a column named __proto__ as an own property, the prototype untouched', async () => {
    const { rows } = await first.query(`SELECT 'p' AS "__proto__", 2 AS a, 3 AS a`);
    const row = rows[0] as Record<string, unknown>;
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(row, '__proto__')?.value).toBe('p');
    // a repeated name keeps its last value, as pg's own template does
    expect(row.a).toBe(3);
    expect(Object.keys(row)).toEqual(['__proto__', 'a']);
  });
});
