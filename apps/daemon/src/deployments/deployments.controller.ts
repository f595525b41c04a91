import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';

import type {
  DeploymentApprovalResponse,
  EnvironmentListResponse,
  EnvironmentWire,
  FlowListResponse,
  FlowWire,
  RunListResponse,
  RunWire,
} from '@app/contracts';

import { AuthenticatedActor, CurrentActor } from '../auth/actor';
import { Writes } from '../rulebook/writes.decorator';
import { DeploymentsService } from './deployments.service';
import {
  ApproveDto,
  CreateEnvironmentDto,
  CreateFlowDto,
  CreateRunDto,
  ProjectQueryDto,
  ResumeRunDto,
  UpdateRunDto,
} from './dto/deployments.dto';

@Controller('v1/deployments')
export class DeploymentsController {
  constructor(private readonly service: DeploymentsService) {}

  @Writes('scope', 'role')
  @Post('flows')
  createFlow(@CurrentActor() actor: AuthenticatedActor, @Body() dto: CreateFlowDto): Promise<FlowWire> {
    return this.service.createFlow(actor, dto);
  }

  @Get('flows')
  flows(@CurrentActor() actor: AuthenticatedActor, @Query() query: ProjectQueryDto): Promise<FlowListResponse> {
    return this.service.flows(actor, query.project);
  }

  @Writes('scope', 'role')
  @Post('environments')
  createEnvironment(
    @CurrentActor() actor: AuthenticatedActor,
    @Body() dto: CreateEnvironmentDto,
  ): Promise<EnvironmentWire> {
    return this.service.createEnvironment(actor, dto);
  }

  @Get('environments')
  environments(
    @CurrentActor() actor: AuthenticatedActor,
    @Query() query: ProjectQueryDto,
  ): Promise<EnvironmentListResponse> {
    return this.service.environments(actor, query.project);
  }

  @Post('environments/:project/:name/retire')
  @HttpCode(200)
  @Writes('scope', 'role')
  retire(
    @CurrentActor() actor: AuthenticatedActor,
    @Param('project') project: string,
    @Param('name') name: string,
  ): Promise<EnvironmentWire> {
    return this.service.retireEnvironment(actor, project, name);
  }

  @Post('environments/:project/:name/unretire')
  @HttpCode(200)
  @Writes('scope', 'role')
  unretire(
    @CurrentActor() actor: AuthenticatedActor,
    @Param('project') project: string,
    @Param('name') name: string,
  ): Promise<EnvironmentWire> {
    return this.service.unretireEnvironment(actor, project, name);
  }

  @Writes('scope', 'approval_stages')
  @Post('runs')
  createRun(@CurrentActor() actor: AuthenticatedActor, @Body() dto: CreateRunDto): Promise<RunWire> {
    return this.service.createRun(actor, dto);
  }

  @Writes('scope', 'approval_stages')
  @Patch('runs/:id')
  updateRun(
    @CurrentActor() actor: AuthenticatedActor,
    @Param('id') id: string,
    @Body() dto: UpdateRunDto,
  ): Promise<RunWire> {
    return this.service.updateRun(actor, id, dto);
  }

  @Writes('scope', 'approval_stages')
  @Post('runs/:id/resume')
  @HttpCode(200)
  resumeRun(
    @CurrentActor() actor: AuthenticatedActor,
    @Param('id') id: string,
    @Body() dto: ResumeRunDto,
  ): Promise<RunWire> {
    return this.service.resumeRun(actor, id, dto);
  }

  @Writes('scope', 'role', 'approval_stages')
  @Post('approvals')
  @HttpCode(201)
  approve(@CurrentActor() actor: AuthenticatedActor, @Body() dto: ApproveDto): Promise<DeploymentApprovalResponse> {
    return this.service.approve(actor, dto);
  }

  @Get('runs')
  runs(@CurrentActor() actor: AuthenticatedActor, @Query() query: ProjectQueryDto): Promise<RunListResponse> {
    return this.service.runs(actor, query.project);
  }
}
