import { Body, Controller, Get, HttpCode, Param, ParseIntPipe, Post, Query } from '@nestjs/common';

import { AuthenticatedActor, CurrentActor } from '../auth/actor';
import {
  AddDispositionDto,
  AddOuroborosDto,
  AddVerdictDto,
  OuroborosQueryDto,
  RecordsQueryDto,
} from './dto/records.dto';
import { RecordsService } from './records.service';

@Controller('v1/records')
export class RecordsController {
  constructor(private readonly service: RecordsService) {}

  @Post('shepherd-verdicts')
  addVerdict(@CurrentActor() actor: AuthenticatedActor, @Body() dto: AddVerdictDto) {
    return this.service.addVerdict(actor, dto);
  }

  @Get('shepherd-verdicts')
  verdicts(@CurrentActor() actor: AuthenticatedActor, @Query() query: RecordsQueryDto) {
    return this.service.verdicts(actor, query.item);
  }

  @Post('caveat-dispositions')
  addDisposition(@CurrentActor() actor: AuthenticatedActor, @Body() dto: AddDispositionDto) {
    return this.service.addDisposition(actor, dto);
  }

  @Get('caveat-dispositions')
  dispositions(@CurrentActor() actor: AuthenticatedActor, @Query() query: RecordsQueryDto) {
    return this.service.dispositions(actor, query.item);
  }

  @Post('ouroboros')
  addOuroboros(@Body() dto: AddOuroborosDto) {
    return this.service.addOuroboros(dto);
  }

  @Get('ouroboros')
  ouroboros(@Query() query: OuroborosQueryDto) {
    return this.service.ouroboros(query);
  }

  @Post('ouroboros/:id/review')
  @HttpCode(200)
  review(@Param('id', ParseIntPipe) id: number) {
    return this.service.markOuroboros(id, 'reviewed_at');
  }

  @Post('ouroboros/:id/archive')
  @HttpCode(200)
  archive(@Param('id', ParseIntPipe) id: number) {
    return this.service.markOuroboros(id, 'archived_at');
  }
}
