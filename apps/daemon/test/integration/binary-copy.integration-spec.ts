import { BinaryCopyDecoder, BinaryCopyError, BinaryRow, copyRows } from '../../src/database/binary-copy';
import { createMediumDatabase, MediumDatabase } from './setup/medium';

interface Row {
  id: number;
  n: number | null;
  t: string | null;
}

const build = (row: BinaryRow): Row => ({
  id: row.int4(0),
  n: row.isNull(1) ? null : row.int4(1),
  t: row.textOrNull(2),
});

// Rows with every kind of text the copy must carry byte for byte: empty, escapes COPY's text format would use,
// multi-byte characters, NULLs, negative and extreme integers, and a field larger than a socket read.
const VALUES = [
  [1, 0, ''],
  [2, null, null],
  [3, -1, 'tab\there\nnew\\line "quoted" \u0001'],
  [4, 2147483647, 'ünïcödé 🚀 ✓'],
  [5, -2147483648, 'x'.repeat(1_000_000)],
] as const;

describe('binary COPY reads (copyRows)', () => {
  let db: MediumDatabase;

  beforeAll(async () => {
    db = await createMediumDatabase('binary-copy');
    await db.client.query('CREATE TABLE copy_rows (id int PRIMARY KEY, n int, t text)');
    for (const [id, n, t] of VALUES) {
      await db.client.query('INSERT INTO copy_rows VALUES ($1, $2, $3)', [id, n, t]);
    }
    await db.client.query('INSERT INTO copy_rows SELECT g, g * 7, $1 || g FROM generate_series(10, 50009) g', ['row ']);
  });

  afterAll(() => db?.close());

  it('gives the rows the driver gives, in the statement order, text byte for byte', async () => {
    const select = 'SELECT id, n, t FROM copy_rows ORDER BY id';
    const expected: Row[] = await db.dataSource.query(select);
    const rows = await copyRows(db.dataSource, select, 3, build);
    expect(rows).toHaveLength(50_005);
    expect(rows).toEqual(expected);
    expect(rows.slice(0, 5)).toEqual(VALUES.map(([id, n, t]) => ({ id, n, t })));
  });

  it('reads an empty result and runs side by side with other reads on the pool', async () => {
    expect(await copyRows(db.dataSource, 'SELECT id, n, t FROM copy_rows WHERE false', 3, build)).toEqual([]);
    const select = (from: number) => `SELECT id, n, t FROM copy_rows WHERE id >= ${from} ORDER BY id`;
    const [a, b, c] = await Promise.all([
      copyRows(db.dataSource, select(10), 3, build),
      db.dataSource.query('SELECT count(*)::int AS count FROM copy_rows'),
      copyRows(db.dataSource, select(40_000), 3, build),
    ]);
    expect(a).toHaveLength(50_000);
    expect(b).toEqual([{ count: 50_005 }]);
    expect(c.map((r) => r.id)).toEqual(Array.from({ length: 10_010 }, (_, k) => 40_000 + k));
  });

  it('rejects with the server error of a statement that fails part way, and the pool still answers', async () => {
    await expect(
      copyRows(db.dataSource, 'SELECT id, 1 / (id - 30000), t FROM copy_rows ORDER BY id', 3, build),
    ).rejects.toMatchObject({ code: '22012' });
    await expect(copyRows(db.dataSource, 'SELECT id, n FROM no_such_table', 2, build)).rejects.toMatchObject({
      code: '42P01',
    });
    expect(await db.dataSource.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    expect(await copyRows(db.dataSource, 'SELECT id, n, t FROM copy_rows WHERE id = 4', 3, build)).toHaveLength(1);
  });

  it('rejects rows of another shape than the builder reads, and a builder that throws, and recovers', async () => {
    await expect(copyRows(db.dataSource, 'SELECT id, n FROM copy_rows', 3, build)).rejects.toThrow(
      'a row of 2 columns, expected 3',
    );
    await expect(copyRows(db.dataSource, 'SELECT id::int8, n, t FROM copy_rows', 3, build)).rejects.toThrow(
      'column 0 is not a non-null int4',
    );
    await expect(
      copyRows(db.dataSource, 'SELECT id, n, t FROM copy_rows ORDER BY id', 3, (row) => {
        if (row.int4(0) === 20_000) throw new Error('builder failed');
        return row.int4(0);
      }),
    ).rejects.toThrow('builder failed');
    const rows = await copyRows(db.dataSource, 'SELECT id, n, t FROM copy_rows ORDER BY id', 3, build);
    expect(rows).toHaveLength(50_005);
  });
});

describe('BinaryCopyDecoder', () => {
  const header = Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)]);
  const tuple = (...fields: (number | null)[]) => {
    const parts = [Buffer.from([0, fields.length])];
    for (const f of fields) {
      const len = Buffer.alloc(4);
      len.writeInt32BE(f === null ? -1 : 4);
      parts.push(len);
      if (f !== null) {
        const v = Buffer.alloc(4);
        v.writeInt32BE(f);
        parts.push(v);
      }
    }
    return Buffer.concat(parts);
  };
  const trailer = Buffer.from([0xff, 0xff]);
  const decoder = () => new BinaryCopyDecoder(2, (row) => [row.int4(0), row.isNull(1) ? null : row.int4(1)]);

  it('decodes a header, rows and the trailer', () => {
    const d = decoder();
    d.write(Buffer.concat([header, tuple(1, null)]));
    d.write(tuple(-5, 7));
    d.write(trailer);
    expect(d.finish()).toEqual([
      [1, null],
      [-5, 7],
    ]);
  });

  it('decodes the same rows from chunks cut anywhere', () => {
    const stream = Buffer.concat([header, tuple(1, null), tuple(-5, 7), trailer]);
    for (const size of [1, 3, 7, 20]) {
      const d = decoder();
      for (let at = 0; at < stream.length; at += size) d.write(stream.subarray(at, at + size));
      expect(d.finish()).toEqual([
        [1, null],
        [-5, 7],
      ]);
    }
  });

  it.each([
    ['another signature', [Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\x01', 'latin1'), Buffer.alloc(8)])], /not a/],
    ['critical flags', [Buffer.concat([header.subarray(0, 11), Buffer.from([0, 1, 0, 0]), Buffer.alloc(4)])], /flags/],
    ['a short row', [Buffer.concat([header, tuple(1, 2).subarray(0, 9)])], /cut short/],
    ['a stray byte after a row', [Buffer.concat([header, tuple(1, 2), Buffer.from([0])])], /cut short/],
    ['another row width', [Buffer.concat([header, tuple(1)])], /1 columns, expected 2/],
    ['data after the trailer', [Buffer.concat([header, trailer]), tuple(1, 2)], /after the trailer/],
    ['a header alone', [header], /without its trailer/],
    ['nothing at all', [], /not a/],
  ])('rejects %s', (_name, chunks, error) => {
    const d = decoder();
    expect(() => {
      chunks.forEach((chunk) => d.write(chunk));
      d.finish();
    }).toThrow(error);
  });

  it('rejects a copy that ends without its trailer', () => {
    const d = decoder();
    d.write(Buffer.concat([header, tuple(1, 2)]));
    expect(() => d.finish()).toThrow(BinaryCopyError);
  });
});
