import { Controller, Get, Inject } from '@nestjs/common';
import {
  HealthCheck,
  HealthCheckResult,
  HealthCheckService,
  HealthIndicatorService,
  TypeOrmHealthIndicator,
} from '@nestjs/terminus';
import type { DataSource } from 'typeorm';

import { Public } from '../auth/public.decorator';
import { DATABASE_RETRY_AFTER_SECONDS } from '../common/database-outage';
import { databaseUnavailable, notReady, shuttingDown } from '../common/domain-error';
import { drain, SHUTTING_DOWN_RETRY_AFTER_SECONDS } from '../common/drain';
import { InjectDataSource } from '../common/inject-data-source';
import { APP_CONFIG, AppConfig } from '../config/app-config';

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/i;

function refuseWhileDraining(): void {
  if (drain.phase === 'serving') return;
  drain.probed();
  throw shuttingDown(SHUTTING_DOWN_RETRY_AFTER_SECONDS);
}

@Public()
@Controller()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly db: TypeOrmHealthIndicator,
    private readonly indicators: HealthIndicatorService,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  // Stays 200 during a database outage (a restart would not bring it back). On loopback it also names SVC_HOME, so
  // `svc up` can tell its own daemon from another home's on the same port.
  @Get('healthz')
  liveness(): { status: 'ok'; home?: string } {
    return LOOPBACK.test(this.config.host) ? { status: 'ok', home: this.config.home } : { status: 'ok' };
  }

  // The balancer's check: 200 while taking requests, even during an outage; 503 once draining.
  @Get('livez')
  serving(): { status: 'ok' } {
    drain.livez();
    refuseWhileDraining();
    return { status: 'ok' };
  }

  // 503 while the database is unreachable or migrations are pending, so an orchestrator waits.
  @Get('readyz')
  @HealthCheck()
  async readiness(): Promise<HealthCheckResult> {
    refuseWhileDraining();
    try {
      return await this.health.check([
        () => this.db.pingCheck('database', { timeout: 2000 }),
        async () => {
          const indicator = this.indicators.check('migrations');
          // Unknown while the database is away: down (503), never a thrown 500.
          const pending = await this.dataSource.showMigrations().catch(() => null);
          if (pending === null) return indicator.down({ reachable: false });
          return pending ? indicator.down({ pending: true }) : indicator.up();
        },
      ]);
    } catch (err) {
      // The answer names what is down in the daemons' shape: { code, message, checks } (svc doctor reads it).
      const result = (err as { getResponse?: () => unknown }).getResponse?.() as Partial<HealthCheckResult> | undefined;
      if (!result?.details) throw err;
      const checks = result.details;
      const database = checks.database as { status?: string } | undefined;
      const migrations = checks.migrations as { status?: string; reachable?: boolean } | undefined;
      if (database?.status === 'down' || migrations?.reachable === false) {
        throw databaseUnavailable(DATABASE_RETRY_AFTER_SECONDS, { checks });
      }
      throw notReady('migrations are pending', { checks });
    }
  }
}
