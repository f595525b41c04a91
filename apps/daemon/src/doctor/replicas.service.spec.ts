import { Logger } from '@nestjs/common';

import { AppConfig } from '../config/app-config';
import { ServerSecretService } from '../config/server-secret.service';
import { DoctorRepository } from './doctor.repository';
import { clockSkewMs, ReplicasService } from './replicas.service';

const CONFIG = { serverSecret: 'shared-secret', home: '/nonexistent', port: 7300 } as unknown as AppConfig;

function makeSut(secret = 'shared-secret') {
  const repository = {
    readClock: jest.fn(async () => ({ databaseMs: 2_000, sentMs: 1_000, receivedMs: 1_010 })),
    report: jest.fn(async () => undefined),
  };
  const sut = new ReplicasService(
    repository as unknown as DoctorRepository,
    new ServerSecretService({ ...CONFIG, serverSecret: secret }),
    CONFIG,
  );
  return { sut, repository };
}

describe(ReplicasService.name, () => {
  describe(clockSkewMs.name, () => {
    it('should measure the database clock against the midpoint of the round trip', () => {
      expect(clockSkewMs({ databaseMs: 1_000, sentMs: 990, receivedMs: 1_010 })).toBe(0);
      expect(clockSkewMs({ databaseMs: 1_500, sentMs: 990, receivedMs: 1_010 })).toBe(500);
      expect(clockSkewMs({ databaseMs: 500, sentMs: 990, receivedMs: 1_010 })).toBe(-500);
    });
  });

  describe('identity', () => {
    it('should give equal fingerprints to replicas sharing a secret', () => {
      expect(makeSut().sut.identity.fingerprint).toBe(makeSut().sut.identity.fingerprint);
    });

    it('should give different fingerprints to replicas with different secrets', () => {
      expect(makeSut('one').sut.identity.fingerprint).not.toBe(makeSut('two').sut.identity.fingerprint);
    });

    it('should never show the secret in its fingerprint', () => {
      const { fingerprint } = makeSut('shared-secret').sut.identity;
      expect(fingerprint).toMatch(/^[0-9a-f]{16}$/);
      expect(fingerprint).not.toContain(Buffer.from('shared-secret').toString('hex').slice(0, 8));
    });

    it('should give each replica its own id', () => {
      expect(makeSut().sut.identity.replicaId).not.toBe(makeSut().sut.identity.replicaId);
    });
  });

  describe('heartbeat', () => {
    it('should record this replica with the skew it measured and return the skew', async () => {
      const { sut, repository } = makeSut();
      await expect(sut.heartbeat()).resolves.toBe(995);
      expect(repository.report).toHaveBeenCalledWith({
        replica_id: sut.identity.replicaId,
        name: sut.identity.name,
        version: sut.identity.version,
        secret_fingerprint: sut.identity.fingerprint,
        clock_skew_ms: 995,
        started_at: sut.identity.startedAt,
      });
    });
  });

  describe('onApplicationBootstrap', () => {
    it('should boot when the database is away, leaving the report to the next heartbeat', async () => {
      const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      const { sut, repository } = makeSut();
      repository.readClock.mockRejectedValueOnce(new Error('connect ECONNREFUSED'));
      await expect(sut.onApplicationBootstrap()).resolves.toBeUndefined();
      expect(repository.report).not.toHaveBeenCalled();
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('ECONNREFUSED'));
      warn.mockRestore();
    });
  });
});
