import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';

import { CandidatePlanWire, GateEvaluationWire } from '@app/contracts/backlog';

import { AuthenticatedActor, CurrentActor } from '../auth/actor';
import { EvaluateBatchDto, EvaluateGateQueryDto, PlanCandidatesDto } from './dto/gates.dto';
import { GatesService } from './gates.service';
import { Writes } from '../rulebook/writes.decorator';

@Controller('v1/gates')
export class GatesController {
  constructor(private readonly service: GatesService) {}

  @Get('evaluate')
  evaluate(
    @CurrentActor() actor: AuthenticatedActor,
    @Query() query: EvaluateGateQueryDto,
  ): Promise<GateEvaluationWire> {
    return this.service.evaluate(actor, query.item, query.gate_point);
  }

  @Writes('scope')
  @Post('evaluate-batch')
  @HttpCode(200)
  evaluateBatch(@CurrentActor() actor: AuthenticatedActor, @Body() dto: EvaluateBatchDto) {
    return this.service.evaluateBatch(actor, dto);
  }

  @Writes('scope')
  @Post('plan')
  @HttpCode(200)
  plan(@CurrentActor() actor: AuthenticatedActor, @Body() dto: PlanCandidatesDto): Promise<CandidatePlanWire> {
    return this.service.plan(actor, dto);
  }
}
