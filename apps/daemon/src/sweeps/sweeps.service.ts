import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Cron } from '@nestjs/schedule';

import { runAsDaemon } from '../database/write-context';
import { EventsService } from '../events/events.service';
import { HistoryService } from '../history/history.service';
import { FrontierService } from '../frontier/read-path/frontier.service';
import { MachineAuthorizationSweepService } from '../machine-authorization/machine-authorization-sweep.service';
import { ReplicasService } from '../doctor/replicas.service';
import { SweepObserver, SweepOutcome } from './sweep-observer';

export const MACHINE_AUTHORIZATION_SWEEP_CRON = '*/5 * * * *';
export const EVENT_RETENTION_SWEEP_CRON = '17 * * * *';
export const TOMBSTONE_SWEEP_CRON = '*/10 * * * *';
export const REPLICA_HEARTBEAT_CRON = '* * * * *';
export const HISTORY_RETENTION_SWEEP_CRON = '43 * * * *';

// Every @Cron of the daemon lives here: a guard against overlapping runs, then one service call.
@Injectable()
export class SweepsService implements OnApplicationBootstrap {
  private readonly logger = new Logger(SweepsService.name);
  private machineAuthorizationSweepRunning = false;

  constructor(
    private readonly machineAuthorizations: MachineAuthorizationSweepService,
    private readonly events: EventsService,
    private readonly frontier: FrontierService,
    // defaulted for unit tests that build the service by hand
    private readonly observer: SweepObserver = new SweepObserver(),
    private readonly replicas?: ReplicasService,
    private readonly history?: HistoryService,
  ) {}

  private async timed(sweep: string, run: () => Promise<SweepOutcome>): Promise<void> {
    const started = process.hrtime.bigint();
    // what a sweep changes is recorded as the daemon's own (path sweep)
    const outcome = await runAsDaemon(run);
    this.observer.ran(sweep, outcome, Number(process.hrtime.bigint() - started) / 1e6);
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.sweepMachineAuthorizations();
  }

  @Cron(MACHINE_AUTHORIZATION_SWEEP_CRON, { name: 'machine-authorization-sweep' })
  async sweepMachineAuthorizations(): Promise<void> {
    await this.timed('machine_authorizations', async () => {
      if (this.machineAuthorizationSweepRunning) return 'skipped';
      this.machineAuthorizationSweepRunning = true;
      try {
        const result = await this.machineAuthorizations.sweep();
        if (!result.ran) return 'skipped';
        this.logger.debug(`machine-authorization sweep: ${JSON.stringify(result)}`);
        return 'ran';
      } catch (err) {
        this.logger.warn(`machine-authorization sweep failed: ${(err as Error).message}`);
        return 'failed';
      } finally {
        this.machineAuthorizationSweepRunning = false;
      }
    });
  }

  // One replica sweeps (advisory lock), the others skip.
  @Cron(EVENT_RETENTION_SWEEP_CRON, { name: 'event-retention-sweep' })
  async sweepEvents(): Promise<void> {
    await this.timed('event_retention', async () => {
      try {
        const deleted = await this.events.purgeExpired();
        if (deleted === null) return 'skipped';
        if (deleted) this.logger.debug(`event retention sweep: deleted ${deleted}`);
        return 'ran';
      } catch (err) {
        this.logger.warn(`event retention sweep failed: ${(err as Error).message}`);
        return 'failed';
      }
    });
  }

  // The frontier's change tombstones older than its retention (every replica may run it: one statement, idempotent).
  @Cron(TOMBSTONE_SWEEP_CRON, { name: 'tombstone-sweep' })
  async sweepTombstones(): Promise<void> {
    await this.timed('tombstones', async () => {
      try {
        const deleted = await this.frontier.pruneTombstones();
        if (deleted) this.logger.debug(`tombstone sweep: deleted ${deleted}`);
        return 'ran';
      } catch (err) {
        this.logger.warn(`tombstone sweep failed: ${(err as Error).message}`);
        return 'failed';
      }
    });
  }

  @Cron(HISTORY_RETENTION_SWEEP_CRON, { name: 'history-retention-sweep' })
  async sweepHistory(): Promise<void> {
    await this.timed('history_retention', async () => {
      try {
        const deleted = (await this.history?.prune()) ?? 0;
        if (deleted) this.logger.debug(`history retention sweep: deleted ${deleted}`);
        return 'ran';
      } catch (err) {
        this.logger.warn(`history retention sweep failed: ${(err as Error).message}`);
        return 'failed';
      }
    });
  }

  // Each replica reports itself (secret fingerprint, clock skew) for `svc doctor`, and forgets long-gone replicas.
  @Cron(REPLICA_HEARTBEAT_CRON, { name: 'replica-heartbeat' })
  async heartbeat(): Promise<void> {
    await this.timed('replica_heartbeat', async () => {
      try {
        await this.replicas?.heartbeat();
        return 'ran';
      } catch (err) {
        this.logger.warn(`replica heartbeat failed: ${(err as Error).message}`);
        return 'failed';
      }
    });
  }
}
