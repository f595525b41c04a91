import type { MachineAuthorizationRequestList } from '@app/contracts';
import { createTestDatabase, DaemonProcess, parseJson, runSvc, startDaemonProcess, TestDatabase } from '@app/testing';
import { createActor, freshClientIp, http, startMachineAuthorization, TestActor } from '@app/testing/machine-auth';

const SECRET = 'e2e-machine-list-cli-secret-0123456789abcdef';

describe('svc machine-authorization list', () => {
  let db: TestDatabase;
  let daemon: DaemonProcess;
  let otto: TestActor;
  const env = (token: string) => ({ SVC_URL: daemon.url, SVC_TOKEN: token, SVC_CONFIG_DIR: daemon.configDir });

  beforeAll(async () => {
    db = await createTestDatabase('server', 'malist');
    daemon = await startDaemonProcess({
      env: { SVC_DATABASE_URL: db.url, SVC_SERVER_SECRET: SECRET, SVC_API_TRUSTED_PROXIES: '127.0.0.1,::1' },
    });
    otto = await createActor(db.url, { name: 'otto', membership: null });
  });

  afterAll(async () => {
    await daemon?.stop();
    await db?.drop();
  });

  it('should say (none) when nothing waits', async () => {
    const result = await runSvc(['machine-authorization', 'list'], { env: env(daemon.token!) });
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe('(none)');
  });

  it('should list a pending request with its machine, address, age and time to expiry, without its code', async () => {
    const ip = freshClientIp();
    const started = await startMachineAuthorization(daemon.url, { id: 'cli-list-1', name: 'build-box' }, ip);
    expect(started.status).toBe(201);

    const table = await runSvc(['machine-authorization', 'list'], { env: env(daemon.token!) });
    expect(table.code).toBe(0);
    const row = table.stdout.split('\n').find((line) => line.includes('cli-list-1'));
    expect(row).toBeDefined();
    expect(row).toMatch(/mr_[0-9a-f]{32}/);
    expect(row).toContain('build-box');
    expect(row).toContain(ip);
    // age in seconds, expiry in minutes (the default lifetime is minutes long)
    expect(row).toMatch(/\b\d+s\b.*\b\d+m\b/);
    for (const head of ['request', 'machine', 'machine id', 'address', 'age', 'expires in']) {
      expect(table.stdout).toContain(head);
    }
    expect(table.stdout).not.toContain(started.body.user_code);

    const json = await runSvc(['machine-authorization', 'list', '--json'], { env: env(daemon.token!) });
    expect(json.code).toBe(0);
    const body = parseJson<MachineAuthorizationRequestList>(json);
    const direct = await http<MachineAuthorizationRequestList>(daemon.url, 'GET', '/v1/machine-authorizations', {
      token: daemon.token!,
    });
    expect(body).toEqual(direct.body);
    expect(body.requests.map((r) => r.machine_id)).toContain('cli-list-1');
    expect(JSON.stringify(body)).not.toContain(started.body.user_code);
  });

  it('should list nothing for an actor outside the organization', async () => {
    const result = await runSvc(['machine-authorization', 'list', '--json'], { env: env(otto.token) });
    expect(result.code).toBe(0);
    expect(parseJson<MachineAuthorizationRequestList>(result).requests).toEqual([]);
  });

  it('should fail with exit 3 and the daemon code without a valid token', async () => {
    const result = await runSvc(['machine-authorization', 'list'], { env: env('svc_not-a-token') });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/error: \w+/);
  });
});
