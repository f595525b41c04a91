import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';

import { version } from '../../../../package.json';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { ServerSecretService } from '../config/server-secret.service';
import { ClockReading, DoctorRepository } from './doctor.repository';

// A fixed string MACed with the server secret: equal fingerprints mean equal secrets, and the secret stays secret.
const FINGERPRINT_PURPOSE = 'doctor';
const FINGERPRINT_DATA = 'svc server secret fingerprint v1';

export function clockSkewMs(reading: ClockReading): number {
  return Math.round(reading.databaseMs - (reading.sentMs + reading.receivedMs) / 2);
}

export interface ReplicaIdentity {
  replicaId: string;
  name: string;
  version: string;
  startedAt: Date;
  fingerprint: string;
}

@Injectable()
export class ReplicasService implements OnApplicationBootstrap {
  private readonly logger = new Logger(ReplicasService.name);
  readonly identity: ReplicaIdentity;

  constructor(
    private readonly repository: DoctorRepository,
    secret: ServerSecretService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.identity = {
      replicaId: randomUUID(),
      name: `${hostname()}:${config.port}:${process.pid}`,
      version,
      startedAt: new Date(),
      fingerprint: secret.mac(FINGERPRINT_PURPOSE, FINGERPRINT_DATA).toString('hex').slice(0, 16),
    };
  }

  async onApplicationBootstrap(): Promise<void> {
    // best effort: a database away at boot is reported by /readyz, and the next heartbeat reports this replica
    await this.heartbeat().catch((err: unknown) => this.logger.warn(`replica report: ${(err as Error).message}`));
  }

  async heartbeat(): Promise<number> {
    const skew = clockSkewMs(await this.repository.readClock());
    await this.repository.report({
      replica_id: this.identity.replicaId,
      name: this.identity.name,
      version: this.identity.version,
      secret_fingerprint: this.identity.fingerprint,
      clock_skew_ms: skew,
      started_at: this.identity.startedAt,
    });
    return skew;
  }
}
