import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream, existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import { Client, escapeIdentifier } from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';

// svc's own snapshot format (docs/operations.md), so no pg_dump is needed: the embedded package has none, and
// Debian's refuses a newer server. One REPEATABLE READ transaction reads every table as of one instant while the
// daemons keep writing. A restore verifies the whole file before it touches anything, then loads in ONE transaction.

export const SNAPSHOT_MAGIC = 'SVC-SNAPSHOT 2\n';
// format 1: no checksums; still read
export const SNAPSHOT_MAGIC_V1 = 'SVC-SNAPSHOT 1\n';

export interface SnapshotTable {
  name: string;
  columns: string[];
}

export interface SnapshotSequence {
  name: string;
  last_value: string;
  is_called: boolean;
}

export interface SnapshotHeader {
  format: 1 | 2;
  taken_at: string;
  server_version: string;
  migrations: string[];
  tables: SnapshotTable[];
  sequences: SnapshotSequence[];
}

export interface SnapshotTrailer {
  rows: Record<string, number>;
  // format 2: the SHA-256 (hex) of each table's bytes (its frames' payloads, concatenated) and of the header line
  sha256?: Record<string, string>;
  header_sha256?: string;
}

export type SnapshotErrorCode =
  | 'snapshot_unreadable'
  | 'snapshot_corrupt'
  | 'backup_folder_missing'
  | 'snapshot_newer'
  | 'database_not_empty'
  | 'database_not_svc'
  | 'daemon_running'
  | 'snapshot_mismatch';

export class SnapshotError extends Error {
  constructor(
    readonly code: SnapshotErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'SnapshotError';
  }
}

// The application_name every daemon connection carries (apps/daemon data-source.ts).
export const DAEMON_APPLICATION_NAME = 'svc-daemon';

const MIGRATIONS_TABLE = 'migrations';

const q = (name: string) => escapeIdentifier(name);

// Base tables of the public schema, parents before children (the target of an immediate foreign key first;
// deferred ones are checked at commit); the migrations table is the schema version, not data.
async function tablesInLoadOrder(client: Client): Promise<SnapshotTable[]> {
  const columns = await client.query<{ table: string; columns: string[] }>(
    `SELECT c.relname AS table, array_agg(a.attname::text ORDER BY a.attnum) AS columns
       FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
      WHERE c.relkind IN ('r', 'p') AND c.relname <> $1
      GROUP BY c.relname ORDER BY c.relname`,
    [MIGRATIONS_TABLE],
  );
  const edges = await client.query<{ child: string; parent: string }>(
    `SELECT DISTINCT ch.relname AS child, pa.relname AS parent
       FROM pg_constraint k
       JOIN pg_class ch ON ch.oid = k.conrelid
       JOIN pg_class pa ON pa.oid = k.confrelid
       JOIN pg_namespace n ON n.oid = ch.relnamespace AND n.nspname = 'public'
      WHERE k.contype = 'f' AND ch.oid <> pa.oid AND NOT k.condeferred`,
  );
  const parents = new Map(columns.rows.map((r) => [r.table, new Set<string>()]));
  for (const { child, parent } of edges.rows) parents.get(child)?.add(parent);
  const ordered: string[] = [];
  const placed = new Set<string>();
  const waitingFor = (table: string) => [...parents.get(table)!].filter((p) => parents.has(p) && !placed.has(p)).length;
  while (placed.size < parents.size) {
    const ready = [...parents.keys()].filter((t) => !placed.has(t) && waitingFor(t) === 0);
    // a cycle of immediate foreign keys: the table waiting for the fewest goes first
    const next =
      ready.length > 0
        ? ready
        : [[...parents.keys()].filter((t) => !placed.has(t)).sort((a, b) => waitingFor(a) - waitingFor(b))[0]];
    for (const table of next) {
      ordered.push(table);
      placed.add(table);
    }
  }
  const byName = new Map(columns.rows.map((r) => [r.table, r.columns]));
  return ordered.map((name) => ({ name, columns: byName.get(name)! }));
}

async function sequences(client: Client): Promise<SnapshotSequence[]> {
  const names = await client.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind = 'S' ORDER BY c.relname`,
  );
  const out: SnapshotSequence[] = [];
  for (const { name } of names.rows) {
    const state = await client.query<{ last_value: string; is_called: boolean }>(
      `SELECT last_value::text AS last_value, is_called FROM ${q(name)}`,
    );
    out.push({ name, ...state.rows[0] });
  }
  return out;
}

async function appliedMigrations(client: Client): Promise<string[] | null> {
  const exists = await client.query<{ present: boolean }>(
    `SELECT to_regclass('public.${MIGRATIONS_TABLE}') IS NOT NULL AS present`,
  );
  if (!exists.rows[0].present) return null;
  const rows = await client.query<{ name: string }>(`SELECT name FROM ${MIGRATIONS_TABLE} ORDER BY id`);
  return rows.rows.map((r) => r.name);
}

const sha256Hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

function frame(bytes: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

function countRows(chunk: Buffer): number {
  let rows = 0;
  for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) rows += 1;
  return rows;
}

export interface BackupResult {
  file: string;
  header: SnapshotHeader;
  rows: Record<string, number>;
}

// Through a temporary file renamed into place: a failed backup never leaves a partial file under the name.
export async function takeSnapshot(client: Client, file: string): Promise<BackupResult> {
  const folder = dirname(file);
  if (!existsSync(folder) || !statSync(folder).isDirectory()) {
    throw new SnapshotError('backup_folder_missing', `${folder} is not a folder: create it first (mkdir -p ${folder})`);
  }
  const partial = `${file}.partial-${process.pid}`;
  await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  try {
    const migrations = await appliedMigrations(client);
    if (migrations === null) {
      throw new SnapshotError('database_not_svc', 'the database has no migrations table: it is not an svc database');
    }
    const version = await client.query<{ v: string }>('SHOW server_version');
    const header: SnapshotHeader = {
      format: 2,
      taken_at: new Date().toISOString(),
      server_version: version.rows[0].v,
      migrations,
      tables: await tablesInLoadOrder(client),
      sequences: await sequences(client),
    };
    const rows: Record<string, number> = {};
    const sha256: Record<string, string> = {};
    async function* content(): AsyncGenerator<Buffer> {
      yield Buffer.from(SNAPSHOT_MAGIC);
      const headerLine = JSON.stringify(header);
      yield Buffer.from(`${headerLine}\n`);
      for (const table of header.tables) {
        let count = 0;
        const hash = createHash('sha256');
        const columns = table.columns.map(q).join(', ');
        const stream = client.query(copyTo(`COPY ${q(table.name)} (${columns}) TO STDOUT`));
        for await (const chunk of stream as AsyncIterable<Buffer>) {
          count += countRows(chunk);
          hash.update(chunk);
          yield frame(chunk);
        }
        rows[table.name] = count;
        sha256[table.name] = hash.digest('hex');
        yield frame(Buffer.alloc(0));
      }
      const trailer: SnapshotTrailer = { rows, sha256, header_sha256: sha256Hex(headerLine) };
      yield Buffer.from(`${JSON.stringify(trailer)}\n`);
    }
    await pipeline(content, createGzip(), createWriteStream(partial, { mode: 0o600 }));
    await client.query('COMMIT');
    renameSync(partial, file);
    return { file, header, rows };
  } catch (err) {
    rmSync(partial, { force: true });
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

// The largest frame a backup writes is one COPY message (a row or a few); anything near this is damage, not data.
const MAX_FRAME = 512 * 1024 * 1024;

const corrupt = (file: string, what: string) => new SnapshotError('snapshot_corrupt', `${file} is damaged: ${what}`);

// Every problem past the magic line is a snapshot_corrupt error naming what is wrong.
class SnapshotReader {
  private buffered: Buffer = Buffer.alloc(0);
  private readonly source: AsyncIterator<Buffer>;
  private ended = false;
  private where = 'the header';

  constructor(readonly file: string) {
    const stream = createReadStream(file).pipe(createGunzip());
    this.source = (stream as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  }

  private async more(): Promise<boolean> {
    if (this.ended) return false;
    let next: IteratorResult<Buffer>;
    try {
      next = await this.source.next();
    } catch (err) {
      const reason = (err as Error).message;
      const detail =
        reason === 'unexpected end of file'
          ? 'the file ends early (cut short: an interrupted copy or a full disk?)'
          : `gzip: ${reason} (a damaged byte?)`;
      throw corrupt(this.file, `${detail}, in ${this.where}`);
    }
    if (next.done) {
      this.ended = true;
      return false;
    }
    this.buffered = this.buffered.length === 0 ? next.value : Buffer.concat([this.buffered, next.value]);
    return true;
  }

  private async fill(bytes: number): Promise<void> {
    while (this.buffered.length < bytes) {
      if (!(await this.more())) throw corrupt(this.file, `the content ends early, in ${this.where} (cut short?)`);
    }
  }

  private take(bytes: number): Buffer {
    const out = this.buffered.subarray(0, bytes);
    this.buffered = this.buffered.subarray(bytes);
    return out;
  }

  async line(limit = 64 * 1024 * 1024): Promise<string> {
    for (;;) {
      const end = this.buffered.indexOf(10);
      if (end !== -1) return this.take(end + 1).toString('utf8', 0, end);
      if (this.buffered.length > limit) throw corrupt(this.file, `a line too long in ${this.where}`);
      await this.fill(this.buffered.length + 1);
    }
  }

  async frame(): Promise<Buffer | null> {
    await this.fill(4);
    const length = this.take(4).readUInt32BE(0);
    if (length === 0) return null;
    if (length > MAX_FRAME) throw corrupt(this.file, `a frame of ${length} bytes in ${this.where}`);
    await this.fill(length);
    return Buffer.from(this.take(length));
  }

  async header(): Promise<{ header: SnapshotHeader; line: string }> {
    let magic: string;
    try {
      magic = `${await this.line(64)}\n`;
    } catch {
      magic = '';
    }
    if (magic !== SNAPSHOT_MAGIC && magic !== SNAPSHOT_MAGIC_V1) {
      throw new SnapshotError(
        'snapshot_unreadable',
        /^SVC-SNAPSHOT \d+\n$/.test(magic)
          ? `${this.file}: an svc backup of a format this version cannot read (${magic.trim()}): restore it with a newer svc`
          : `${this.file} is not an svc backup`,
      );
    }
    const line = await this.line();
    let header: SnapshotHeader;
    try {
      header = JSON.parse(line) as SnapshotHeader;
    } catch {
      throw corrupt(this.file, 'the header is not valid JSON');
    }
    const expected = magic === SNAPSHOT_MAGIC ? 2 : 1;
    if (
      header?.format !== expected ||
      !Array.isArray(header.migrations) ||
      !Array.isArray(header.tables) ||
      !Array.isArray(header.sequences) ||
      !header.tables.every((t) => typeof t?.name === 'string' && Array.isArray(t.columns)) ||
      new Set(header.tables.map((t) => t.name)).size !== header.tables.length
    ) {
      throw corrupt(this.file, 'the header does not describe a snapshot');
    }
    return { header, line };
  }

  async table(name: string, sink?: (bytes: Buffer) => Promise<void>): Promise<{ rows: number; sha256: string }> {
    this.where = `table ${name}`;
    const hash = createHash('sha256');
    let rows = 0;
    let last = 10;
    for (let bytes = await this.frame(); bytes !== null; bytes = await this.frame()) {
      hash.update(bytes);
      rows += countRows(bytes);
      last = bytes[bytes.length - 1];
      if (sink) await sink(bytes);
    }
    if (last !== 10) throw corrupt(this.file, `table ${name} ends inside a row`);
    return { rows, sha256: hash.digest('hex') };
  }

  async trailer(): Promise<SnapshotTrailer> {
    this.where = 'the trailer';
    const line = await this.line();
    let trailer: SnapshotTrailer;
    try {
      trailer = JSON.parse(line) as SnapshotTrailer;
    } catch {
      throw corrupt(this.file, 'the trailer is not valid JSON');
    }
    if (typeof trailer?.rows !== 'object' || trailer.rows === null) {
      throw corrupt(this.file, 'the trailer has no row counts');
    }
    if (this.buffered.length > 0 || (await this.more())) throw corrupt(this.file, 'bytes after the trailer');
    return trailer;
  }

  close(): void {
    void this.source.return?.();
  }
}

export interface VerifiedSnapshot {
  file: string;
  format: 1 | 2;
  // false for a format-1 file: only gzip's CRC, the structure and the row counts were checked
  checksums: boolean;
  taken_at: string;
  schema_version: string | null;
  migrations: string[];
  header: SnapshotHeader;
  rows: Record<string, number>;
  sha256: Record<string, string>;
}

export async function verifySnapshot(file: string): Promise<VerifiedSnapshot> {
  const reader = new SnapshotReader(file);
  try {
    const { header, line } = await reader.header();
    const rows: Record<string, number> = {};
    const sha256: Record<string, string> = {};
    for (const table of header.tables) {
      const read = await reader.table(table.name);
      rows[table.name] = read.rows;
      sha256[table.name] = read.sha256;
    }
    const trailer = await reader.trailer();
    checkAgainstTrailer(file, header, line, trailer, rows, sha256);
    return {
      file,
      format: header.format,
      checksums: header.format >= 2,
      taken_at: header.taken_at,
      schema_version: header.migrations[header.migrations.length - 1] ?? null,
      migrations: header.migrations,
      header,
      rows,
      sha256,
    };
  } finally {
    reader.close();
  }
}

function checkAgainstTrailer(
  file: string,
  header: SnapshotHeader,
  headerLine: string,
  trailer: SnapshotTrailer,
  rows: Record<string, number>,
  sha256: Record<string, string>,
): void {
  const named = new Set(header.tables.map((t) => t.name));
  const extra = Object.keys(trailer.rows).filter((name) => !named.has(name));
  if (extra.length > 0) throw corrupt(file, `the trailer counts tables the header does not have: ${extra.join(', ')}`);
  for (const table of header.tables) {
    if (trailer.rows[table.name] !== rows[table.name]) {
      throw corrupt(
        file,
        `table ${table.name} holds ${rows[table.name]} rows, the trailer says ${trailer.rows[table.name]}`,
      );
    }
  }
  if (header.format < 2) return;
  if (trailer.header_sha256 !== sha256Hex(headerLine)) throw corrupt(file, 'the header does not match its checksum');
  for (const table of header.tables) {
    if (trailer.sha256?.[table.name] !== sha256[table.name]) {
      throw corrupt(file, `table ${table.name} does not match its checksum`);
    }
  }
}

export interface VerifyResult {
  file: string;
  ok: true;
  format: number;
  checksums: boolean;
  taken_at: string;
  schema_version: string | null;
  // migrations of the file this version does not know: a restore here would answer snapshot_newer
  unknown_migrations: string[];
  tables: number;
  rows: Record<string, number>;
}

export async function readSnapshotHeader(file: string): Promise<SnapshotHeader> {
  const reader = new SnapshotReader(file);
  try {
    return (await reader.header()).header;
  } finally {
    reader.close();
  }
}

export interface SchemaMigrator {
  known: string[];
  migrate: (client: Client, only?: ReadonlySet<string>) => Promise<string[]>;
}

export interface RestoreResult {
  file: string;
  taken_at: string;
  migrations_in_file: number;
  migrated_forward: string[];
  rows: Record<string, number>;
}

// Refuses while a daemon is connected to the database: a restore must not race a writer. A daemon's pooled
// connections close when idle; its listening one (svc-daemon-listen) stays while it runs.
async function assertNoDaemon(client: Client): Promise<void> {
  const rows = await client.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND (application_name = $1 OR application_name = $1 || '-listen')
        AND pid <> pg_backend_pid()`,
    [DAEMON_APPLICATION_NAME],
  );
  if (rows.rows[0].n > 0) {
    throw new SnapshotError(
      'daemon_running',
      `a daemon is connected to this database (${rows.rows[0].n} connections): stop every daemon before a restore`,
    );
  }
}

async function publicObjects(client: Client): Promise<number> {
  const rows = await client.query<{ n: number }>(
    `SELECT (SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
              WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f'))
          + (SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public')
          + (SELECT count(*) FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
              WHERE n.nspname = 'public' AND t.typtype IN ('e', 'd', 'c') AND t.typrelid = 0) AS n`,
  );
  return rows.rows[0].n;
}

async function dropEverything(client: Client): Promise<void> {
  await client.query(`DO $drop$
    DECLARE r record;
    BEGIN
      FOR r IN SELECT c.relname, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = 'public' AND c.relkind IN ('v', 'm') LOOP
        EXECUTE format(CASE r.relkind WHEN 'v' THEN 'DROP VIEW IF EXISTS public.%I CASCADE'
                       ELSE 'DROP MATERIALIZED VIEW IF EXISTS public.%I CASCADE' END, r.relname);
      END LOOP;
      FOR r IN SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'f') LOOP
        EXECUTE format('DROP TABLE IF EXISTS public.%I CASCADE', r.relname);
      END LOOP;
      FOR r IN SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = 'public' AND c.relkind = 'S' LOOP
        EXECUTE format('DROP SEQUENCE IF EXISTS public.%I CASCADE', r.relname);
      END LOOP;
      FOR r IN SELECT p.oid::regprocedure AS fn FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                WHERE n.nspname = 'public' LOOP
        EXECUTE format('DROP ROUTINE IF EXISTS %s CASCADE', r.fn);
      END LOOP;
      FOR r IN SELECT t.typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
                WHERE n.nspname = 'public' AND t.typtype IN ('e', 'd', 'c') AND t.typrelid = 0 LOOP
        EXECUTE format('DROP TYPE IF EXISTS public.%I CASCADE', r.typname);
      END LOOP;
    END $drop$`);
}

async function writeTo(stream: NodeJS.WritableStream, bytes: Buffer): Promise<void> {
  if (!stream.write(bytes)) await once(stream, 'drain');
}

// Loads the rows of every table inside the restore's transaction, triggers off: the rows arrive as they were, not
// stamped, counted or refused again by the triggers that wrote them. A superuser sets session_replication_role
// (foreign keys are not rechecked either); anyone else owns the tables (the migrations made them) and disables their
// user triggers. The file is read a second time: what is loaded must be what was verified.
async function loadRows(
  client: Client,
  reader: SnapshotReader,
  header: SnapshotHeader,
  verified: VerifiedSnapshot,
): Promise<Record<string, number>> {
  const rows: Record<string, number> = {};
  const superuser = (
    await client.query<{ s: boolean }>(`SELECT rolsuper AS s FROM pg_roles WHERE rolname = current_user`)
  ).rows[0]?.s;
  const present = await tablesInLoadOrder(client);
  const shape = (tables: SnapshotTable[]) =>
    JSON.stringify([...tables].sort((a, b) => a.name.localeCompare(b.name)).map((t) => [t.name, t.columns]));
  if (shape(present) !== shape(header.tables)) {
    throw new SnapshotError(
      'snapshot_mismatch',
      "the tables the migrations made differ from the file's tables at the same schema version",
    );
  }
  const names = header.tables.map((t) => q(t.name));
  // the migrations' seeded rows are checked (a table with pending trigger events cannot be truncated), then foreign
  // keys wait for the end of the load: the tables go in in foreign-key order, a cycle's rows in any order
  await client.query('SET CONSTRAINTS ALL IMMEDIATE');
  await client.query('SET CONSTRAINTS ALL DEFERRED');
  if (superuser) await client.query(`SET LOCAL session_replication_role = replica`);
  else for (const name of names) await client.query(`ALTER TABLE ${name} DISABLE TRIGGER USER`);
  // rows the migrations seeded (default workflows, ...) are in the file as they were at the backup
  if (names.length > 0) await client.query(`TRUNCATE ${names.join(', ')}`);
  for (const table of header.tables) {
    const columns = table.columns.map(q).join(', ');
    const copy = client.query(copyFrom(`COPY ${q(table.name)} (${columns}) FROM STDIN`));
    const done = new Promise<void>((resolve, reject) => {
      copy.on('finish', resolve);
      copy.on('error', reject);
    });
    let read: { rows: number; sha256: string };
    try {
      read = await reader.table(table.name, (bytes) => writeTo(copy, bytes));
    } catch (err) {
      // end the COPY with a CopyFail before anything else is sent: a ROLLBACK queued behind an open COPY waits forever
      copy.destroy(err as Error);
      await done.catch(() => undefined);
      throw err;
    }
    copy.end();
    await done;
    rows[table.name] = copy.rowCount;
    if (read.sha256 !== verified.sha256[table.name] || read.rows !== verified.rows[table.name]) {
      throw corrupt(reader.file, `table ${table.name} changed since it was verified (is something writing the file?)`);
    }
    if (copy.rowCount !== read.rows) {
      throw corrupt(reader.file, `table ${table.name} loaded ${copy.rowCount} rows, the file holds ${read.rows}`);
    }
  }
  for (const seq of header.sequences) {
    await client.query(`SELECT setval($1::regclass, $2::bigint, $3)`, [q(seq.name), seq.last_value, seq.is_called]);
  }
  // Change-tracking stamps are transaction ids of the server the backup came from; here they would lie in the
  // future, so every frontier refresh would read those rows again. They are stamped with this transaction instead:
  // changed at the restore, before any daemon reads.
  const stamps = await client.query<{ table: string; column: string }>(
    `SELECT c.relname AS table, a.attname AS column FROM pg_attribute a
       JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
      WHERE c.relkind = 'r' AND a.atttypid = 'xid8'::regtype AND a.attnum > 0 AND NOT a.attisdropped`,
  );
  for (const { table, column } of stamps.rows) {
    await client.query(`UPDATE ${q(table)} SET ${q(column)} = pg_current_xact_id() WHERE ${q(column)} IS NOT NULL`);
  }
  // the deferred foreign keys are checked now (none pending for a superuser): a table with pending checks cannot be
  // altered, by the triggers' re-enabling or a forward migration
  await client.query('SET CONSTRAINTS ALL IMMEDIATE');
  if (superuser) await client.query(`SET LOCAL session_replication_role = origin`);
  else for (const name of names) await client.query(`ALTER TABLE ${name} ENABLE TRIGGER USER`);
  await reader.trailer();
  return rows;
}

export async function restoreSnapshot(
  client: Client,
  file: string,
  migrator: SchemaMigrator,
  options: { force: boolean; say?: (text: string) => void },
): Promise<RestoreResult> {
  // before the file is read (a daemon's idle connections may close while it is) and again in the transaction
  await assertNoDaemon(client);
  const verified = await verifySnapshot(file);
  const header = verified.header;
  const known = new Set(migrator.known);
  const unknown = header.migrations.filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new SnapshotError(
      'snapshot_newer',
      `${file} was taken by a newer version of svc: its schema has ${unknown.join(', ')}, which this version does not ` +
        'know; restore it with that version or a later one',
    );
  }
  let rows: Record<string, number>;
  let forward: string[];
  await client.query('BEGIN');
  try {
    await assertNoDaemon(client);
    if ((await publicObjects(client)) > 0) {
      if (!options.force) {
        throw new SnapshotError(
          'database_not_empty',
          'the database is not empty: restore into an empty database (a fresh SVC_HOME, or a new database for ' +
            'SVC_DATABASE_URL), or pass --force to replace everything in it',
        );
      }
      options.say?.('replacing everything in the database (--force; kept if anything fails)');
      await dropEverything(client);
    }
    await migrator.migrate(client, new Set(header.migrations));
    const reader = new SnapshotReader(file);
    try {
      await reader.header();
      rows = await loadRows(client, reader, header, verified);
    } finally {
      reader.close();
    }
    forward = await migrator.migrate(client);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
  // the planner's statistics for the rows just loaded (the frontier's first reads would otherwise guess)
  await client.query('ANALYZE');
  return {
    file,
    taken_at: header.taken_at,
    migrations_in_file: header.migrations.length,
    migrated_forward: forward,
    rows,
  };
}
