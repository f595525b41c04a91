import { Module } from '@nestjs/common';

import { DependenciesModule } from '../dependencies/dependencies.module';
import { FrontierController } from './frontier.controller';
import { FrontierRepository } from './frontier.repository';
import { FrontierService } from './frontier.service';

@Module({
  imports: [DependenciesModule],
  controllers: [FrontierController],
  providers: [FrontierRepository, FrontierService],
  exports: [FrontierService],
})
export class FrontierModule {}
