import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { ScheduleModule } from '@nestjs/schedule';
import { LoggerModule } from 'nestjs-pino';

import { AuthModule } from './auth/auth.module';
import { BearerAuthGuard } from './auth/bearer-auth.guard';
import { AccessLogModule } from './common/access-log.module';
import { ServerSecretModule } from './config/server-secret.module';
import { GlobalExceptionFilter } from './common/global-exception.filter';
import { HttpAdapterModule } from './common/http-adapter.module';
import { InputEdgeGuard } from './common/input-edge.guard';
import { daemonLoggerParams } from './common/logging';
import { APP_CONFIG, AppConfig } from './config/app-config';
import { DatabaseModule } from './database/database.module';
import { FEATURE_MODULES } from './feature-modules';
import { HealthModule } from './health/health.module';
import { WriteContextGuard } from './rulebook/write-context.guard';

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
        // Every route's guards, in this order: who calls, what it sends, who writes (ADR 0107). No global
        // interceptor: Nest wraps each one of every request in an rxjs defer over an AsyncResource.bind.
        { provide: APP_GUARD, useExisting: BearerAuthGuard },
        { provide: APP_GUARD, useClass: InputEdgeGuard },
        { provide: APP_GUARD, useExisting: WriteContextGuard },
      ],
      exports: [APP_CONFIG],
      global: true,
    };
  }
}
