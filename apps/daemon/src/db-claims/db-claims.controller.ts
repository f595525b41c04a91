import { Controller, createParamDecorator, ExecutionContext, Get, HttpCode, Param, Post, Query } from '@nestjs/common';

import { DbClaimResponse } from '@app/contracts';

import { AuthenticatedActor, CurrentActor } from '../auth/actor';
import { DbClaimsService } from './db-claims.service';
import { DbClaimAmendQueryDto } from './dto/db-claims.dto';
import { Writes } from '../rulebook/writes.decorator';

// The body exactly as parsed: the global ValidationPipe would strip or refuse unknown keys under its own code before
// the core rules (which name db_claim_unknown_key and db_claim_reserved_key) could run.
export const RawBody = createParamDecorator(
  (_data: unknown, ctx: ExecutionContext): unknown => ctx.switchToHttp().getRequest<{ body?: unknown }>().body,
);

@Controller('v1/items/:ref/db-claim')
export class DbClaimsController {
  constructor(private readonly service: DbClaimsService) {}

  @Get()
  get(@CurrentActor() actor: AuthenticatedActor, @Param('ref') ref: string): Promise<DbClaimResponse> {
    return this.service.get(actor, ref);
  }

  @Writes('scope', 'claim')
  @Post()
  @HttpCode(200)
  amend(
    @CurrentActor() actor: AuthenticatedActor,
    @Param('ref') ref: string,
    @RawBody() body: unknown,
    @Query() query: DbClaimAmendQueryDto,
  ): Promise<DbClaimResponse> {
    return this.service.amend(actor, ref, body, query);
  }

  @Writes('scope', 'claim')
  @Post('negative')
  @HttpCode(200)
  amendNegative(
    @CurrentActor() actor: AuthenticatedActor,
    @Param('ref') ref: string,
    @RawBody() body: unknown,
    @Query() query: DbClaimAmendQueryDto,
  ): Promise<DbClaimResponse> {
    return this.service.amendNegative(actor, ref, body, query);
  }
}
