import { MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';

import { BudgetPool } from './budget-pool';
import { HostedForwardController } from './hosted-forward.controller';
import { DEVICE_PATHS, MachineAuthorizationController } from './machine-authorization.controller';
import { FUNCTION_PATHS, MachineAuthorizationFunctionsController } from './machine-authorization-functions.controller';
import { MachineAuthorizationRepository } from './machine-authorization.repository';
import { MachineAuthorizationSweepRepository } from './machine-authorization-sweep.repository';
import { MachineAuthorizationSweepService } from './machine-authorization-sweep.service';
import { MachineAuthorizationService } from './machine-authorization.service';
import { IdentityMiddleware, PollBudgetMiddleware, StartBudgetMiddleware } from './rate-limit.middleware';
import { RateLimitRepository } from './rate-limit.repository';
import { RateLimitService } from './rate-limit.service';
import { RequestIdentityService } from './request-identity';

@Module({
  controllers: [MachineAuthorizationController, MachineAuthorizationFunctionsController, HostedForwardController],
  providers: [
    BudgetPool,
    MachineAuthorizationService,
    MachineAuthorizationRepository,
    MachineAuthorizationSweepRepository,
    MachineAuthorizationSweepService,
    RateLimitRepository,
    RateLimitService,
    RequestIdentityService,
  ],
  exports: [
    BudgetPool,
    MachineAuthorizationService,
    MachineAuthorizationSweepService,
    RateLimitService,
    RequestIdentityService,
  ],
})
export class MachineAuthorizationModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(IdentityMiddleware).forRoutes(
      ...[...Object.values(DEVICE_PATHS), ...Object.values(FUNCTION_PATHS)].map((path) => ({
        path,
        method: RequestMethod.ALL,
      })),
    );
    consumer
      .apply(StartBudgetMiddleware)
      .forRoutes(
        { path: DEVICE_PATHS.authorizations, method: RequestMethod.POST },
        { path: DEVICE_PATHS.hostedAuthorizations, method: RequestMethod.POST },
      );
    consumer
      .apply(PollBudgetMiddleware)
      .forRoutes(
        { path: DEVICE_PATHS.token, method: RequestMethod.POST },
        { path: DEVICE_PATHS.hostedToken, method: RequestMethod.POST },
      );
  }
}
