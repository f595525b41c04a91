import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
  createTestDatabase,
  DaemonProcess,
  DAEMON_ENTRY,
  startDaemonProcess,
  TestDatabase,
  waitFor,
} from '@app/testing';

// Logs for audit (issue 40): every line the daemon writes is JSON when its output is not a terminal, start-up,
// shutdown and failures included; each request leaves one access line at info that says who did what, from where,
// under which request id, and never a credential.

function records(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`not a JSON line: ${line}`);
      }
    });
}

describe('the daemon log (JSON lines, access lines, request ids)', () => {
  let db: TestDatabase;
  let daemon: DaemonProcess;
  let token: string;

  beforeAll(async () => {
    db = await createTestDatabase('server', 'logging');
    daemon = await startDaemonProcess({
      env: { SVC_DATABASE_URL: db.url, SVC_LOG_LEVEL: 'info', SVC_API_TRUSTED_PROXIES: '127.0.0.1' },
    });
    token = daemon.token!;
    expect(token).toMatch(/^svc_/);
  });

  afterAll(async () => {
    await daemon?.kill();
    await db?.drop();
  });

  const accessLine = async (requestId: string) => {
    let found: Record<string, unknown> | undefined;
    await waitFor(
      () => {
        found = records(daemon.stdout()).find((r) => r.reqId === requestId && r.msg === 'request completed');
        return found !== undefined;
      },
      { timeout: 10_000, what: `the access line of ${requestId}` },
    );
    return found!;
  };

  it('should log a successful request at info with method, route pattern, status, duration, actor and client', async () => {
    const res = await fetch(`${daemon.url}/v1/whoami`, {
      headers: { authorization: `Bearer ${token}`, 'x-request-id': 'audit-42' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('audit-42');
    const line = await accessLine('audit-42');
    expect(line).toMatchObject({
      level: 30,
      method: 'GET',
      route: '/v1/whoami',
      status: 200,
      code: null,
      client: '127.0.0.1',
      actor: { name: 'admin', via: 'api_token' },
    });
    expect(typeof line.duration_ms).toBe('number');
  });

  it('should take the client address from X-Forwarded-For only through a trusted proxy', async () => {
    // the test's own address (127.0.0.1) is the trusted proxy here
    await fetch(`${daemon.url}/v1/whoami`, {
      headers: { authorization: `Bearer ${token}`, 'x-request-id': 'via-proxy', 'x-forwarded-for': '203.0.113.7' },
    });
    expect(await accessLine('via-proxy')).toMatchObject({ client: '203.0.113.7', peer: '127.0.0.1' });
  });

  it('should log a refusal at warn with its error code, the route pattern and not the code in the path', async () => {
    const res = await fetch(`${daemon.url}/machine-approval/BCDF-GHJK?secret=abc`, {
      headers: { 'x-request-id': 'approval-1' },
    });
    expect(res.headers.get('x-request-id')).toBe('approval-1');
    const line = await accessLine('approval-1');
    expect(line).toMatchObject({ route: '/machine-approval/:code', status: res.status });
    const unauthorized = await fetch(`${daemon.url}/v1/projects`, { headers: { 'x-request-id': 'no-token' } });
    expect(unauthorized.status).toBe(401);
    expect(await accessLine('no-token')).toMatchObject({ level: 40, status: 401, code: 'unauthorized', actor: null });
    expect(daemon.stdout()).not.toContain('BCDF-GHJK');
    expect(daemon.stdout()).not.toContain('secret=abc');
  });

  it('should make up a request id when the caller gives none or one that is not a plain token', async () => {
    for (const given of [undefined, 'two words', 'x'.repeat(129), 'quote"d']) {
      const res = await fetch(`${daemon.url}/healthz`, { headers: given ? { 'x-request-id': given } : {} });
      const id = res.headers.get('x-request-id');
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(id).not.toBe(given);
    }
  });

  it('should write every line as JSON, shutdown included, and never the bearer token', async () => {
    await daemon.stop('SIGTERM');
    const out = records(daemon.stdout());
    const err = records(daemon.stderr());
    expect(err.some((r) => /^listening on http/.test(String(r.msg)))).toBe(true);
    expect(err.some((r) => /SIGTERM received/.test(String(r.msg)))).toBe(true);
    expect(out.length).toBeGreaterThan(3);
    expect(daemon.stdout() + daemon.stderr()).not.toContain(token);
    expect(daemon.stdout() + daemon.stderr()).not.toContain(token.slice(4, 24));
  });

  it('should report a start that fails as JSON lines', () => {
    const home = mkdtempSync(join(tmpdir(), 'svc-test-home-'));
    const run = spawnSync(process.execPath, [DAEMON_ENTRY], {
      env: {
        PATH: process.env.PATH,
        SVC_HOME: home,
        SVC_CONFIG_DIR: home,
        SVC_PORT: '0',
        SVC_API_TRUSTED_PROXIES: 'not-an-address',
        SVC_DATABASE_URL: db.url,
      },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.status).toBe(78);
    const lines = records(run.stdout + run.stderr);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.some((r) => r.level === 60 && /SVC_API_TRUSTED_PROXIES/.test(String(r.msg)))).toBe(true);
  });
});
