import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';

// The pg pool TypeORM already holds: hot-path reads (poll lookup, capacity pre-check)
// skip TypeORM's query-runner bookkeeping (same connections, same pool size).
export function hotPathPool(dataSource: DataSource): Pool {
  return (dataSource.driver as unknown as { master: Pool }).master;
}
