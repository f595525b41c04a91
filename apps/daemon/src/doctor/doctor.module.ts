import { Module } from '@nestjs/common';

import { MachineAuthorizationModule } from '../machine-authorization/machine-authorization.module';
import { DoctorController } from './doctor.controller';
import { DoctorRepository } from './doctor.repository';
import { DoctorService } from './doctor.service';
import { ReplicasService } from './replicas.service';

@Module({
  imports: [MachineAuthorizationModule],
  controllers: [DoctorController],
  providers: [DoctorRepository, DoctorService, ReplicasService],
  exports: [ReplicasService],
})
export class DoctorModule {}
