import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { AppConfig } from './app-config';
import { SERVER_SECRET_FILE } from './server-secret';
import { ServerSecretService } from './server-secret.service';

describe(ServerSecretService.name, () => {
  let home: string;

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'svc-secret-'));
  });

  afterEach(() => {
    rmSync(home, { recursive: true, force: true });
  });

  const config = (serverSecret: string | null) => ({ serverSecret, home }) as unknown as AppConfig;

  it('should use SVC_SERVER_SECRET when set and write no file', () => {
    const sut = new ServerSecretService(config('from-env'));
    expect(sut.value.toString('utf8')).toBe('from-env');
    expect(() => statSync(join(home, SERVER_SECRET_FILE))).toThrow();
  });

  it('should generate a secret on first boot, readable by the owner only', () => {
    const sut = new ServerSecretService(config(null));
    const path = join(home, SERVER_SECRET_FILE);
    expect(readFileSync(path, 'utf8').trim()).toBe(sut.value.toString('utf8'));
    expect(sut.value.length).toBeGreaterThanOrEqual(32);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('should keep the generated secret across restarts', () => {
    const first = new ServerSecretService(config(null));
    const second = new ServerSecretService(config(null));
    expect(second.value.equals(first.value)).toBe(true);
  });

  describe('mac', () => {
    it('should give different digests for the same data under two purposes', () => {
      const sut = new ServerSecretService(config('k'));
      expect(sut.mac('doctor', 'x').equals(sut.mac('approval', 'x'))).toBe(false);
    });

    it('should give the same digest for the same purpose, data and secret', () => {
      expect(new ServerSecretService(config('k')).mac('p', 'x')).toEqual(
        new ServerSecretService(config('k')).mac('p', 'x'),
      );
    });

    it('should give different digests under different secrets', () => {
      const a = new ServerSecretService(config('k1')).mac('p', 'x');
      expect(a.equals(new ServerSecretService(config('k2')).mac('p', 'x'))).toBe(false);
    });
  });
});
