import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource, DataSourceOptions } from 'typeorm';

import { dataSourceOptions } from './data-source';
import { recordAutocommitWrites } from './writer.subscriber';

@Module({})
export class DatabaseModule {
  static forRoot(url: string, poolSize: number): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          useFactory: () => ({
            ...dataSourceOptions(url, poolSize),
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
    };
  }
}
