import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { Pool } from 'pg';
import type { DataSource } from 'typeorm';
import type { PostgresConnectionOptions } from 'typeorm/driver/postgres/PostgresConnectionOptions';

import { InjectDataSource } from '../common/inject-data-source';
import { APP_CONFIG, AppConfig } from '../config/app-config';

// Asynchronous commit for the budget counters only: an increment is still atomic and seen by every replica; a
// PostgreSQL crash could drop the last fraction of a second of them. Every other write commits synchronously.
@Injectable()
export class BudgetPool implements OnModuleDestroy {
  readonly pool: Pool;

  constructor(@InjectDataSource() dataSource: DataSource, @Inject(APP_CONFIG) config: AppConfig) {
    const options = dataSource.options as PostgresConnectionOptions;
    this.pool = new Pool({
      host: options.host,
      port: options.port,
      user: options.username,
      password: typeof options.password === 'string' ? options.password : undefined,
      database: options.database,
      ssl: options.ssl as boolean | undefined,
      max: config.dbPoolSize,
      application_name: 'svc-daemon-budgets',
      options: '-c synchronous_commit=off',
    });
    this.pool.on('error', () => undefined);
  }

  async onModuleDestroy(): Promise<void> {
    await this.pool.end();
  }
}
