import { Module } from '@nestjs/common';

import { FrontierModule } from '../frontier/frontier.module';
import { MachineAuthorizationModule } from '../machine-authorization/machine-authorization.module';
import { SweepsModule } from '../sweeps/sweeps.module';
import { MetricsController } from './metrics.controller';
import { MetricsService } from './metrics.service';

// Prometheus metrics: the features expose observers and counts; only this module knows prom-client.
@Module({
  imports: [FrontierModule, MachineAuthorizationModule, SweepsModule],
  controllers: [MetricsController],
  providers: [MetricsService],
})
export class MetricsModule {}
