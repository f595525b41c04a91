import { escapeLiteral, PoolClient } from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import type { DataSource } from 'typeorm';

// Binary COPY: a builder reads the fields it wants straight from the bytes; a row may straddle two chunks.
// Format: https://www.postgresql.org/docs/current/sql-copy.html (binary format).

// 'PGCOPY\n\377\r\n\0', then the flags field and the header extension's length
const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
const HEADER = SIGNATURE.length + 8;
// bits 16-31 of the flags flag critical format issues (bit 16: rows carry OIDs): none may be set
const CRITICAL_FLAGS = 0xffff0000;
const TRAILER = 0xffff;

export class BinaryCopyError extends Error {
  constructor(message: string) {
    super(`binary COPY: ${message}`);
    this.name = 'BinaryCopyError';
  }
}

function int32(data: Buffer, at: number): number {
  return (data[at] << 24) | (data[at + 1] << 16) | (data[at + 2] << 8) | data[at + 3];
}

// Reused for every row (start -1 = NULL): a builder keeps values, never the row.
export class BinaryRow {
  buffer: Buffer = Buffer.alloc(0);
  readonly start: Int32Array;
  readonly end: Int32Array;

  constructor(readonly columns: number) {
    this.start = new Int32Array(columns);
    this.end = new Int32Array(columns);
  }

  isNull(i: number): boolean {
    return this.start[i] < 0;
  }

  int4(i: number): number {
    const start = this.start[i];
    if (start < 0 || this.end[i] - start !== 4) throw new BinaryCopyError(`column ${i} is not a non-null int4`);
    return int32(this.buffer, start);
  }

  text(i: number): string {
    const start = this.start[i];
    if (start < 0) throw new BinaryCopyError(`column ${i} is NULL`);
    return this.buffer.toString('utf8', start, this.end[i]);
  }

  textOrNull(i: number): string | null {
    const start = this.start[i];
    return start < 0 ? null : this.buffer.toString('utf8', start, this.end[i]);
  }
}

export class BinaryCopyDecoder<T> {
  readonly rows: T[] = [];
  private readonly row: BinaryRow;
  private header = true;
  private ended = false;
  // the start of a header or row cut off by the end of the last chunk
  private pending: Buffer | null = null;

  constructor(
    columns: number,
    private readonly build: (row: BinaryRow) => T,
  ) {
    this.row = new BinaryRow(columns);
  }

  write(chunk: Buffer): void {
    if (this.ended) throw new BinaryCopyError('data after the trailer');
    const data = this.pending === null ? chunk : Buffer.concat([this.pending, chunk]);
    this.pending = null;
    const end = data.length;
    let at = 0;
    if (this.header) {
      const next = this.readHeader(data);
      if (next < 0) {
        this.pending = data;
        return;
      }
      at = next;
    }
    const { row } = this;
    const { start, end: stop, columns } = row;
    while (end - at >= 2) {
      const count = (data[at] << 8) | data[at + 1];
      if (count === TRAILER) {
        this.ended = true;
        if (at + 2 !== end) throw new BinaryCopyError('data after the trailer');
        return;
      }
      if (count !== columns) throw new BinaryCopyError(`a row of ${count} columns, expected ${columns}`);
      let p = at + 2;
      let whole = true;
      for (let i = 0; i < columns; i++) {
        if (end - p < 4) {
          whole = false;
          break;
        }
        const length = int32(data, p);
        p += 4;
        if (length === -1) {
          start[i] = -1;
          stop[i] = -1;
        } else if (length < 0) {
          throw new BinaryCopyError(`column ${i} has a negative length`);
        } else if (end - p < length) {
          whole = false;
          break;
        } else {
          start[i] = p;
          stop[i] = p + length;
          p += length;
        }
      }
      if (!whole) break;
      row.buffer = data;
      this.rows.push(this.build(row));
      at = p;
    }
    if (at < end) this.pending = data.subarray(at);
  }

  finish(): T[] {
    if (this.header) throw new BinaryCopyError('not a binary COPY stream');
    if (!this.ended)
      throw new BinaryCopyError(this.pending === null ? 'the copy ended without its trailer' : 'a row cut short');
    return this.rows;
  }

  private readHeader(data: Buffer): number {
    if (data.length < HEADER) {
      if (!SIGNATURE.subarray(0, data.length).equals(data.subarray(0, SIGNATURE.length))) {
        throw new BinaryCopyError('not a binary COPY stream');
      }
      return -1;
    }
    if (!data.subarray(0, SIGNATURE.length).equals(SIGNATURE)) throw new BinaryCopyError('not a binary COPY stream');
    if ((int32(data, SIGNATURE.length) & CRITICAL_FLAGS) !== 0) throw new BinaryCopyError('unknown format flags');
    const extension = int32(data, SIGNATURE.length + 4);
    if (extension < 0) throw new BinaryCopyError('a header extension of negative length');
    if (data.length - HEADER < extension) return -1;
    this.header = false;
    return HEADER + extension;
  }
}

export function textArrayLiteral(values: readonly string[]): string {
  return `ARRAY[${values.map((value) => escapeLiteral(value)).join(', ')}]::text[]`;
}

export { escapeLiteral };

// The select takes no parameters (COPY cannot): literals go in through escapeLiteral. A failure still reads the
// copy to its end, so the connection goes back to the pool between statements.
export async function copyRows<T>(
  dataSource: DataSource,
  select: string,
  columns: number,
  build: (row: BinaryRow) => T,
): Promise<T[]> {
  const runner = dataSource.createQueryRunner('master');
  try {
    const client = (await runner.connect()) as PoolClient;
    const decoder = new BinaryCopyDecoder(columns, build);
    await new Promise<void>((resolve, reject) => {
      let failure: Error | null = null;
      const stream = client.query(copyTo(`COPY (${select}) TO STDOUT (FORMAT binary)`));
      stream.on('data', (chunk: Buffer) => {
        if (failure !== null) return;
        try {
          decoder.write(chunk);
        } catch (err) {
          failure = err as Error;
        }
      });
      stream.on('error', reject);
      stream.on('end', () => (failure === null ? resolve() : reject(failure)));
    });
    return decoder.finish();
  } finally {
    await runner.release();
  }
}
