import { Controller, Get } from '@nestjs/common';

import type { DoctorReport } from '@app/contracts';

import { AuthenticatedActor, CurrentActor } from '../auth/actor';
import { DoctorService } from './doctor.service';

@Controller('v1/doctor')
export class DoctorController {
  constructor(private readonly service: DoctorService) {}

  @Get()
  report(@CurrentActor() actor: AuthenticatedActor): Promise<DoctorReport> {
    return this.service.report(actor);
  }
}
