import { Inject, Injectable } from '@nestjs/common';

import type { DoctorReport } from '@app/contracts';

import { AuthenticatedActor, isServerAdmin } from '../auth/actor';
import { forbidden } from '../common/domain-error';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { DoctorRepository } from './doctor.repository';
import { clockSkewMs, ReplicasService } from './replicas.service';

// Heartbeats run every minute: a replica silent for three is taken as gone.
export const REPLICAS_WINDOW_SECONDS = 180;

@Injectable()
export class DoctorService {
  constructor(
    private readonly repository: DoctorRepository,
    private readonly replicas: ReplicasService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async report(actor: AuthenticatedActor): Promise<DoctorReport> {
    if (!isServerAdmin(actor))
      throw forbidden('only a server admin (not confined to one organization) runs the doctor');
    const reading = await this.repository.readClock();
    const skew = clockSkewMs(reading);
    // reported now too, so a replica that just booted or missed a heartbeat is in the list it answers with
    await this.replicas.heartbeat();
    const [facts, applied, seen] = await Promise.all([
      this.repository.serverFacts(),
      this.repository.appliedMigrations(),
      this.repository.replicasSeenWithin(REPLICAS_WINDOW_SECONDS),
    ]);
    const known = this.repository.knownMigrations();
    const identity = this.replicas.identity;
    return {
      replica: {
        name: identity.name,
        version: identity.version,
        started_at: identity.startedAt.toISOString(),
        secret_fingerprint: identity.fingerprint,
        secret_source: this.config.serverSecret ? 'environment' : 'file',
      },
      database: {
        server_version: facts.server_version,
        embedded: this.config.databaseUrl === null,
        data_directory: facts.data_directory,
        migrations: {
          applied: applied.length,
          latest: applied.at(-1) ?? null,
          pending: known.filter((name) => !applied.includes(name)),
          unknown: applied.filter((name) => !known.includes(name)),
        },
      },
      clock: { skew_ms: skew, uncertainty_ms: Math.ceil((reading.receivedMs - reading.sentMs) / 2) },
      replicas: seen.map((r) => ({
        name: r.name,
        version: r.version,
        secret_fingerprint: r.secret_fingerprint,
        clock_skew_ms: r.clock_skew_ms,
        started_at: r.started_at.toISOString(),
        seen_at: r.seen_at.toISOString(),
      })),
      replicas_window_seconds: REPLICAS_WINDOW_SECONDS,
      public_url: this.config.publicUrl,
      listen: { host: this.config.host, port: this.config.port },
      trusted_proxies: this.config.trustedProxies,
      mode: this.config.mode,
    };
  }
}
