import { Module, OnModuleInit } from '@nestjs/common';

import { StageGateRegistry } from '../workflows/stage-gates';
import { DeploymentsController } from './deployments.controller';
import { DeploymentsRepository } from './deployments.repository';
import { DEPLOYMENT_COMPLETE_GATE, DeploymentsService } from './deployments.service';

@Module({
  controllers: [DeploymentsController],
  providers: [DeploymentsRepository, DeploymentsService],
  exports: [DeploymentsService],
})
export class DeploymentsModule implements OnModuleInit {
  constructor(
    private readonly gates: StageGateRegistry,
    private readonly service: DeploymentsService,
  ) {}

  onModuleInit(): void {
    this.gates.registerUniversal(DEPLOYMENT_COMPLETE_GATE, (ctx) => this.service.checkComplete(ctx));
  }
}
