import type { Pool } from 'pg';

export interface PollLookup {
  scope: string;
  clientKey: string;
  hash: Buffer;
}

export interface RawPollCode {
  id: string;
  status: 'pending' | 'approved' | 'denied' | 'consumed';
  live: boolean;
  machine_id: string;
  machine_name: string;
  organization_id: number | null;
  slug: string | null;
  decided_by: number | null;
  expires_at: string;
}

export interface PollAnswer {
  hits: number;
  retryAfter: number;
  code: RawPollCode | null;
}

interface Waiting extends PollLookup {
  resolve: (outcome: PollAnswer) => void;
  reject: (err: unknown) => void;
}

export interface BudgetGroup {
  scope: string;
  subject: string;
  count: number;
}

// Requests of one batch grouped by budget: the statement adds `count` at once and returns the total, and the
// requests of a group take the positions total-count+1 … total in arrival order, so each one's hit number is exact.
export function groupBudgets(lookups: readonly PollLookup[]): { groups: BudgetGroup[]; groupOf: number[] } {
  const index = new Map<string, number>();
  const groups: BudgetGroup[] = [];
  const groupOf: number[] = [];
  for (const lookup of lookups) {
    const key = `${lookup.scope}\u0000${lookup.clientKey}`;
    let g = index.get(key);
    if (g === undefined) {
      g = groups.length;
      index.set(key, g);
      groups.push({ scope: lookup.scope, subject: lookup.clientKey, count: 0 });
    }
    groups[g].count += 1;
    groupOf.push(g);
  }
  return { groups, groupOf };
}

export function assignHits(groups: readonly BudgetGroup[], groupOf: readonly number[], totals: readonly number[]) {
  const taken = new Array<number>(groups.length).fill(0);
  return groupOf.map((g) => {
    taken[g] += 1;
    return totals[g] - groups[g].count + taken[g];
  });
}

const BATCH_SQL = `
  WITH req AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::int[]) WITH ORDINALITY AS r(scope, subject, n, g)
  ), hit AS (
    INSERT INTO rate_counters (scope, subject, window_start, hits, expires_at)
    SELECT scope, subject, date_trunc('minute', now()), n, date_trunc('minute', now()) + interval '2 minutes'
      FROM req
    ON CONFLICT (scope, subject, window_start) DO UPDATE SET hits = rate_counters.hits + EXCLUDED.hits
    RETURNING scope, subject, hits,
              greatest(1, ceil(extract(epoch FROM (window_start + interval '1 minute' - now()))))::int AS retry_after
  ), codes AS (
    SELECT encode(ma.device_code_hash, 'hex') AS hash, ma.id::text AS id, ma.status, ma.expires_at > now() AS live,
           ma.machine_id, ma.machine_name, ma.organization_id, o.slug, ma.decided_by, ma.expires_at
      FROM machine_authorizations ma LEFT JOIN organizations o ON o.id = ma.organization_id
     WHERE ma.device_code_hash = ANY ($4::bytea[])
  )
  SELECT (SELECT json_agg(json_build_array(req.g, hit.hits, hit.retry_after))
            FROM hit JOIN req USING (scope, subject))::text AS hits,
         (SELECT json_agg(codes) FROM codes)::text AS codes`;

// Group commit for polls: while a statement is in flight, arriving polls queue, and the next statement spends all
// their budgets and reads all their codes at once. Under load that turns thousands of statements a second into a
// few hundred; at rest a poll still goes out at once. Budgets stay exact: one atomic increment per client a batch.
export class PollBatcher {
  private queue: Waiting[] = [];
  private inFlight = 0;

  constructor(
    private readonly pool: Pool,
    private readonly maxInFlight = 2,
    private readonly maxBatch = 512,
  ) {}

  lookup(request: PollLookup): Promise<PollAnswer> {
    return new Promise<PollAnswer>((resolve, reject) => {
      this.queue.push({ ...request, resolve, reject });
      if (this.inFlight < this.maxInFlight) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.queue.length === 0) return;
    const batch = this.queue.splice(0, this.maxBatch);
    this.inFlight += 1;
    try {
      const { groups, groupOf } = groupBudgets(batch);
      const hashes = [...new Set(batch.map((w) => w.hash.toString('hex')))].map((h) => Buffer.from(h, 'hex'));
      const { rows } = await this.pool.query<{ hits: string | null; codes: string | null }>(BATCH_SQL, [
        groups.map((g) => g.scope),
        groups.map((g) => g.subject),
        groups.map((g) => g.count),
        hashes,
      ]);
      const totals = new Array<number>(groups.length).fill(0);
      const retryAfter = new Array<number>(groups.length).fill(1);
      for (const [ordinal, hits, retry] of JSON.parse(rows[0].hits ?? '[]') as [number, number, number][]) {
        totals[ordinal - 1] = hits;
        retryAfter[ordinal - 1] = retry;
      }
      const codes = new Map<string, RawPollCode>();
      for (const code of JSON.parse(rows[0].codes ?? '[]') as (RawPollCode & { hash: string })[]) {
        codes.set(code.hash, code);
      }
      const positions = assignHits(groups, groupOf, totals);
      batch.forEach((waiting, i) =>
        waiting.resolve({
          hits: positions[i],
          retryAfter: retryAfter[groupOf[i]],
          code: codes.get(waiting.hash.toString('hex')) ?? null,
        }),
      );
    } catch (err) {
      for (const waiting of batch) waiting.reject(err);
    } finally {
      this.inFlight -= 1;
      if (this.queue.length > 0) void this.flush();
    }
  }
}
