import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR } from '@nestjs/core';
import { ScheduleModule } from '@nestjs/schedule';
import { LoggerModule } from 'nestjs-pino';

import { AuthModule } from './auth/auth.module';
import { AccessLogModule } from './common/access-log.module';
import { ServerSecretModule } from './config/server-secret.module';
import { GlobalExceptionFilter } from './common/global-exception.filter';
import { HttpAdapterModule } from './common/http-adapter.module';
import { InputEdgeInterceptor } from './common/input-edge.interceptor';
import { daemonLoggerParams } from './common/logging';
import { APP_CONFIG, AppConfig } from './config/app-config';
import { DatabaseModule } from './database/database.module';
import { FEATURE_MODULES } from './feature-modules';
import { HealthModule } from './health/health.module';
import { WriteContextInterceptor } from './rulebook/write-context.interceptor';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, databaseUrl: string): DynamicModule {
    return {
      module: AppModule,
      imports: [
        LoggerModule.forRoot(daemonLoggerParams(config)),
        ScheduleModule.forRoot(),
        DatabaseModule.forRoot(databaseUrl, config.dbPoolSize, config.dbPreparedStatements),
        ServerSecretModule,
        HttpAdapterModule,
        AccessLogModule,
        AuthModule,
        HealthModule,
        ...FEATURE_MODULES,
      ],
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: APP_FILTER, useClass: GlobalExceptionFilter },
        { provide: APP_INTERCEPTOR, useClass: InputEdgeInterceptor },
        { provide: APP_INTERCEPTOR, useExisting: WriteContextInterceptor },
      ],
      exports: [APP_CONFIG],
      global: true,
    };
  }
}
