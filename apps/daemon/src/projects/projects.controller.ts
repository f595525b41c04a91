import { Body, Controller, Get, Param, Patch, Post } from '@nestjs/common';

import { ProjectListResponse, ProjectWire } from '@app/contracts/backlog';

import { AuthenticatedActor, CurrentActor } from '../auth/actor';
import { CreateProjectDto, UpdateProjectDto } from './dto/projects.dto';
import { ProjectsService } from './projects.service';
import { Writes } from '../rulebook/writes.decorator';

@Controller('v1/projects')
export class ProjectsController {
  constructor(private readonly service: ProjectsService) {}

  @Writes('scope')
  @Post()
  create(@CurrentActor() actor: AuthenticatedActor, @Body() dto: CreateProjectDto): Promise<ProjectWire> {
    return this.service.create(actor, dto);
  }

  @Get()
  list(@CurrentActor() actor: AuthenticatedActor): Promise<ProjectListResponse> {
    return this.service.list(actor);
  }

  @Get(':id')
  get(@CurrentActor() actor: AuthenticatedActor, @Param('id') id: string): Promise<ProjectWire> {
    return this.service.get(actor, id);
  }

  @Writes('scope', 'role', 'wip_cap')
  @Patch(':id')
  update(
    @CurrentActor() actor: AuthenticatedActor,
    @Param('id') id: string,
    @Body() dto: UpdateProjectDto,
  ): Promise<ProjectWire> {
    return this.service.update(actor, id, dto);
  }
}
