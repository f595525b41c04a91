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

async function digestQuery(client: Client, skip: ReadonlySet<string>): Promise<string | null> {
  let bySkip = digestQueries.get(client);
  if (!bySkip) digestQueries.set(client, (bySkip = new Map()));
  if (bySkip.has(skip)) return bySkip.get(skip)!;
  const tables = (
    await client.query<{ name: string }>(
      `SELECT table_name AS name FROM information_schema.tables
        WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
    )
  ).rows
    .map((r) => r.name)
    .filter((name) => !skip.has(name));
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
