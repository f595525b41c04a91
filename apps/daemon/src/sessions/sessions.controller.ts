import { Body, Controller, Get, HttpCode, Param, ParseIntPipe, Post, Query } from '@nestjs/common';

import {
  HeartbeatResponse,
  RegisterSessionResponse,
  ReleaseClaimResponse,
  SessionListResponse,
  SessionResponse,
} from '@app/contracts';

import { AuthenticatedActor, CurrentActor } from '../auth/actor';
import { ListSessionsQueryDto, RegisterSessionDto, ReleaseClaimDto } from './dto/sessions.dto';
import { SessionsService } from './sessions.service';
import { Writes } from '../rulebook/writes.decorator';

@Controller('v1/sessions')
export class SessionsController {
  constructor(private readonly service: SessionsService) {}

  @Writes('scope')
  @Post()
  register(
    @CurrentActor() actor: AuthenticatedActor,
    @Body() dto: RegisterSessionDto,
  ): Promise<RegisterSessionResponse> {
    return this.service.register(actor, dto);
  }

  @Get()
  list(@CurrentActor() actor: AuthenticatedActor, @Query() query: ListSessionsQueryDto): Promise<SessionListResponse> {
    return this.service.list(actor, query);
  }

  @Get(':id')
  get(@CurrentActor() actor: AuthenticatedActor, @Param('id', ParseIntPipe) id: number): Promise<SessionResponse> {
    return this.service.get(actor, id);
  }

  @Writes('role')
  @Post(':id/heartbeat')
  @HttpCode(200)
  heartbeat(
    @CurrentActor() actor: AuthenticatedActor,
    @Param('id', ParseIntPipe) id: number,
  ): Promise<HeartbeatResponse> {
    return this.service.heartbeat(actor, id);
  }

  @Writes('role', 'claim')
  @Post(':id/release')
  @HttpCode(200)
  release(
    @CurrentActor() actor: AuthenticatedActor,
    @Param('id', ParseIntPipe) id: number,
    @Body() dto: ReleaseClaimDto,
  ): Promise<ReleaseClaimResponse> {
    return this.service.release(actor, id, dto.item_id);
  }

  @Writes('role')
  @Post(':id/end')
  @HttpCode(200)
  end(@CurrentActor() actor: AuthenticatedActor, @Param('id', ParseIntPipe) id: number): Promise<SessionResponse> {
    return this.service.end(actor, id);
  }
}
