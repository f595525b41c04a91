import { Module } from '@nestjs/common';

import { DependenciesModule } from '../dependencies/dependencies.module';
import { FrontierController } from './frontier.controller';
import { FrontierObserver } from './frontier-observer';
import { FrontierRepository } from './frontier.repository';
import { FrontierGraphCache } from './frontier-graph-cache';
import { FrontierNotices } from './frontier-notices';
import { FrontierProjects } from './frontier-projects';
import { FrontierService } from './frontier.service';

@Module({
  imports: [DependenciesModule],
  controllers: [FrontierController],
  providers: [
    FrontierRepository,
    FrontierGraphCache,
    FrontierProjects,
    FrontierService,
    FrontierObserver,
    FrontierNotices,
  ],
  exports: [FrontierService, FrontierObserver],
})
export class FrontierModule {}
