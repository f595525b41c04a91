import { Global, Module } from '@nestjs/common';

import { RulebookRepository } from './rulebook.repository';
import { RulebookService } from './rulebook.service';
import { WriteContextInterceptor } from './write-context.interceptor';

@Global()
@Module({
  providers: [RulebookRepository, RulebookService, WriteContextInterceptor],
  exports: [RulebookService, WriteContextInterceptor],
})
export class RulebookModule {}
