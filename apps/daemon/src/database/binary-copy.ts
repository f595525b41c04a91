import { Connection, escapeLiteral, Pool, PoolClient, Submittable } from 'pg';
import { DataSource } from 'typeorm';

// Large reads in PostgreSQL's binary COPY format. The driver's row path turns every field of every row into a
// string, then an object per row; at 100k items that, and collecting those strings, was most of a cold load. Here
// a builder reads the fields it wants straight from the socket's bytes, as the values it wants (an int4 from its
// four bytes, text decoded once).
//
// The copy-out messages are read here too, not through pg-copy-streams: it slices and re-joins every CopyData
// message (one per row) before handing on the bytes, about 0.5 µs a row, a fifth of the whole read. Like it, the
// reader takes the socket from the driver's parser for the COPY and hands it back at the first message that is not
// copy data (CopyDone, or an ErrorResponse), so the driver completes the statement as usual.
// This reaches into pg's Connection (its parser's stream listeners) and TypeORM's driver (the pool it holds), neither
// a public API: package.json pins `pg` and `typeorm` exactly, dependency-pins.spec.ts fails on a range, and
// apps/daemon/test/integration/binary-copy.integration-spec.ts must pass before either pin moves.
// Formats: https://www.postgresql.org/docs/current/sql-copy.html (binary format) and
// https://www.postgresql.org/docs/current/protocol-flow.html#PROTOCOL-COPY (one CopyData message per row).

// 'PGCOPY\n\377\r\n\0', then the flags field and the header extension's length
const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
const HEADER = SIGNATURE.length + 8;
// bits 16-31 of the flags flag critical format issues (bit 16: rows carry OIDs): none may be set
const CRITICAL_FLAGS = 0xffff0000;

// backend messages read during a copy-out: CopyData (d), and CopyOutResponse (H), NoticeResponse (N),
// ParameterStatus (S) and NotificationResponse (A), which are skipped; any other ends it
const COPY_DATA = 0x64;
const COPY_OUT_MESSAGES = new Set([COPY_DATA, 0x48, 0x4e, 0x53, 0x41]);

export class BinaryCopyError extends Error {
  constructor(message: string) {
    super(`binary COPY: ${message}`);
    this.name = 'BinaryCopyError';
  }
}

function int32(data: Buffer, at: number): number {
  return (data[at] << 24) | (data[at + 1] << 16) | (data[at + 2] << 8) | data[at + 3];
}

// One row while its builder runs: its fields as byte ranges of the buffer it was read from (start -1 = NULL). The
// object is reused for every row; a builder keeps values, never the row.
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

// Decodes the payloads of a binary copy-out, one CopyData message at a time: the first starts with the header, each
// holds one row, the last holds the trailer.
export class BinaryCopyDecoder<T> {
  readonly rows: T[] = [];
  private readonly row: BinaryRow;
  private header = true;
  private ended = false;

  constructor(
    columns: number,
    private readonly build: (row: BinaryRow) => T,
  ) {
    this.row = new BinaryRow(columns);
  }

  // The payload data[at, end) of one CopyData message.
  message(data: Buffer, at: number, end: number): void {
    if (this.header) at = this.readHeader(data, at, end);
    if (this.ended) throw new BinaryCopyError('data after the trailer');
    if (end - at < 2) throw new BinaryCopyError('a message without a row');
    const count = (data[at] << 8) | data[at + 1];
    at += 2;
    if (count === 0xffff) {
      this.ended = true;
    } else {
      const { row } = this;
      const { start, end: stop, columns } = row;
      if (count !== columns) throw new BinaryCopyError(`a row of ${count} columns, expected ${columns}`);
      for (let i = 0; i < columns; i++) {
        if (end - at < 4) throw new BinaryCopyError('a row cut short');
        const length = int32(data, at);
        at += 4;
        if (length === -1) {
          start[i] = -1;
          stop[i] = -1;
        } else if (length < 0 || end - at < length) {
          throw new BinaryCopyError('a row cut short');
        } else {
          start[i] = at;
          stop[i] = at + length;
          at += length;
        }
      }
      row.buffer = data;
      this.rows.push(this.build(row));
    }
    if (at !== end) throw new BinaryCopyError('a message longer than its row');
  }

  // The rows, once the copy has completed: the trailer must have been read.
  finish(): T[] {
    if (!this.ended) throw new BinaryCopyError('the copy ended without its trailer');
    return this.rows;
  }

  private readHeader(data: Buffer, at: number, end: number): number {
    if (end - at < HEADER || !data.subarray(at, at + SIGNATURE.length).equals(SIGNATURE)) {
      throw new BinaryCopyError('not a binary COPY stream');
    }
    if ((int32(data, at + SIGNATURE.length) & CRITICAL_FLAGS) !== 0) throw new BinaryCopyError('unknown format flags');
    const extension = int32(data, at + SIGNATURE.length + 4);
    if (extension < 0 || end - at - HEADER < extension) throw new BinaryCopyError('a header cut short');
    this.header = false;
    return at + HEADER + extension;
  }
}

// The statement as the driver sees it: submitted, it takes the socket's data until the copy-out is over.
class BinaryCopyOut<T> implements Submittable {
  readonly done: Promise<T[]>;
  private settle!: (error: Error | null) => void;
  private connection: Connection | null = null;
  private driverListener: ((chunk: Buffer) => void) | null = null;
  // the start of a message cut off by the end of the last chunk
  private pending: Buffer | null = null;
  private failure: Error | null = null;

  constructor(
    readonly text: string,
    private readonly decoder: BinaryCopyDecoder<T>,
  ) {
    this.done = new Promise<T[]>((resolve, reject) => {
      this.settle = (error) => {
        if (error !== null) return reject(error);
        try {
          resolve(decoder.finish());
        } catch (err) {
          reject(err as Error);
        }
      };
    });
  }

  submit(connection: Connection): Error | void {
    const listeners = connection.stream.listeners('data');
    if (listeners.length !== 1) return new BinaryCopyError('the connection is not in the state COPY expects');
    this.connection = connection;
    this.driverListener = listeners[0] as (chunk: Buffer) => void;
    connection.stream.removeListener('data', this.driverListener);
    connection.stream.on('data', this.onData);
    connection.query(this.text);
  }

  private readonly onData = (chunk: Buffer): void => {
    const data = this.pending === null ? chunk : Buffer.concat([this.pending, chunk]);
    this.pending = null;
    let at = 0;
    while (data.length - at >= 5) {
      const code = data[at];
      if (!COPY_OUT_MESSAGES.has(code)) {
        // CopyDone, an ErrorResponse or anything else: the driver reads on from here
        this.handBack(data.subarray(at));
        return;
      }
      const length = int32(data, at + 1);
      if (length < 4) {
        // not a message PostgreSQL sends: the driver fails the connection on it
        this.handBack(data.subarray(at));
        return;
      }
      const next = at + 1 + length;
      if (next > data.length) break;
      if (code === COPY_DATA && this.failure === null) {
        try {
          this.decoder.message(data, at + 5, next);
        } catch (err) {
          // nothing more is decoded; the connection is closed once the driver has the statement's end
          this.failure = err as Error;
        }
      }
      at = next;
    }
    if (at < data.length) this.pending = data.subarray(at);
  };

  private handBack(rest: Buffer | null): void {
    const { connection, driverListener } = this;
    if (connection === null || driverListener === null) return;
    this.connection = null;
    this.driverListener = null;
    connection.stream.removeListener('data', this.onData);
    connection.stream.on('data', driverListener);
    if (rest !== null && rest.length > 0) driverListener(rest);
  }

  // driver callbacks
  handleCommandComplete(): void {}

  handleReadyForQuery(): void {
    this.settle(this.failure);
  }

  handleError(error: Error): void {
    this.handBack(null);
    this.settle(error);
  }
}

// A text[] literal for a statement that takes no parameters (COPY cannot).
export function textArrayLiteral(values: readonly string[]): string {
  return `ARRAY[${values.map((value) => escapeLiteral(value)).join(', ')}]::text[]`;
}

export { escapeLiteral };

// Runs `COPY (select) TO STDOUT (FORMAT binary)` on a pooled connection and builds a value per row, in the select's
// order. The select has no parameters: literals go in through escapeLiteral / textArrayLiteral. On any failure the
// connection is closed, never returned to the pool.
export async function copyRows<T>(
  dataSource: DataSource,
  select: string,
  columns: number,
  build: (row: BinaryRow) => T,
): Promise<T[]> {
  const pool = (dataSource.driver as unknown as { master: Pool }).master;
  const client: PoolClient = await pool.connect();
  try {
    const copy = new BinaryCopyOut(`COPY (${select}) TO STDOUT (FORMAT binary)`, new BinaryCopyDecoder(columns, build));
    void client.query(copy);
    const rows = await copy.done;
    client.release();
    return rows;
  } catch (err) {
    client.release(err as Error);
    throw err;
  }
}
