import { Body, Controller, Get, HttpCode, Param, ParseIntPipe, Post, Query } from '@nestjs/common';

import type { OuroborosEntryWire, OuroborosListResponse } from '@app/contracts';

import { AuthenticatedActor, CurrentActor } from '../auth/actor';
import {
  AddDispositionDto,
  AddOuroborosDto,
  AddVerdictDto,
  OuroborosQueryDto,
  RecordsQueryDto,
} from './dto/records.dto';
import { RecordsService } from './records.service';
import { Writes } from '../rulebook/writes.decorator';

@Controller('v1/records')
export class RecordsController {
  constructor(private readonly service: RecordsService) {}

  @Writes('scope')
  @Post('shepherd-verdicts')
  addVerdict(@CurrentActor() actor: AuthenticatedActor, @Body() dto: AddVerdictDto) {
    return this.service.addVerdict(actor, dto);
  }

  @Get('shepherd-verdicts')
  verdicts(@CurrentActor() actor: AuthenticatedActor, @Query() query: RecordsQueryDto) {
    return this.service.verdicts(actor, query.item);
  }

  @Writes('scope')
  @Post('caveat-dispositions')
  addDisposition(@CurrentActor() actor: AuthenticatedActor, @Body() dto: AddDispositionDto) {
    return this.service.addDisposition(actor, dto);
  }

  @Get('caveat-dispositions')
  dispositions(@CurrentActor() actor: AuthenticatedActor, @Query() query: RecordsQueryDto) {
    return this.service.dispositions(actor, query.item);
  }

  @Writes('scope', 'role')
  @Post('ouroboros')
  addOuroboros(@CurrentActor() actor: AuthenticatedActor, @Body() dto: AddOuroborosDto): Promise<OuroborosEntryWire> {
    return this.service.addOuroboros(actor, dto);
  }

  @Get('ouroboros')
  ouroboros(
    @CurrentActor() actor: AuthenticatedActor,
    @Query() query: OuroborosQueryDto,
  ): Promise<OuroborosListResponse> {
    return this.service.ouroboros(actor, query);
  }

  @Writes('scope', 'role')
  @Post('ouroboros/:id/review')
  @HttpCode(200)
  review(
    @CurrentActor() actor: AuthenticatedActor,
    @Param('id', ParseIntPipe) id: number,
  ): Promise<OuroborosEntryWire> {
    return this.service.markOuroboros(actor, id, 'reviewed_at');
  }

  @Writes('scope', 'role')
  @Post('ouroboros/:id/archive')
  @HttpCode(200)
  archive(
    @CurrentActor() actor: AuthenticatedActor,
    @Param('id', ParseIntPipe) id: number,
  ): Promise<OuroborosEntryWire> {
    return this.service.markOuroboros(actor, id, 'archived_at');
  }
}
