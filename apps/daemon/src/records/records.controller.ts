import { Body, Controller, Get, HttpCode, Param, ParseIntPipe, Post, Query } from '@nestjs/common';

import type {
  DispositionListResponse,
  DispositionWire,
  OuroborosEntryWire,
  OuroborosListResponse,
  VerdictListResponse,
  VerdictWire,
} from '@app/contracts';

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
  addVerdict(@CurrentActor() actor: AuthenticatedActor, @Body() dto: AddVerdictDto): Promise<VerdictWire> {
    return this.service.addVerdict(actor, dto);
  }

  @Get('shepherd-verdicts')
  verdicts(@CurrentActor() actor: AuthenticatedActor, @Query() query: RecordsQueryDto): Promise<VerdictListResponse> {
    return this.service.verdicts(actor, query.item);
  }

  @Writes('scope')
  @Post('caveat-dispositions')
  addDisposition(@CurrentActor() actor: AuthenticatedActor, @Body() dto: AddDispositionDto): Promise<DispositionWire> {
    return this.service.addDisposition(actor, dto);
  }

  @Get('caveat-dispositions')
  dispositions(
    @CurrentActor() actor: AuthenticatedActor,
    @Query() query: RecordsQueryDto,
  ): Promise<DispositionListResponse> {
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
