import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';

import { AuthenticatedActor, CurrentActor } from '../auth/actor';
import { EventsListResponse, EventsQueryDto, EventsStreamQueryDto } from './dto/events.dto';
import { EventsService } from './events.service';

@Controller('v1/events')
export class EventsController {
  constructor(private readonly service: EventsService) {}

  @Get()
  query(@CurrentActor() actor: AuthenticatedActor, @Query() dto: EventsQueryDto): Promise<EventsListResponse> {
    return this.service.query(actor, dto);
  }

  @Get('stream')
  stream(
    @CurrentActor() actor: AuthenticatedActor,
    @Query() dto: EventsStreamQueryDto,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    return this.service.openStream(actor, dto, request, reply);
  }
}
