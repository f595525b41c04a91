import { createHash } from 'node:crypto';
import { Client } from 'pg';

// Every row of every table as text, for comparing two databases table by table (a backup's source and its
// restore, an old release's database and its upgrade). Change-tracking stamps (xid8 columns) are transaction ids of
// the server that wrote them and are left out: a restore stamps them anew.
export async function tableRows(url: string, skip: ReadonlySet<string> = new Set(['migrations'])) {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const tables = await client.query<{ name: string; stamps: string[] }>(
      `SELECT c.relname AS name,
              coalesce(array_agg(a.attname::text) FILTER (WHERE a.atttypid = 'xid8'::regtype), '{}') AS stamps
         FROM pg_class c
         JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
         JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
        WHERE c.relkind = 'r'
        GROUP BY c.relname ORDER BY c.relname`,
    );
    const out = new Map<string, string[]>();
    for (const { name, stamps } of tables.rows) {
      if (skip.has(name)) continue;
      const minus = stamps.map((s) => ` - '${s}'`).join('');
      const rows = await client.query<{ r: string }>(`SELECT (to_jsonb(t)${minus})::text AS r FROM "${name}" t`);
      out.set(name, rows.rows.map((row) => row.r).sort());
    }
    return out;
  } finally {
    await client.end();
  }
}

// One digest per table: equal maps mean equal rows.
export function tableDigests(rows: Map<string, string[]>): Record<string, string> {
  return Object.fromEntries(
    [...rows].map(([name, list]) => [
      `${name} (${list.length} rows)`,
      createHash('sha256').update(list.join('\n')).digest('hex').slice(0, 16),
    ]),
  );
}
