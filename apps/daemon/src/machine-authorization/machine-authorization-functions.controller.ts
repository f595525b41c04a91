import { Body, Controller, Get, Header, Headers, HttpCode, Param, Post, UseFilters } from '@nestjs/common';

import type {
  MachineAuthorizationRecord,
  MachineAuthorizationRequestDenyResponse,
  MachineAuthorizationRequestList,
  MachineAuthorizationResolveResponse,
} from '@app/contracts';

import { AuthenticatedActor, CurrentActor } from '../auth/actor';
import { MachineAuthorizationExceptionFilter } from './machine-authorization.filter';
import { MachineAuthorizationService } from './machine-authorization.service';
import { Identity, RequestIdentity } from './request-identity';
import { Writes } from '../rulebook/writes.decorator';

export const FUNCTION_PATHS = {
  requests: 'v1/machine-authorizations',
  requestResolve: 'v1/machine-authorizations/requests/:request_id/resolve',
  requestDeny: 'v1/machine-authorizations/requests/:request_id/deny',
  hostedRequestDeny: 'api/orgs/:slug/v1/machine-authorizations/requests/:request_id/deny',
  hostedRequests: 'api/orgs/:slug/v1/machine-authorizations',
  hostedRequestResolve: 'api/orgs/:slug/v1/machine-authorizations/requests/:request_id/resolve',
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

  @Get(FUNCTION_PATHS.requests)
  @Header('cache-control', 'no-store')
  requests(@CurrentActor() actor: AuthenticatedActor): Promise<MachineAuthorizationRequestList> {
    return this.service.pendingRequests(actor, null);
  }

  @Get(FUNCTION_PATHS.hostedRequests)
  @Header('cache-control', 'no-store')
  hostedRequests(
    @Param('slug') slug: string,
    @CurrentActor() actor: AuthenticatedActor,
  ): Promise<MachineAuthorizationRequestList> {
    return this.service.pendingRequests(actor, slug);
  }

  @Writes('scope', 'role')
  @Post(FUNCTION_PATHS.requestResolve)
  @HttpCode(200)
  resolveRequest(
    @Param('request_id') requestId: string,
    @Body() body: unknown,
    @Headers('content-type') contentType: string | undefined,
    @CurrentActor() actor: AuthenticatedActor,
    @Identity() identity: RequestIdentity,
  ): Promise<MachineAuthorizationResolveResponse> {
    return this.service.resolveRequest(requestId, { body, contentType }, actor, identity, null);
  }

  @Writes('scope', 'role')
  @Post(FUNCTION_PATHS.hostedRequestResolve)
  @HttpCode(200)
  hostedResolveRequest(
    @Param('slug') slug: string,
    @Param('request_id') requestId: string,
    @Body() body: unknown,
    @Headers('content-type') contentType: string | undefined,
    @CurrentActor() actor: AuthenticatedActor,
    @Identity() identity: RequestIdentity,
  ): Promise<MachineAuthorizationResolveResponse> {
    return this.service.resolveRequest(requestId, { body, contentType }, actor, identity, slug);
  }

  // Deny a listed request without its code (approval still needs it): no body is read.
  @Writes('scope', 'role')
  @Post(FUNCTION_PATHS.requestDeny)
  @HttpCode(200)
  denyRequest(
    @Param('request_id') requestId: string,
    @CurrentActor() actor: AuthenticatedActor,
  ): Promise<MachineAuthorizationRequestDenyResponse> {
    return this.service.denyRequest(requestId, actor, null);
  }

  @Writes('scope', 'role')
  @Post(FUNCTION_PATHS.hostedRequestDeny)
  @HttpCode(200)
  hostedDenyRequest(
    @Param('slug') slug: string,
    @Param('request_id') requestId: string,
    @CurrentActor() actor: AuthenticatedActor,
  ): Promise<MachineAuthorizationRequestDenyResponse> {
    return this.service.denyRequest(requestId, actor, slug);
  }

  @Writes('scope', 'role')
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

  @Writes('scope', 'role')
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
