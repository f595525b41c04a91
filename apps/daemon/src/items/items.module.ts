import { Module } from '@nestjs/common';

import { CommentsModule } from '../comments/comments.module';
import { ItemsController } from './items.controller';
import { ItemsRepository } from './items.repository';
import { ItemsService } from './items.service';

@Module({
  imports: [CommentsModule],
  controllers: [ItemsController],
  providers: [ItemsRepository, ItemsService],
  exports: [ItemsService],
})
export class ItemsModule {}
