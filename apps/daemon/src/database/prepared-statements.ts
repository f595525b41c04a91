import { createHash } from 'node:crypto';
import { Client, ClientConfig } from 'pg';

// Named prepared statements for the daemon's repeated statements (ADR 0092). `pg` sends a parameterized query as an
// unnamed statement, which PostgreSQL parses, analyzes and plans at every execution: measured with pgbench on the
// embedded PostgreSQL 17 at 10k items, the eight statements of a priority write run at 270 writes/s that way and at
// 740 /s prepared (PostgreSQL's default plan cache: a generic plan once it costs no more than the custom ones).
//
// A text is prepared on a connection once it has been sent twice by the process (a statement written into the code,
// not one built from its arguments), up to PER_CONNECTION statements a connection and 4 × PER_CONNECTION names in
// the process; past that, or with no parameters (a simple query, which may hold several statements), it goes unnamed
// as before.

export const PER_CONNECTION = 128;
const SEEN_LIMIT = 4096;

const seen = new Set<string>();
const names = new Map<string, string>();

function nameOf(text: string): string | null {
  const known = names.get(text);
  if (known !== undefined) return known;
  if (!seen.has(text)) {
    if (seen.size >= SEEN_LIMIT) seen.clear();
    seen.add(text);
    return null;
  }
  seen.delete(text);
  const name = `svc_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
  names.set(text, name);
  return name;
}

type QueryArgs = [text: unknown, values?: unknown, callback?: unknown];

// A `pg` client that sends the daemon's repeated parameterized statements as named prepared statements.
export class PreparingClient extends Client {
  private readonly prepared = new Set<string>();

  constructor(config?: string | ClientConfig) {
    super(config);
    const query = this.query.bind(this) as (...args: unknown[]) => unknown;
    this.query = ((...args: QueryArgs) => {
      const [text, values, callback] = args;
      if (typeof text !== 'string' || !Array.isArray(values) || values.length === 0) return query(...args);
      const name = this.nameFor(text);
      if (name === null) return query(...args);
      const config = { name, text, values };
      return typeof callback === 'function' ? query(config, callback) : query(config);
    }) as Client['query'];
  }

  private nameFor(text: string): string | null {
    if (names.size >= PER_CONNECTION * 4 && !names.has(text)) return null;
    const name = nameOf(text);
    if (name === null) return null;
    if (this.prepared.has(name)) return name;
    if (this.prepared.size >= PER_CONNECTION) return null;
    this.prepared.add(name);
    return name;
  }
}
