import { AuthenticatedActor } from '../auth/actor';
import { testActor } from '../auth/test-actor';
import { DomainError } from '../common/domain-error';
import { AppConfig } from '../config/app-config';
import { ClockReading, DoctorRepository, ReplicaRow } from './doctor.repository';
import { DoctorService, REPLICAS_WINDOW_SECONDS } from './doctor.service';
import { ReplicasService } from './replicas.service';

const ADMIN = testActor({ id: 1, name: 'root', isAdmin: true });

const CONFIG = {
  serverSecret: null,
  databaseUrl: 'postgres://db/svc',
  publicUrl: 'https://svc.example',
  host: '0.0.0.0',
  port: 7300,
  trustedProxies: [],
  mode: 'self-host',
} as unknown as AppConfig;

const SEEN: ReplicaRow = {
  replica_id: 'r-2',
  name: 'other:7300:42',
  version: '1.0.0',
  secret_fingerprint: 'abcd',
  clock_skew_ms: 3,
  started_at: new Date('2025-03-01T10:00:00Z'),
  seen_at: new Date('2025-03-01T12:00:00Z'),
};

function makeSut(config: Partial<AppConfig> = {}, applied = ['A1', 'B2'], known = ['A1', 'C3']) {
  const calls: string[] = [];
  const clock: ClockReading = { databaseMs: 1_010, sentMs: 1_000, receivedMs: 1_004 };
  const repository = {
    readClock: jest.fn(async () => clock),
    serverFacts: jest.fn(async () => {
      calls.push('serverFacts');
      return { server_version: '16.4', data_directory: null };
    }),
    appliedMigrations: jest.fn(async () => applied),
    replicasSeenWithin: jest.fn(async () => {
      calls.push('replicasSeenWithin');
      return [SEEN];
    }),
    knownMigrations: jest.fn(() => known),
  };
  const replicas = {
    heartbeat: jest.fn(async () => {
      calls.push('heartbeat');
      return 0;
    }),
    identity: { replicaId: 'r-1', name: 'me:7300:1', version: '1.0.0', startedAt: new Date(0), fingerprint: 'f00d' },
  };
  const sut = new DoctorService(repository as unknown as DoctorRepository, replicas as unknown as ReplicasService, {
    ...CONFIG,
    ...config,
  });
  return { sut, repository, replicas, calls };
}

describe(DoctorService.name, () => {
  describe('report', () => {
    it.each<[string, Partial<AuthenticatedActor>]>([
      ['a member who is no admin', { isAdmin: false }],
      ['a server admin confined to one organization', { organizationId: 9 }],
      ['a server admin on the hosted path of an organization', { scopeOrganizationId: 9 }],
      ['a metrics-only token', { scope: 'metrics' }],
    ])('should refuse %s with forbidden', async (_who, change) => {
      const { sut, repository } = makeSut();
      const refusal = await sut.report({ ...ADMIN, ...change }).catch((e: unknown) => e);
      expect(refusal).toBeInstanceOf(DomainError);
      expect((refusal as DomainError).code).toBe('forbidden');
      expect(repository.readClock).not.toHaveBeenCalled();
    });

    it('should list pending and unknown migrations by comparing the applied with the known', async () => {
      const { sut } = makeSut();
      const report = await sut.report(ADMIN);
      expect(report.database.migrations).toEqual({ applied: 2, latest: 'B2', pending: ['C3'], unknown: ['B2'] });
    });

    it('should report no latest migration on an empty database', async () => {
      const { sut } = makeSut({}, [], ['A1']);
      const report = await sut.report(ADMIN);
      expect(report.database.migrations).toMatchObject({ applied: 0, latest: null, pending: ['A1'] });
    });

    it('should report this replica before reading the replicas seen, so it is in its own list', async () => {
      const { sut, calls } = makeSut();
      await sut.report(ADMIN);
      expect(calls.indexOf('heartbeat')).toBeLessThan(calls.indexOf('replicasSeenWithin'));
    });

    it('should read the replicas seen within the window and name the window', async () => {
      const { sut, repository } = makeSut();
      const report = await sut.report(ADMIN);
      expect(repository.replicasSeenWithin).toHaveBeenCalledWith(REPLICAS_WINDOW_SECONDS);
      expect(report.replicas_window_seconds).toBe(REPLICAS_WINDOW_SECONDS);
      expect(report.replicas).toEqual([
        {
          name: SEEN.name,
          version: SEEN.version,
          secret_fingerprint: 'abcd',
          clock_skew_ms: 3,
          started_at: '2025-03-01T10:00:00.000Z',
          seen_at: '2025-03-01T12:00:00.000Z',
        },
      ]);
    });

    it('should give the skew against the midpoint of the round trip and half the round trip as uncertainty', async () => {
      const { sut } = makeSut();
      const report = await sut.report(ADMIN);
      expect(report.clock).toEqual({ skew_ms: 8, uncertainty_ms: 2 });
    });

    it('should say the secret comes from the environment when SVC_SERVER_SECRET is set', async () => {
      const { sut } = makeSut({ serverSecret: 's3cret' });
      expect((await sut.report(ADMIN)).replica.secret_source).toBe('environment');
    });

    it('should say the secret comes from the file when SVC_SERVER_SECRET is not set', async () => {
      const { sut } = makeSut();
      expect((await sut.report(ADMIN)).replica.secret_source).toBe('file');
    });

    it('should call the database embedded when no database URL is configured', async () => {
      const { sut } = makeSut({ databaseUrl: null });
      expect((await sut.report(ADMIN)).database.embedded).toBe(true);
    });

    it('should call the database external when a database URL is configured', async () => {
      const { sut } = makeSut();
      expect((await sut.report(ADMIN)).database.embedded).toBe(false);
    });
  });
});
