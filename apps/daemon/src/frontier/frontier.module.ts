import { Module } from '@nestjs/common';

import { DependenciesModule } from '../dependencies/dependencies.module';
import { FrontierController } from './frontier.controller';
import { FrontierObserver } from './frontier-observer';
import { FrontierRepository } from './frontier.repository';
import { FrontierService } from './frontier.service';

@Module({
  imports: [DependenciesModule],
  controllers: [FrontierController],
  providers: [FrontierRepository, FrontierService, FrontierObserver],
  exports: [FrontierService, FrontierObserver],
})
export class FrontierModule {}
