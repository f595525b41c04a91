import { Controller, Get } from '@nestjs/common';
import {
  HealthCheck,
  HealthCheckResult,
  HealthCheckService,
  HealthIndicatorService,
  TypeOrmHealthIndicator,
} from '@nestjs/terminus';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import { Public } from '../auth/public.decorator';

@Public()
@Controller()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly db: TypeOrmHealthIndicator,
    private readonly indicators: HealthIndicatorService,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  // Liveness: the process answers. Stays 200 during a database outage (a restart would not bring the database back).
  @Get('healthz')
  liveness(): { status: 'ok' } {
    return { status: 'ok' };
  }

  // Readiness: 503 while the database is unreachable or migrations are pending, so a balancer routes elsewhere.
  @Get('readyz')
  @HealthCheck()
  readiness(): Promise<HealthCheckResult> {
    return this.health.check([
      () => this.db.pingCheck('database', { timeout: 2000 }),
      async () => {
        const indicator = this.indicators.check('migrations');
        // Unknown while the database is away: down (503), never a thrown 500.
        const pending = await this.dataSource.showMigrations().catch(() => null);
        if (pending === null) return indicator.down({ reachable: false });
        return pending ? indicator.down({ pending: true }) : indicator.up();
      },
    ]);
  }
}
