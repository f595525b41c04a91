import { Injectable } from '@nestjs/common';

import { MachineAuthorizationSweepRepository, SweepResult } from './machine-authorization-sweep.repository';

export type { SweepResult };

@Injectable()
export class MachineAuthorizationSweepService {
  constructor(private readonly repository: MachineAuthorizationSweepRepository) {}

  // Expired codes, rate counters, approval sessions and sign-in states; one replica a round (see sweepRound).
  sweep(): Promise<SweepResult> {
    return this.repository.sweepRound();
  }
}
