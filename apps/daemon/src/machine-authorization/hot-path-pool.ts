import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';

// The pg pool TypeORM already holds: the two per-request statements of start/poll budgets and the poll lookup
// skip TypeORM's query-runner bookkeeping (same connections, same pool size).
export function hotPathPool(dataSource: DataSource): Pool {
  return (dataSource.driver as unknown as { master: Pool }).master;
}
