import { Controller, Get, Header, Param, Query } from '@nestjs/common';

import { AuthenticatedActor, CurrentActor } from '../auth/actor';
import { ExplainResponse, FrontierListQueryDto, FrontierListResponse, FrontierQueryDto } from './dto/frontier.dto';
import { FrontierService } from './frontier.service';

@Controller('v1')
export class FrontierController {
  constructor(private readonly service: FrontierService) {}

  // FrontierResult, serialized once by the service (large backlogs).
  @Get('charge/frontier')
  @Header('content-type', 'application/json; charset=utf-8')
  frontier(@CurrentActor() actor: AuthenticatedActor, @Query() dto: FrontierQueryDto): Promise<string> {
    return this.service.frontierJson(actor, dto);
  }

  @Get('frontier/list')
  list(@CurrentActor() actor: AuthenticatedActor, @Query() dto: FrontierListQueryDto): Promise<FrontierListResponse> {
    return this.service.list(actor, dto);
  }

  @Get('frontier/explain/:ref')
  explain(
    @CurrentActor() actor: AuthenticatedActor,
    @Param('ref') ref: string,
    @Query() dto: FrontierQueryDto,
  ): Promise<ExplainResponse> {
    return this.service.explain(actor, ref, dto.wip_cap);
  }
}
