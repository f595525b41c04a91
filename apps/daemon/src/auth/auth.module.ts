import { Global, Module } from '@nestjs/common';

import { AccessService } from './access.service';
import { AuthRepository } from './auth.repository';
import { BearerAuthGuard } from './bearer-auth.guard';
import { BootstrapService } from './bootstrap.service';
import { RequestScopeService } from './request-scope.service';
import { WhoAmIController } from './whoami.controller';

@Global()
@Module({
  controllers: [WhoAmIController],
  providers: [AuthRepository, AccessService, BootstrapService, RequestScopeService, BearerAuthGuard],
  exports: [AccessService, BearerAuthGuard, BootstrapService, RequestScopeService],
})
export class AuthModule {}
