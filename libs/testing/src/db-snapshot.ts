import { Client } from 'pg';

// Tables a refused request may still touch by design: budget counters spent per request, approval-page sessions,
// last-used stamps of credentials, the events of charge decisions a CLI records, the replicas' heartbeats (every
// minute, svc doctor). Everything else must not change.
export const VOLATILE_TABLES = new Set([
  'rate_counters',
  'approval_sessions',
  'api_tokens',
  'machine_credentials',
  'migrations',
  'daemon_replicas',
]);

// Cached per client and skip set: the schema does not change under a test, and the authorization matrix takes
// thousands of digests.
const digestQueries = new WeakMap<Client, Map<ReadonlySet<string>, string | null>>();

// The database's tables in name order, less the skipped ones.
async function tablesOf(client: Client, skip: ReadonlySet<string>): Promise<string[]> {
  const rows = await client.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables
      WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
  );
  return rows.rows.map((r) => r.name).filter((name) => !skip.has(name));
}

async function digestQuery(client: Client, skip: ReadonlySet<string>): Promise<string | null> {
  let bySkip = digestQueries.get(client);
  if (!bySkip) digestQueries.set(client, (bySkip = new Map()));
  if (bySkip.has(skip)) return bySkip.get(skip)!;
  const tables = await tablesOf(client, skip);
  const query =
    tables.length === 0
      ? null
      : tables
          .map(
            (name) =>
              `SELECT '${name}' AS name, md5(coalesce(string_agg(t::text, ',' ORDER BY t::text), '')) AS digest FROM "${name}" t`,
          )
          .join(' UNION ALL ');
  bySkip.set(skip, query);
  return query;
}

// One round trip once the client has read the schema.
export async function databaseDigest(client: Client, skip: ReadonlySet<string> = VOLATILE_TABLES): Promise<string> {
  const query = await digestQuery(client, skip);
  if (query === null) return '';
  const rows = await client.query<{ name: string; digest: string }>(query);
  return rows.rows.map((r) => `${r.name}:${r.digest}`).join(' ');
}

export function changedTables(before: string, after: string): string[] {
  const map = (d: string) => new Map(d.split(' ').map((p) => p.split(':') as [string, string]));
  const a = map(before);
  const b = map(after);
  return [...new Set([...a.keys(), ...b.keys()])].filter((k) => a.get(k) !== b.get(k));
}

// databaseDigest for a test that takes thousands of digests of one database: a statement-level trigger on each
// table logs the statement's commit (svc_test_writes, append-only, so no writer waits on another), and a digest
// re-reads only the tables whose count of logged statements moved. Counts and digests are read in one snapshot, so a
// cached digest always matches its count, and a change committed later always raises the count.
// The tracker's own log: never digested, never logged (a trigger on it would log its own inserts forever).
export const WRITE_LOG = 'svc_test_writes';

export class DigestTracker {
  private readonly known = new Map<string, { count: string; digest: string }>();

  private constructor(
    private readonly client: Client,
    private readonly tables: readonly string[],
  ) {}

  static async install(client: Client, skip: ReadonlySet<string> = VOLATILE_TABLES): Promise<DigestTracker> {
    const tables = await tablesOf(client, new Set([...skip, WRITE_LOG]));
    await client.query(`
      CREATE TABLE IF NOT EXISTS svc_test_writes (name text NOT NULL);
      CREATE OR REPLACE FUNCTION svc_test_log_write() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO svc_test_writes (name) VALUES (TG_TABLE_NAME); RETURN NULL; END $$;
      ${tables
        .map(
          (name) => `DROP TRIGGER IF EXISTS svc_test_log_write ON "${name}";
      CREATE TRIGGER svc_test_log_write AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "${name}"
        FOR EACH STATEMENT EXECUTE FUNCTION svc_test_log_write();`,
        )
        .join('\n')}`);
    return new DigestTracker(client, tables);
  }

  // The same string databaseDigest gives for the same skipped tables.
  async digest(): Promise<string> {
    await this.client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    try {
      const counts = new Map(
        (
          await this.client.query<{ name: string; count: string }>(
            'SELECT name, count(*)::text AS count FROM svc_test_writes GROUP BY name',
          )
        ).rows.map((r) => [r.name, r.count]),
      );
      const stale = this.tables.filter((name) => this.known.get(name)?.count !== (counts.get(name) ?? '0'));
      if (stale.length > 0) {
        const rows = await this.client.query<{ name: string; digest: string }>(
          stale
            .map(
              (name) =>
                `SELECT '${name}' AS name, md5(coalesce(string_agg(t::text, ',' ORDER BY t::text), '')) AS digest FROM "${name}" t`,
            )
            .join(' UNION ALL '),
        );
        for (const { name, digest } of rows.rows) this.known.set(name, { count: counts.get(name) ?? '0', digest });
      }
    } finally {
      await this.client.query('COMMIT');
    }
    return this.tables.map((name) => `${name}:${this.known.get(name)?.digest ?? ''}`).join(' ');
  }
}
