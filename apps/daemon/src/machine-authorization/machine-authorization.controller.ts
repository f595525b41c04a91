import { Body, Controller, Get, Headers, HttpCode, Param, Post, UseFilters } from '@nestjs/common';

import type {
  MachineAuthorizationApproved,
  MachineAuthorizationDiscovery,
  MachineAuthorizationStarted,
} from '@app/contracts';

import { Public } from '../auth/public.decorator';
import { MachineAuthorizationExceptionFilter } from './machine-authorization.filter';
import { MachineAuthorizationService } from './machine-authorization.service';
import { Identity, RequestIdentity } from './request-identity';
import { Writes } from '../rulebook/writes.decorator';

export const DEVICE_PATHS = {
  authorizations: 'api/machine/authorizations',
  token: 'api/machine/authorizations/token',
  hostedAuthorizations: 'api/orgs/:slug/api/machine/authorizations',
  hostedToken: 'api/orgs/:slug/api/machine/authorizations/token',
} as const;

// The machine side of the device-code flow: public, budgeted per client before the body is read.
@Public()
@UseFilters(MachineAuthorizationExceptionFilter)
@Controller()
export class MachineAuthorizationController {
  constructor(private readonly service: MachineAuthorizationService) {}

  @Get(DEVICE_PATHS.authorizations)
  discovery(): MachineAuthorizationDiscovery {
    return this.service.discovery();
  }

  @Writes()
  @Post(DEVICE_PATHS.authorizations)
  start(
    @Body() body: unknown,
    @Headers('content-type') contentType: string | undefined,
    @Identity() identity: RequestIdentity,
  ): Promise<MachineAuthorizationStarted> {
    return this.service.start({ body, contentType }, identity, null);
  }

  @Writes()
  @Post(DEVICE_PATHS.token)
  @HttpCode(200)
  poll(
    @Body() body: unknown,
    @Headers('content-type') contentType: string | undefined,
    @Identity() identity: RequestIdentity,
  ): Promise<MachineAuthorizationApproved> {
    return this.service.poll({ body, contentType }, identity, null);
  }

  @Get(DEVICE_PATHS.hostedAuthorizations)
  hostedDiscovery(): MachineAuthorizationDiscovery {
    return this.service.discovery();
  }

  @Writes()
  @Post(DEVICE_PATHS.hostedAuthorizations)
  hostedStart(
    @Param('slug') slug: string,
    @Body() body: unknown,
    @Headers('content-type') contentType: string | undefined,
    @Identity() identity: RequestIdentity,
  ): Promise<MachineAuthorizationStarted> {
    return this.service.start({ body, contentType }, identity, slug);
  }

  @Writes()
  @Post(DEVICE_PATHS.hostedToken)
  @HttpCode(200)
  hostedPoll(
    @Param('slug') slug: string,
    @Body() body: unknown,
    @Headers('content-type') contentType: string | undefined,
    @Identity() identity: RequestIdentity,
  ): Promise<MachineAuthorizationApproved> {
    return this.service.poll({ body, contentType }, identity, slug);
  }
}
