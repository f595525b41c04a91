import { Global, Module } from '@nestjs/common';

import { EventsRepository } from './events.repository';
import { EventsService } from './events.service';

@Global()
@Module({ providers: [EventsRepository, EventsService], exports: [EventsService] })
export class EventsModule {}
