import { DynamicModule, Module } from '@nestjs/common';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import { DataSource, DataSourceOptions } from 'typeorm';

import { DATA_SOURCE } from '../common/inject-data-source';
import { dataSourceOptions } from './data-source';
import { recordAutocommitWrites } from './writer.subscriber';

@Module({})
export class DatabaseModule {
  static forRoot(url: string, poolSize: number, prepared = true): DynamicModule {
    return {
      module: DatabaseModule,
      // global, as TypeORM's own module is: every feature's repository injects DATA_SOURCE
      global: true,
      imports: [
        TypeOrmModule.forRootAsync({
          useFactory: () => ({
            ...dataSourceOptions(url, poolSize, prepared),
            autoLoadEntities: true,
            retryAttempts: 3,
            retryDelay: 500,
          }),
          dataSourceFactory: async (options?: DataSourceOptions) => {
            const dataSource = await new DataSource(options!).initialize();
            recordAutocommitWrites(dataSource);
            return dataSource;
          },
        }),
      ],
      providers: [{ provide: DATA_SOURCE, useExisting: getDataSourceToken() }],
      exports: [DATA_SOURCE],
    };
  }
}
