import { Module } from '@nestjs/common';

import { EpicsController } from './epics.controller';
import { EpicsRepository } from './epics.repository';
import { EpicsService } from './epics.service';

@Module({ controllers: [EpicsController], providers: [EpicsRepository, EpicsService], exports: [EpicsService] })
export class EpicsModule {}
