import { request as httpRequest } from 'node:http';

import { createTestDatabase, DaemonProcess, runSvc, startDaemonProcess, svcEnv, TestDatabase } from '@app/testing';
import { createActor, freshClientIp, http, sql, TestActor } from '@app/testing/machine-auth';

import { validateMachineAuthorizationBody, verifyCredentialAuthority } from '@app/contracts';

const SECRET = 'e2e-machine-auth-hosted-0123456789abcdef';

describe('machine authorization (hosted, multi-organization)', () => {
  let db: TestDatabase;
  let daemon: DaemonProcess;
  let base: string;
  let ann: TestActor;
  let max: TestActor;

  beforeAll(async () => {
    db = await createTestDatabase('server', 'mauth_hosted');
    daemon = await startDaemonProcess({
      env: {
        SVC_DATABASE_URL: db.url,
        SVC_SERVER_SECRET: SECRET,
        SVC_MODE: 'hosted',
        SVC_API_TRUSTED_PROXIES: '127.0.0.1',
      },
    });
    base = daemon.url;
    ann = await createActor(db.url, { name: 'ann', org: 'acme', role: 'admin' });
    max = await createActor(db.url, { name: 'max', org: 'acme', role: 'member' });
  });

  afterAll(async () => {
    await daemon?.stop();
    await db?.drop();
  });

  const machine = { machine_id: 'h-1', machine_name: 'build box' };

  async function startAt(prefix: string) {
    const ip = freshClientIp();
    const res = await http(base, 'POST', `${prefix}/api/machine/authorizations`, { body: {}, clientIp: ip });
    expect(res.status).toBe(201);
    expect(validateMachineAuthorizationBody('MachineAuthorizationStarted', res.body).ok).toBe(true);
    return { ip, started: res.body as { device_code: string; user_code: string } };
  }

  const poll = (prefix: string, deviceCode: string, ip: string, m = machine) =>
    http(base, 'POST', `${prefix}/api/machine/authorizations/token`, {
      body: { device_code: deviceCode, ...m },
      clientIp: ip,
    });

  it('should let an organization admin approve a code waiting for the organization', async () => {
    const { ip, started } = await startAt('/api/orgs/acme');
    const pending = await poll('/api/orgs/acme', started.device_code, ip);
    expect(pending.status).toBe(202);
    expect(pending.body).toEqual({ code: 'authorization_pending', detail: 'waiting for approval' });

    const byMember = await http(base, 'POST', '/api/orgs/acme/v1/machine-authorizations/resolve', {
      body: { code: started.user_code, action: 'approve' },
      token: max.token,
    });
    expect(byMember.status).toBe(403);
    expect(byMember.body).toMatchObject({ code: 'organization_membership_required' });
    expect(byMember.body.detail).toMatch(/admin/);
    expect(byMember.body.message).toBeUndefined();

    const record = await runSvc(['machine-authorization', 'get', started.user_code, '--org', 'acme', '--json'], {
      env: { ...svcEnv(daemon), SVC_TOKEN: ann.token },
    });
    expect(JSON.parse(record.stdout)).toMatchObject({
      machine_id: 'h-1',
      machine_name: 'build box',
      decision: 'pending',
    });
    const resolved = await runSvc(
      ['machine-authorization', 'resolve', started.user_code, '--action', 'approve', '--org', 'acme', '--json'],
      { env: { ...svcEnv(daemon), SVC_TOKEN: ann.token } },
    );
    expect(resolved.code).toBe(0);

    const success = await poll('/api/orgs/acme', started.device_code, ip);
    expect(success.status).toBe(200);
    expect(success.body).toMatchObject({ org: 'acme', api_url: `${base}/api/orgs/acme` });
    const approved = validateMachineAuthorizationBody('MachineAuthorizationApproved', success.body);
    expect(approved.ok).toBe(true);
    if (approved.ok) {
      expect(verifyCredentialAuthority({ serverUrl: base, kind: 'cloud', approved: approved.value, org: 'acme' })).toBe(
        `${base}/api/orgs/acme`,
      );
    }
    const me = await http(base, 'GET', '/v1/whoami', { token: success.body.token as string });
    expect(me.body).toMatchObject({ name: 'ann', via: 'machine_credential' });
    // The credential's API authority serves every /v1 function, for that organization only.
    const scoped = await http(base, 'GET', '/api/orgs/acme/v1/whoami', { token: success.body.token as string });
    expect(scoped.status).toBe(200);
    expect(scoped.body).toMatchObject({ name: 'ann', via: 'machine_credential' });
    await createActor(db.url, { name: 'otto', org: 'elsewhere', role: 'admin' });
    const foreign = await http(base, 'GET', '/api/orgs/elsewhere/v1/whoami', { token: success.body.token as string });
    expect(foreign.status).toBe(403);
    expect(foreign.body).toMatchObject({ code: 'organization_membership_required' });
  });

  it('should choose the organization at approval for a code started without one', async () => {
    const { ip, started } = await startAt('');
    const unscoped = await http(base, 'POST', '/v1/machine-authorizations/resolve', {
      body: { code: started.user_code, action: 'approve' },
      token: ann.token,
    });
    expect(unscoped.status).toBe(400);
    expect(unscoped.body).toMatchObject({ code: 'invalid_request' });
    const scoped = await http(base, 'POST', '/api/orgs/acme/v1/machine-authorizations/resolve', {
      body: { code: started.user_code, action: 'approve' },
      token: ann.token,
    });
    expect(scoped.status).toBe(200);
    const success = await poll('', started.device_code, ip, { machine_id: 'h-2', machine_name: 'second' });
    expect(success.status).toBe(200);
    expect(success.body).toMatchObject({ org: 'acme', api_url: `${base}/api/orgs/acme` });
  });

  it('should refuse issuance with 409 when the approver lost the admin role', async () => {
    const { ip, started } = await startAt('/api/orgs/acme');
    await poll('/api/orgs/acme', started.device_code, ip, { machine_id: 'h-3', machine_name: 'third' });
    const zoe = await createActor(db.url, { name: 'zoe', org: 'acme', role: 'admin' });
    expect(
      (
        await http(base, 'POST', '/api/orgs/acme/v1/machine-authorizations/resolve', {
          body: { code: started.user_code, action: 'approve' },
          token: zoe.token,
        })
      ).status,
    ).toBe(200);
    await sql(db.url, `UPDATE memberships SET role = 'member' WHERE actor_id = $1`, [zoe.id]);
    const res = await poll('/api/orgs/acme', started.device_code, ip, { machine_id: 'h-3', machine_name: 'third' });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'machine_credential_refused' });
    expect(typeof res.body.detail).toBe('string');
  });

  it('should refuse a self-host start body, an unknown organization and a code of another organization', async () => {
    const selfHostBody = await http(base, 'POST', '/api/orgs/acme/api/machine/authorizations', {
      body: machine,
      clientIp: freshClientIp(),
    });
    expect(selfHostBody.status).toBe(400);
    expect(selfHostBody.body).toMatchObject({ code: 'invalid_request' });
    const unknown = await http(base, 'POST', '/api/orgs/nope/api/machine/authorizations', {
      body: {},
      clientIp: freshClientIp(),
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: 'not_found' });

    await createActor(db.url, { name: 'olga', org: 'other', role: 'admin' });
    const { ip, started } = await startAt('/api/orgs/other');
    const wrongBase = await poll('/api/orgs/acme', started.device_code, ip);
    expect(wrongBase.status).toBe(410);
    const foreign = await http(base, 'POST', '/api/orgs/acme/v1/machine-authorizations/resolve', {
      body: { code: started.user_code, action: 'approve' },
      token: ann.token,
    });
    expect(foreign.status).toBe(404);
  });

  // Issue 36, smaller findings: the hosted path is exactly /v1 for the organization's callers.
  describe('the organization path', () => {
    // fetch normalises dot segments before sending; a raw client sends the path as written.
    const rawGet = (path: string, token: string) =>
      new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
        const url = new URL(base);
        const req = httpRequest(
          { host: url.hostname, port: url.port, path, method: 'GET', headers: { authorization: `Bearer ${token}` } },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => (text += chunk));
            res.on('end', () => {
              let body: Record<string, unknown> = {};
              try {
                body = JSON.parse(text) as Record<string, unknown>;
              } catch {
                body = { text };
              }
              resolve({ status: res.statusCode ?? 0, body });
            });
          },
        );
        req.on('error', reject);
        req.end();
      });

    it('should accept the multi-line fields /v1 accepts', async () => {
      const at = (method: string, path: string, body: unknown) =>
        http(base, method, `/api/orgs/acme${path}`, { token: ann.token, body });
      expect((await at('POST', '/v1/projects', { id: 'lines', name: 'lines', public_item_prefix: 'LIN' })).status).toBe(
        201,
      );
      const created = await at('POST', '/v1/items', { project: 'lines', title: 'two lines', body: 'a\nb\tc' });
      expect(created.status).toBe(201);
      const ref = (created.body as { item_id: string }).item_id;
      const section = await at('PUT', `/v1/items/${ref}/sections/notes`, { content: 'first\nsecond' });
      expect(section.status).toBe(200);
      const [row] = await sql<{ body: string }>(db.url, `SELECT body FROM items WHERE project = 'lines'`);
      expect(row.body).toBe('a\nb\tc');
      // a one-line field stays one line, on both paths alike
      const title = await at('POST', '/v1/items', { project: 'lines', title: 'a\nb' });
      const direct = await http(base, 'POST', '/v1/items', {
        token: ann.token,
        body: { project: 'lines', title: 'a\nb' },
      });
      expect(title.status).toBe(400);
      expect(title.body).toEqual(direct.body);
    });

    it.each([
      '/api/orgs/acme/v1/../../../api/machine/authorizations',
      '/api/orgs/acme/v1/%2e%2e/%2e%2e/%2e%2e/api/machine/authorizations',
      '/api/orgs/acme/v1/..%2f..%2f..%2fhealthz',
      '/api/orgs/acme/v1/./whoami',
    ])('should reach nothing outside /v1 through %s', async (path) => {
      const res = await rawGet(path, ann.token);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 'not_found' });
    });

    it('should still forward an ordinary path', async () => {
      expect((await rawGet('/api/orgs/acme/v1/whoami', ann.token)).status).toBe(200);
    });
  });
});
