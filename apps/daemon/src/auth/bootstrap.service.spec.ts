import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Logger } from '@nestjs/common';

import { AppConfig } from '../config/app-config';
import { AuthRepository } from './auth.repository';
import { BootstrapService, DEFAULT_ORGANIZATION_SLUG } from './bootstrap.service';
import { hashToken } from './tokens';

function makeSut(config: Partial<AppConfig> = {}) {
  const configDir = mkdtempSync(join(tmpdir(), 'svc-bootstrap-'));
  const repository = { createFirstAdmin: jest.fn(async () => true) };
  const full = {
    bootstrapAdmin: true,
    bootstrapToken: null,
    printBootstrapToken: true,
    publicUrl: null,
    configDir,
    ...config,
  } as unknown as AppConfig;
  const sut = new BootstrapService(full, repository as unknown as AuthRepository);
  return { sut, repository, configDir };
}

describe(BootstrapService.name, () => {
  const dirs: string[] = [];
  beforeAll(() => jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined));
  afterAll(() => {
    jest.restoreAllMocks();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  describe('bootstrap', () => {
    it('should create the first admin with the hash of the token it answers', async () => {
      const { sut, repository, configDir } = makeSut();
      dirs.push(configDir);
      const result = await sut.bootstrap();
      expect(result?.token).toMatch(/^svc_/);
      expect(repository.createFirstAdmin).toHaveBeenCalledWith(
        hashToken(result!.token),
        expect.any(String),
        DEFAULT_ORGANIZATION_SLUG,
      );
    });

    it('should use the token the environment supplies', async () => {
      const { sut, configDir } = makeSut({ bootstrapToken: 'svc_given' });
      dirs.push(configDir);
      expect((await sut.bootstrap())?.token).toBe('svc_given');
    });

    it('should answer nothing when an actor already exists', async () => {
      const { sut, repository, configDir } = makeSut();
      dirs.push(configDir);
      repository.createFirstAdmin.mockResolvedValue(false);
      expect(await sut.bootstrap()).toBeNull();
    });

    it('should not bootstrap at start when first-boot admin creation is off', async () => {
      const { sut, repository, configDir } = makeSut({ bootstrapAdmin: false });
      dirs.push(configDir);
      await sut.onApplicationBootstrap();
      expect(repository.createFirstAdmin).not.toHaveBeenCalled();
    });
  });

  describe('announce', () => {
    it('should show the token once on a terminal', async () => {
      const { sut, configDir } = makeSut();
      dirs.push(configDir);
      await sut.onApplicationBootstrap();
      const token = sut.result!.token;
      expect(sut.announce('http://127.0.0.1:1', true)!.join('\n')).toContain(token);
      expect(sut.announce('http://127.0.0.1:1', true)).toBeNull();
    });

    it('should never print the token where the output is not a terminal', async () => {
      const { sut, configDir } = makeSut();
      dirs.push(configDir);
      await sut.onApplicationBootstrap();
      const token = sut.result!.token;
      expect(sut.announce('http://127.0.0.1:1', false)!.join('\n')).not.toContain(token);
    });

    it('should never echo a token the environment supplied', async () => {
      const { sut, configDir } = makeSut({ bootstrapToken: 'svc_given' });
      dirs.push(configDir);
      await sut.onApplicationBootstrap();
      expect(sut.announce('http://127.0.0.1:1', true)!.join('\n')).not.toContain('svc_given');
    });

    it('should answer nothing on a later boot', () => {
      const { sut, configDir } = makeSut();
      dirs.push(configDir);
      expect(sut.announce('http://127.0.0.1:1', true)).toBeNull();
    });
  });
});
