import { Injectable } from '@nestjs/common';
import type { DataSource } from 'typeorm';

import { InjectDataSource } from '../common/inject-data-source';
import { BudgetPool } from './budget-pool';

export interface WindowCount {
  hits: number;
  retryAfter: number;
}

@Injectable()
export class RateLimitRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly budgets: BudgetPool,
  ) {}

  // One statement on the database clock: count this hit in the current one-minute window, shared by every replica.
  async hit(scope: string, subject: string): Promise<WindowCount> {
    const { rows } = await this.budgets.pool.query<{ hits: number; retry_after: number }>(
      `INSERT INTO rate_counters (scope, subject, window_start, hits, expires_at)
       VALUES ($1, $2, date_trunc('minute', now()), 1, date_trunc('minute', now()) + interval '2 minutes')
       ON CONFLICT (scope, subject, window_start) DO UPDATE SET hits = rate_counters.hits + 1
       RETURNING hits, greatest(1, ceil(extract(epoch FROM (window_start + interval '1 minute' - now()))))::int
                 AS retry_after`,
      [scope, subject],
    );
    return { hits: rows[0].hits, retryAfter: rows[0].retry_after };
  }

  async peek(scope: string, subjects: string[]): Promise<WindowCount> {
    const rows: { hits: number | null; retry_after: number }[] = await this.dataSource.query(
      `SELECT max(hits)::int AS hits,
              greatest(1, ceil(extract(epoch FROM (date_trunc('minute', now()) + interval '1 minute' - now()))))::int
                AS retry_after
         FROM rate_counters
        WHERE scope = $1 AND subject = ANY($2::text[]) AND window_start = date_trunc('minute', now())`,
      [scope, subjects],
    );
    return { hits: rows[0]?.hits ?? 0, retryAfter: rows[0]?.retry_after ?? 60 };
  }

  async sweep(): Promise<number> {
    const result: [unknown[], number] = await this.dataSource.query(
      'DELETE FROM rate_counters WHERE expires_at < now()',
    );
    return result[1];
  }
}
