import { Module } from '@nestjs/common';

import { ActivationGraphCache } from './activation-graph-cache';
import { DependenciesController } from './dependencies.controller';
import { DependenciesRepository } from './dependencies.repository';
import { DependenciesService } from './dependencies.service';
import { DependencyFactsService } from './dependency-facts.service';

@Module({
  controllers: [DependenciesController],
  providers: [ActivationGraphCache, DependenciesRepository, DependenciesService, DependencyFactsService],
  exports: [DependenciesService, DependencyFactsService],
})
export class DependenciesModule {}
