import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { createTestDatabase, DaemonProcess, runSvc, startDaemonProcess, SVC_BIN, TestDatabase } from '@app/testing';
import { http, resolveMachineAuthorization } from '@app/testing/machine-auth';

describe('svc connect', () => {
  let db: TestDatabase;
  let daemon: DaemonProcess;

  beforeAll(async () => {
    db = await createTestDatabase('server', 'mauth_connect');
    daemon = await startDaemonProcess({
      env: { SVC_DATABASE_URL: db.url, SVC_SERVER_SECRET: 'e2e-machine-auth-connect-0123456789abcdef' },
    });
  });

  afterAll(async () => {
    await daemon?.stop();
    await db?.drop();
  });

  it('should show a code, wait for the approval and store the machine credential with mode 0600', async () => {
    const configDir = mkdtempSync(join(tmpdir(), 'svc-connect-'));
    const child = spawn(process.execPath, [SVC_BIN, 'connect', daemon.url, '--machine-name', 'e2e box'], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, SVC_CONFIG_DIR: configDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    const code = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no code shown:\n${out}\n${err}`)), 15000);
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        const match = /^\s+([BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4})\s*$/m.exec(out);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
    });
    const record = await http(daemon.url, 'GET', `/v1/machine-authorizations/${code}`, { token: daemon.token! });
    expect(record.body).toMatchObject({ machine_name: 'e2e box', decision: 'pending' });
    expect((await resolveMachineAuthorization(daemon.url, daemon.token!, code, 'approve')).status).toBe(200);
    expect(await exited).toBe(0);
    expect(out).toContain('connected to');
    const file = join(configDir, 'credentials.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const stored = (
      JSON.parse(readFileSync(file, 'utf8')) as { servers: { url: string; token: string; kind: string }[] }
    ).servers[0];
    expect(stored).toMatchObject({ url: daemon.url, kind: 'machine_credential' });
    expect(out + err).not.toContain(stored.token);
    const me = await runSvc(['whoami', '--json'], { env: { SVC_CONFIG_DIR: configDir } });
    expect(JSON.parse(me.stdout)).toMatchObject({ name: 'admin', via: 'machine_credential' });
  });

  it('should connect with an API token from standard input', async () => {
    const configDir = mkdtempSync(join(tmpdir(), 'svc-connect-token-'));
    const res = await runSvc(['connect', daemon.url, '--token-stdin'], {
      env: { SVC_CONFIG_DIR: configDir },
      input: `${daemon.token}\n`,
    });
    expect(res.code).toBe(0);
    expect(JSON.parse(readFileSync(join(configDir, 'credentials.json'), 'utf8'))).toMatchObject({
      servers: [{ kind: 'api_token' }],
    });
  });

  it('should refuse a plain-http server that is not on loopback', async () => {
    const res = await runSvc(['connect', 'http://svc.example.com']);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('insecure_http');
  });
});
