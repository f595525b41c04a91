import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { createTestDatabase, runSvc, SVC_BIN, TestDatabase } from '@app/testing';
import { http } from '@app/testing/machine-auth';

function parseEnv(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split('\n')
      .filter((l) => /^[A-Z_]+=/.test(l))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

describe('svc self-host init', () => {
  let db: TestDatabase;
  const dir = join(mkdtempSync(join(tmpdir(), 'svc-bundle-')), 'server');
  const configDir = mkdtempSync(join(tmpdir(), 'svc-bundle-config-'));

  beforeAll(async () => {
    db = await createTestDatabase('server', 'mauth_selfhost');
  });
  afterAll(() => db?.drop());

  it('should write a private bundle with the database, secret, trusted proxies and first-boot token', async () => {
    const res = await runSvc(['self-host', 'init', '--dir', dir, '--database-url', db.url, '--port', '0']);
    expect(res.code).toBe(0);
    const path = join(dir, '.env');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const env = parseEnv(readFileSync(path, 'utf8'));
    expect(env.SVC_DATABASE_URL).toBe(db.url);
    expect(env.SVC_SERVER_SECRET.length).toBeGreaterThanOrEqual(32);
    expect(env.SVC_API_TRUSTED_PROXIES).toBe('127.0.0.1,::1');
    expect(env.SVC_BOOTSTRAP_TOKEN).toMatch(/^svc_/);
    expect(res.stdout + res.stderr).not.toContain(env.SVC_BOOTSTRAP_TOKEN);
  });

  it('should refuse to overwrite an existing bundle unless told, and keep it with --protect-existing', async () => {
    const before = readFileSync(join(dir, '.env'), 'utf8');
    const again = await runSvc(['self-host', 'init', '--dir', dir]);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('bundle_exists');
    const kept = await runSvc(['self-host', 'init', '--dir', dir, '--protect-existing']);
    expect(kept.code).toBe(0);
    expect(readFileSync(join(dir, '.env'), 'utf8')).toBe(before);
  });

  it('should start the daemon with the bundle, the first-boot token working at once', async () => {
    const env = parseEnv(readFileSync(join(dir, '.env'), 'utf8'));
    const child = spawn(
      process.execPath,
      [SVC_BIN, 'self-host', 'init', '--dir', dir, '--protect-existing', '--start'],
      {
        env: { PATH: process.env.PATH, HOME: process.env.HOME, SVC_CONFIG_DIR: configDir, SVC_LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let err = '';
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no listening line:\n${err}`)), 30000);
        child.stderr.on('data', (chunk: Buffer) => {
          err += chunk.toString();
          const match = /listening on (http:\/\/\S+)/.exec(err);
          if (match) {
            clearTimeout(timer);
            resolve(match[1]);
          }
        });
      });
      const me = await http(url, 'GET', '/v1/whoami', { token: env.SVC_BOOTSTRAP_TOKEN });
      expect(me.status).toBe(200);
      expect(me.body).toMatchObject({ name: 'admin', is_admin: true });
    } finally {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
  });
});
