import { Injectable } from '@nestjs/common';

import { MachineAuthorizationSweepRepository, SweepResult } from './machine-authorization-sweep.repository';

export type { SweepResult };

@Injectable()
export class MachineAuthorizationSweepService {
  constructor(private readonly repository: MachineAuthorizationSweepRepository) {}

  sweep(): Promise<SweepResult> {
    return this.repository.sweepRound();
  }
}
