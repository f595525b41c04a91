import { Injectable } from '@nestjs/common';
import type { DataSource } from 'typeorm';

import { InjectDataSource } from '../common/inject-data-source';
import { SWEEP_LOCK_KEY } from './limits';

export interface SweepResult {
  ran: boolean;
  authorizations: number;
  rateCounters: number;
  approvalSessions: number;
  signInStates: number;
}

@Injectable()
export class MachineAuthorizationSweepRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  // One replica sweeps: the others fail to take the transaction-scoped advisory lock and skip this round.
  sweepRound(): Promise<SweepResult> {
    return this.dataSource.transaction(async (manager) => {
      const [lock]: { locked: boolean }[] = await manager.query('SELECT pg_try_advisory_xact_lock($1) AS locked', [
        SWEEP_LOCK_KEY,
      ]);
      if (!lock.locked) return { ran: false, authorizations: 0, rateCounters: 0, approvalSessions: 0, signInStates: 0 };
      const count = async (sql: string) => ((await manager.query(sql)) as [unknown[], number])[1];
      return {
        ran: true,
        authorizations: await count('DELETE FROM machine_authorizations WHERE expires_at < now()'),
        rateCounters: await count('DELETE FROM rate_counters WHERE expires_at < now()'),
        approvalSessions: await count('DELETE FROM approval_sessions WHERE expires_at < now()'),
        signInStates: await count('DELETE FROM oidc_sign_in_states WHERE expires_at < now()'),
      };
    });
  }
}
