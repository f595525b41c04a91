import { Body, Controller, Delete, Get, Param, Post, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';

import { DependencyAddWire, DependencyListResponse } from '@app/contracts/backlog';

import { AuthenticatedActor, CurrentActor } from '../auth/actor';
import { Writes } from '../rulebook/writes.decorator';
import { DependenciesService } from './dependencies.service';
import { AddDependencyDto, ListDependenciesQueryDto, RemoveDependencyQueryDto } from './dto/dependencies.dto';

@Controller('v1/items/:ref/dependencies')
export class DependenciesController {
  constructor(private readonly service: DependenciesService) {}

  // 201 when the edge is new, 200 when it already existed (re-declaring is a silent no-op).
  @Post()
  @Writes('scope', 'org_edges')
  async add(
    @CurrentActor() actor: AuthenticatedActor,
    @Param('ref') ref: string,
    @Body() dto: AddDependencyDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<DependencyAddWire> {
    const result = await this.service.add(actor, ref, dto);
    void reply.status(result.created ? 201 : 200);
    return result;
  }

  @Get()
  list(
    @CurrentActor() actor: AuthenticatedActor,
    @Param('ref') ref: string,
    @Query() query: ListDependenciesQueryDto,
  ): Promise<DependencyListResponse> {
    return this.service.list(actor, ref, query.direction, query.gate_point);
  }

  @Delete(':blocker')
  @Writes('scope')
  remove(
    @CurrentActor() actor: AuthenticatedActor,
    @Param('ref') ref: string,
    @Param('blocker') blocker: string,
    @Query() query: RemoveDependencyQueryDto,
  ) {
    return this.service.remove(actor, ref, blocker, query.gate_point);
  }
}
