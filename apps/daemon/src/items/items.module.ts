import { Module } from '@nestjs/common';

import { ItemsController } from './items.controller';
import { ItemsRepository } from './items.repository';
import { ItemsService } from './items.service';

@Module({
  controllers: [ItemsController],
  providers: [ItemsRepository, ItemsService],
  exports: [ItemsService],
})
export class ItemsModule {}
