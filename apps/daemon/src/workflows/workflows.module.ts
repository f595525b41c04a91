import { Global, Module } from '@nestjs/common';

import { StageGateRegistry } from './stage-gates';
import { WorkflowsController } from './workflows.controller';
import { WorkflowsRepository } from './workflows.repository';
import { WorkflowsService } from './workflows.service';

// Global: every feature module may register a stage gate checker on the one registry.
@Global()
@Module({
  controllers: [WorkflowsController],
  providers: [WorkflowsRepository, WorkflowsService, StageGateRegistry],
  exports: [WorkflowsService, StageGateRegistry],
})
export class WorkflowsModule {}
