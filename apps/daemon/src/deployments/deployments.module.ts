import { Module } from '@nestjs/common';

import { DeploymentsController } from './deployments.controller';
import { DeploymentsRepository } from './deployments.repository';
import { DeploymentsService } from './deployments.service';

@Module({
  controllers: [DeploymentsController],
  providers: [DeploymentsRepository, DeploymentsService],
  exports: [DeploymentsRepository],
})
export class DeploymentsModule {}
