import { Module, OnModuleInit } from '@nestjs/common';

import { StageGateRegistry } from '../workflows/stage-gates';
import { DB_CLAIM_PROSE_GATE, DbClaimProseGate } from './db-claim-prose.gate';
import { DbClaimsController } from './db-claims.controller';
import { DbClaimsRepository } from './db-claims.repository';
import { DbClaimsService } from './db-claims.service';

@Module({
  controllers: [DbClaimsController],
  providers: [DbClaimsRepository, DbClaimsService, DbClaimProseGate],
})
export class DbClaimsModule implements OnModuleInit {
  constructor(
    private readonly gates: StageGateRegistry,
    private readonly proseGate: DbClaimProseGate,
  ) {}

  onModuleInit(): void {
    this.gates.register(DB_CLAIM_PROSE_GATE, (ctx) => this.proseGate.check(ctx));
  }
}
