import { Module } from '@nestjs/common';

import { DoctorModule } from '../doctor/doctor.module';
import { FrontierModule } from '../frontier/frontier.module';
import { HistoryModule } from '../history/history.module';
import { MachineAuthorizationModule } from '../machine-authorization/machine-authorization.module';
import { SweepObserver } from './sweep-observer';
import { SweepsService } from './sweeps.service';

@Module({
  imports: [MachineAuthorizationModule, FrontierModule, DoctorModule, HistoryModule],
  providers: [SweepsService, SweepObserver],
  exports: [SweepObserver],
})
export class SweepsModule {}
