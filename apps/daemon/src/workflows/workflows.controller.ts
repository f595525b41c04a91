import { Body, Controller, Get, Param, ParseIntPipe, Post } from '@nestjs/common';

import { WorkflowListResponse, WorkflowRegisterWire, WorkflowVersionWire } from '@app/contracts/backlog';

import { AuthenticatedActor, CurrentActor } from '../auth/actor';
import { WorkflowsService } from './workflows.service';
import { Writes } from '../rulebook/writes.decorator';

@Controller('v1/workflows')
export class WorkflowsController {
  constructor(private readonly service: WorkflowsService) {}

  @Writes('role')
  @Post()
  register(@CurrentActor() actor: AuthenticatedActor, @Body() body: unknown): Promise<WorkflowRegisterWire> {
    return this.service.register(actor, body);
  }

  @Get()
  list(): Promise<WorkflowListResponse> {
    return this.service.list();
  }

  @Get(':id/definition')
  definition(@Param('id') id: string): Promise<WorkflowVersionWire> {
    return this.service.currentDefinition(id);
  }

  @Get(':id/versions/:version')
  version(@Param('id') id: string, @Param('version', ParseIntPipe) version: number): Promise<WorkflowVersionWire> {
    return this.service.version(id, version);
  }
}
