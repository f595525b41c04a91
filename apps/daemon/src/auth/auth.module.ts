import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';

import { AccessService } from './access.service';
import { AuthRepository } from './auth.repository';
import { BearerAuthGuard } from './bearer-auth.guard';
import { BootstrapService } from './bootstrap.service';
import { RequestScopeService } from './request-scope.service';
import { WhoAmIController } from './whoami.controller';

@Global()
@Module({
  controllers: [WhoAmIController],
  providers: [
    AuthRepository,
    AccessService,
    BootstrapService,
    RequestScopeService,
    { provide: APP_GUARD, useClass: BearerAuthGuard },
  ],
  exports: [AccessService, BootstrapService, RequestScopeService],
})
export class AuthModule {}
