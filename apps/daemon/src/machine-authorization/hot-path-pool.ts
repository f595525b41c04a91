import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';

// TypeORM's own pg pool: hot-path reads skip the query-runner bookkeeping.
export function hotPathPool(dataSource: DataSource): Pool {
  return (dataSource.driver as unknown as { master: Pool }).master;
}
