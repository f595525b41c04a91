import { Controller, Get, Param, ParseIntPipe, Query } from '@nestjs/common';

import { HistoryResponse, SessionNoticesResponse } from '@app/contracts';

import { AuthenticatedActor, CurrentActor } from '../auth/actor';
import { HistoryPageQueryDto, HistoryQueryDto, NoticesQueryDto } from './dto/history.dto';
import { HistoryService } from './history.service';

@Controller('v1')
export class HistoryController {
  constructor(private readonly service: HistoryService) {}

  @Get('items/:ref/history')
  ofItem(
    @CurrentActor() actor: AuthenticatedActor,
    @Param('ref') ref: string,
    @Query() query: HistoryPageQueryDto,
  ): Promise<HistoryResponse> {
    return this.service.ofItem(actor, ref, query);
  }

  @Get('history')
  list(@CurrentActor() actor: AuthenticatedActor, @Query() query: HistoryQueryDto): Promise<HistoryResponse> {
    return this.service.list(actor, query);
  }

  @Get('sessions/:id/notices')
  notices(
    @CurrentActor() actor: AuthenticatedActor,
    @Param('id', ParseIntPipe) id: number,
    @Query() query: NoticesQueryDto,
  ): Promise<SessionNoticesResponse> {
    return this.service.notices(actor, id, query);
  }
}
