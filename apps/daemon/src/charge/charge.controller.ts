import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';

import { ChargeDecisionResponse, ClaimsResponse, DispatchResponse, ScheduleResponse } from '@app/contracts';

import { AuthenticatedActor, CurrentActor } from '../auth/actor';
import { ChargeService } from './charge.service';
import { ChargeDecisionDto, ClaimsQueryDto, DispatchDto, ScheduleQueryDto } from './dto/charge.dto';
import { Writes } from '../rulebook/writes.decorator';

@Controller('v1/charge')
export class ChargeController {
  constructor(private readonly service: ChargeService) {}

  @Get('schedule')
  schedule(@CurrentActor() actor: AuthenticatedActor, @Query() dto: ScheduleQueryDto): Promise<ScheduleResponse> {
    return this.service.schedule(actor, dto);
  }

  @Get('claims')
  claims(@CurrentActor() actor: AuthenticatedActor, @Query() dto: ClaimsQueryDto): Promise<ClaimsResponse> {
    return this.service.claims(actor, dto);
  }

  @Writes('scope', 'role', 'claim', 'wip_cap', 'approval_stages')
  @Post('dispatch')
  @HttpCode(200)
  dispatch(@CurrentActor() actor: AuthenticatedActor, @Body() dto: DispatchDto): Promise<DispatchResponse> {
    return this.service.dispatch(actor, dto);
  }

  @Writes('scope', 'role')
  @Post('decisions')
  @HttpCode(201)
  decision(@CurrentActor() actor: AuthenticatedActor, @Body() dto: ChargeDecisionDto): Promise<ChargeDecisionResponse> {
    return this.service.decision(actor, dto);
  }
}
