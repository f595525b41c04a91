import { DataSource } from 'typeorm';

import { dataSourceOptions } from './data-source';

// Any fixed 64-bit key: replicas booting together take turns, the first one applies the migrations.
const MIGRATION_LOCK_KEY = 7_301_001;

export async function runMigrations(url: string): Promise<string[]> {
  const dataSource = new DataSource({ ...dataSourceOptions(url, 2) });
  await dataSource.initialize();
  try {
    const runner = dataSource.createQueryRunner();
    await runner.connect();
    try {
      await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
      try {
        const applied = await dataSource.runMigrations({ transaction: 'each' });
        return applied.map((m) => m.name);
      } finally {
        await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
      }
    } finally {
      await runner.release();
    }
  } finally {
    await dataSource.destroy();
  }
}

export async function revertAllMigrations(url: string): Promise<number> {
  const dataSource = new DataSource({ ...dataSourceOptions(url, 2) });
  await dataSource.initialize();
  let reverted = 0;
  try {
    for (;;) {
      const rows: { count: string }[] = await dataSource.query('SELECT count(*) AS count FROM migrations');
      if (Number(rows[0].count) === 0) break;
      await dataSource.undoLastMigration({ transaction: 'each' });
      reverted += 1;
    }
  } finally {
    await dataSource.destroy();
  }
  return reverted;
}
