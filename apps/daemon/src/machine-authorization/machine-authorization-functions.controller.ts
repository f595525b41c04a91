import { Body, Controller, Get, Headers, HttpCode, Param, Post, UseFilters } from '@nestjs/common';

import type { MachineAuthorizationRecord, MachineAuthorizationResolveResponse } from '@app/contracts';

import { AuthenticatedActor, CurrentActor } from '../auth/actor';
import { MachineAuthorizationExceptionFilter } from './machine-authorization.filter';
import { MachineAuthorizationService } from './machine-authorization.service';
import { Identity, RequestIdentity } from './request-identity';

export const FUNCTION_PATHS = {
  resolve: 'v1/machine-authorizations/resolve',
  record: 'v1/machine-authorizations/:code',
  hostedResolve: 'api/orgs/:slug/v1/machine-authorizations/resolve',
  hostedRecord: 'api/orgs/:slug/v1/machine-authorizations/:code',
} as const;

// machine_authorization.get and .resolve: bearer-authenticated; the decision is always the caller's own.
@UseFilters(MachineAuthorizationExceptionFilter)
@Controller()
export class MachineAuthorizationFunctionsController {
  constructor(private readonly service: MachineAuthorizationService) {}

  @Post(FUNCTION_PATHS.resolve)
  @HttpCode(200)
  resolve(
    @Body() body: unknown,
    @Headers('content-type') contentType: string | undefined,
    @CurrentActor() actor: AuthenticatedActor,
    @Identity() identity: RequestIdentity,
  ): Promise<MachineAuthorizationResolveResponse> {
    return this.service.resolve({ body, contentType }, actor, identity, null);
  }

  @Get(FUNCTION_PATHS.record)
  get(
    @Param('code') code: string,
    @CurrentActor() actor: AuthenticatedActor,
    @Identity() identity: RequestIdentity,
  ): Promise<MachineAuthorizationRecord> {
    return this.service.get(code, actor, identity, null);
  }

  @Post(FUNCTION_PATHS.hostedResolve)
  @HttpCode(200)
  hostedResolve(
    @Param('slug') slug: string,
    @Body() body: unknown,
    @Headers('content-type') contentType: string | undefined,
    @CurrentActor() actor: AuthenticatedActor,
    @Identity() identity: RequestIdentity,
  ): Promise<MachineAuthorizationResolveResponse> {
    return this.service.resolve({ body, contentType }, actor, identity, slug);
  }

  @Get(FUNCTION_PATHS.hostedRecord)
  hostedGet(
    @Param('slug') slug: string,
    @Param('code') code: string,
    @CurrentActor() actor: AuthenticatedActor,
    @Identity() identity: RequestIdentity,
  ): Promise<MachineAuthorizationRecord> {
    return this.service.get(code, actor, identity, slug);
  }
}
