import { Global, MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';

import { RulebookRepository } from './rulebook.repository';
import { RulebookService } from './rulebook.service';
import { WriteContextGuard, WriteScopeMiddleware } from './write-context.guard';

@Global()
@Module({
  providers: [RulebookRepository, RulebookService, WriteContextGuard],
  exports: [RulebookService, WriteContextGuard],
})
export class RulebookModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(WriteScopeMiddleware).forRoutes({ path: '*', method: RequestMethod.ALL });
  }
}
