import { Injectable } from '@nestjs/common';

import { MachineAuthorizationRepository, SweepResult } from './machine-authorization.repository';

export type { SweepResult };

@Injectable()
export class MachineAuthorizationSweepService {
  constructor(private readonly repository: MachineAuthorizationRepository) {}

  // Expired codes, rate counters, approval sessions and sign-in states; one replica a round (see sweepRound).
  sweep(): Promise<SweepResult> {
    return this.repository.sweepRound();
  }
}
