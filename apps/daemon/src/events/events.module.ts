import { Global, Module } from '@nestjs/common';
import type { DataSource } from 'typeorm';

import { DATA_SOURCE } from '../common/inject-data-source';
import { EventsController } from './events.controller';
import { EventsStreamService, LISTEN_CLIENT_FACTORY } from './events-stream.service';
import { EventsRepository } from './events.repository';
import { EventsService } from './events.service';
import { NoticeFeedRepository } from './notice-feed.repository';

@Global()
@Module({
  controllers: [EventsController],
  providers: [
    EventsRepository,
    EventsService,
    EventsStreamService,
    NoticeFeedRepository,
    {
      provide: LISTEN_CLIENT_FACTORY,
      inject: [DATA_SOURCE],
      useFactory: (dataSource: DataSource) => EventsStreamService.clientFactory(dataSource),
    },
  ],
  exports: [EventsService, EventsStreamService],
})
export class EventsModule {}
