import { Module } from '@nestjs/common';

import { DependenciesModule } from '../dependencies/dependencies.module';
import { FrontierController } from './frontier.controller';
import { FrontierObserver } from './read-path/frontier-observer';
import { FrontierRepository } from './read-path/frontier.repository';
import { FrontierGraphCache } from './read-path/frontier-graph-cache';
import { FrontierNotices } from './read-path/frontier-notices';
import { FrontierProjects } from './read-path/frontier-projects';
import { FrontierService } from './read-path/frontier.service';

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
