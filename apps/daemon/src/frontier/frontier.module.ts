import { Module } from '@nestjs/common';

import { FrontierController } from './frontier.controller';
import { FrontierRepository } from './frontier.repository';
import { FrontierService } from './frontier.service';

@Module({
  controllers: [FrontierController],
  providers: [FrontierRepository, FrontierService],
  exports: [FrontierService],
})
export class FrontierModule {}
