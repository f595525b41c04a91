import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Cron } from '@nestjs/schedule';

import { EventsService } from '../events/events.service';
import { FrontierService } from '../frontier/frontier.service';
import { MachineAuthorizationSweepService } from '../machine-authorization/machine-authorization-sweep.service';

export const MACHINE_AUTHORIZATION_SWEEP_CRON = '*/5 * * * *';
export const EVENT_RETENTION_SWEEP_CRON = '17 * * * *';
export const TOMBSTONE_SWEEP_CRON = '*/10 * * * *';

// Every @Cron of the daemon lives here: a guard against overlapping runs, then one service call.
@Injectable()
export class SweepsService implements OnApplicationBootstrap {
  private readonly logger = new Logger(SweepsService.name);
  private machineAuthorizationSweepRunning = false;

  constructor(
    private readonly machineAuthorizations: MachineAuthorizationSweepService,
    private readonly events: EventsService,
    private readonly frontier: FrontierService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.sweepMachineAuthorizations();
  }

  @Cron(MACHINE_AUTHORIZATION_SWEEP_CRON, { name: 'machine-authorization-sweep' })
  async sweepMachineAuthorizations(): Promise<void> {
    if (this.machineAuthorizationSweepRunning) return;
    this.machineAuthorizationSweepRunning = true;
    try {
      const result = await this.machineAuthorizations.sweep();
      if (result.ran) this.logger.debug(`machine-authorization sweep: ${JSON.stringify(result)}`);
    } catch (err) {
      this.logger.warn(`machine-authorization sweep failed: ${(err as Error).message}`);
    } finally {
      this.machineAuthorizationSweepRunning = false;
    }
  }

  // Events older than SVC_EVENT_RETENTION_DAYS; one replica sweeps (advisory lock), the others skip.
  @Cron(EVENT_RETENTION_SWEEP_CRON, { name: 'event-retention-sweep' })
  async sweepEvents(): Promise<void> {
    try {
      const deleted = await this.events.purgeExpired();
      if (deleted) this.logger.debug(`event retention sweep: deleted ${deleted}`);
    } catch (err) {
      this.logger.warn(`event retention sweep failed: ${(err as Error).message}`);
    }
  }

  // The frontier's change tombstones older than its retention (every replica may run it: one statement, idempotent).
  @Cron(TOMBSTONE_SWEEP_CRON, { name: 'tombstone-sweep' })
  async sweepTombstones(): Promise<void> {
    try {
      const deleted = await this.frontier.pruneTombstones();
      if (deleted) this.logger.debug(`tombstone sweep: deleted ${deleted}`);
    } catch (err) {
      this.logger.warn(`tombstone sweep failed: ${(err as Error).message}`);
    }
  }
}
