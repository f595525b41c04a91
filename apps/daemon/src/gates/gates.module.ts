import { Module } from '@nestjs/common';

import { DependenciesModule } from '../dependencies/dependencies.module';
import { GatesController } from './gates.controller';
import { GatesRepository } from './gates.repository';
import { GatesService } from './gates.service';

@Module({
  imports: [DependenciesModule],
  controllers: [GatesController],
  providers: [GatesService, GatesRepository],
  exports: [GatesService],
})
export class GatesModule {}
