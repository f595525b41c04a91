import { createTestDatabase, DaemonProcess, startDaemonProcess, TestDatabase } from '@app/testing';
import {
  createActor,
  freshClientIp,
  http,
  pollMachineAuthorization,
  resolveMachineAuthorization,
  sql,
  startMachineAuthorization,
  TestActor,
} from '@app/testing/machine-auth';

import type { MachineAuthorizationRequest, MachineAuthorizationRequestList } from '@app/contracts';

import { openStream, OpenedStream } from './daemon-sse';

const SECRET = 'e2e-machine-requests-secret-0123456789abcdef';
const REQUEST_ID = /^mr_[0-9a-f]{32}$/;

// A notice after every one under test: a listener that got it would have got the earlier ones too (one LISTEN
// connection delivers notifications in commit order).
async function marker(url: string, name: string): Promise<void> {
  await sql(url, `SELECT pg_notify('svc_items', $1)`, [JSON.stringify({ type: 'marker', name })]);
}

describe('pending machine requests (self-host)', () => {
  let db: TestDatabase;
  let daemon: DaemonProcess;
  let base: string;
  let admin: string;
  let mia: TestActor;
  let otto: TestActor;

  beforeAll(async () => {
    db = await createTestDatabase('server', 'mreq');
    daemon = await startDaemonProcess({
      env: { SVC_DATABASE_URL: db.url, SVC_SERVER_SECRET: SECRET, SVC_API_TRUSTED_PROXIES: '127.0.0.1,::1' },
    });
    base = daemon.url;
    admin = daemon.token!;
    mia = await createActor(db.url, { name: 'mia', org: 'default', role: 'member' });
    otto = await createActor(db.url, { name: 'otto', membership: null });
  });

  afterAll(async () => {
    await daemon?.stop();
    await db?.drop();
  });

  const machine = (id: string) => ({ id, name: `${id}-laptop` });

  async function started(id: string) {
    const ip = freshClientIp();
    const res = await startMachineAuthorization(base, machine(id), ip);
    expect(res.status).toBe(201);
    return { ip, code: res.body.user_code, deviceCode: res.body.device_code };
  }

  async function list(token: string): Promise<MachineAuthorizationRequest[]> {
    const res = await http<MachineAuthorizationRequestList>(base, 'GET', '/v1/machine-authorizations', { token });
    expect(res.status).toBe(200);
    return res.body.requests;
  }

  async function requestOf(machineId: string, token = admin): Promise<MachineAuthorizationRequest> {
    const found = (await list(token)).find((r) => r.machine_id === machineId);
    if (!found) throw new Error(`${machineId} is not listed`);
    return found;
  }

  const resolveRequest = (requestId: string, body: unknown, token = admin, ip = freshClientIp()) =>
    http(base, 'POST', `/v1/machine-authorizations/requests/${requestId}/resolve`, { body, token, clientIp: ip });

  const statuses = async () =>
    Object.fromEntries(
      (
        await sql<{ machine_id: string; status: string }>(
          db.url,
          'SELECT machine_id, status FROM machine_authorizations',
        )
      ).map((r) => [r.machine_id, r.status]),
    );

  describe('GET /v1/machine-authorizations', () => {
    it('should list a waiting request to every active member, without any secret, and to nobody else', async () => {
      const { ip, code, deviceCode } = await started('m-list');
      const res = await http<MachineAuthorizationRequestList>(base, 'GET', '/v1/machine-authorizations', {
        token: admin,
      });
      expect(res.status).toBe(200);
      const listed = res.body.requests.find((r) => r.machine_id === 'm-list')!;
      expect(listed).toEqual({
        request_id: expect.stringMatching(REQUEST_ID),
        machine_name: 'm-list-laptop',
        machine_id: 'm-list',
        client_address: ip,
        org: 'default',
        created_at: expect.any(String),
        expires_at: expect.any(String),
        claimed_by_caller: false,
      });
      expect(Date.parse(listed.expires_at) - Date.parse(listed.created_at)).toBe(600_000);
      for (const secret of [code, code.replace('-', ''), deviceCode]) expect(res.text).not.toContain(secret);
      expect(res.headers.get('cache-control')).toBe('no-store');
      // stable across reads and the same for every member
      expect((await requestOf('m-list')).request_id).toBe(listed.request_id);
      expect((await requestOf('m-list', mia.token)).request_id).toBe(listed.request_id);
      expect(await list(otto.token)).toEqual([]);
      const anonymous = await http(base, 'GET', '/v1/machine-authorizations');
      expect(anonymous.status).toBe(401);
    });

    it('should stop listing a request once approved, denied, consumed or expired', async () => {
      const approved = await started('m-approved');
      const denied = await started('m-denied');
      const consumed = await started('m-consumed');
      await started('m-expired');
      await started('m-waiting');
      expect((await resolveMachineAuthorization(base, admin, approved.code, 'approve', approved.ip)).status).toBe(200);
      expect((await resolveMachineAuthorization(base, admin, denied.code, 'deny', denied.ip)).status).toBe(200);
      expect((await resolveMachineAuthorization(base, admin, consumed.code, 'approve', consumed.ip)).status).toBe(200);
      const poll = await pollMachineAuthorization(base, consumed.deviceCode, machine('m-consumed'), consumed.ip);
      expect(poll.status).toBe(200);
      await sql(
        db.url,
        `UPDATE machine_authorizations SET expires_at = now() - interval '1 second' WHERE machine_id = $1`,
        ['m-expired'],
      );
      const listed = (await list(admin)).map((r) => r.machine_id);
      expect(listed).toContain('m-waiting');
      for (const gone of ['m-approved', 'm-denied', 'm-consumed', 'm-expired']) expect(listed).not.toContain(gone);
    });
  });

  describe('POST /v1/machine-authorizations/requests/:request_id/resolve', () => {
    it('should approve the selected request by its code, and the machine receives its credential', async () => {
      const { ip, code, deviceCode } = await started('m-approve');
      const { request_id } = await requestOf('m-approve', mia.token);
      const res = await resolveRequest(
        request_id,
        { code: code.toLowerCase().replace('-', ''), action: 'approve' },
        mia.token,
      );
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ code, decision: 'approved' });
      const [row] = await sql<{ decided_by: number; status: string }>(
        db.url,
        'SELECT decided_by, status FROM machine_authorizations WHERE machine_id = $1',
        ['m-approve'],
      );
      expect(row).toEqual({ decided_by: mia.id, status: 'approved' });
      const poll = await pollMachineAuthorization(base, deviceCode, machine('m-approve'), ip);
      expect(poll.status).toBe(200);
      expect(poll.body.token).toEqual(expect.any(String));
      // the same decision again is answered as resolve answers it
      const again = await resolveRequest(request_id, { code, action: 'approve' }, mia.token);
      expect(again.status).toBe(410);
      expect(again.body).toMatchObject({ code: 'authorization_consumed' });
    });

    it('should deny the selected request, and the machine hears the denial', async () => {
      const { ip, code, deviceCode } = await started('m-deny');
      const { request_id } = await requestOf('m-deny');
      const res = await resolveRequest(request_id, { code, action: 'deny' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ code, decision: 'denied' });
      const poll = await pollMachineAuthorization(base, deviceCode, machine('m-deny'), ip);
      expect(poll.body).toMatchObject({ code: 'authorization_denied' });
    });

    it('should refuse a code of another request with 409 authorization_code_mismatch and decide nothing', async () => {
      const one = await started('m-one');
      const two = await started('m-two');
      const { request_id } = await requestOf('m-one');
      for (const action of ['approve', 'deny']) {
        const res = await resolveRequest(request_id, { code: two.code, action });
        expect(res.status).toBe(409);
        expect(res.body).toMatchObject({ code: 'authorization_code_mismatch' });
      }
      const now = await statuses();
      expect(now['m-one']).toBe('pending');
      expect(now['m-two']).toBe('pending');
      const listed = (await list(admin)).map((r) => r.machine_id);
      expect(listed).toEqual(expect.arrayContaining(['m-one', 'm-two']));
      expect(one.code).not.toBe(two.code);
    });

    it('should answer 404 not_found for a gone or unknown request', async () => {
      const expired = await started('m-gone');
      const { request_id } = await requestOf('m-gone');
      await sql(
        db.url,
        `UPDATE machine_authorizations SET expires_at = now() - interval '1 second' WHERE machine_id = $1`,
        ['m-gone'],
      );
      const gone = await resolveRequest(request_id, { code: expired.code, action: 'approve' });
      expect(gone.status).toBe(404);
      expect(gone.body).toMatchObject({ code: 'not_found' });
      await sql(db.url, 'DELETE FROM machine_authorizations WHERE machine_id = $1', ['m-gone']);
      const deleted = await resolveRequest(request_id, { code: expired.code, action: 'approve' });
      expect(deleted.status).toBe(404);
      for (const id of ['mr_' + '0'.repeat(32), 'not-a-request', '42']) {
        const res = await resolveRequest(id, { code: expired.code, action: 'approve' });
        expect(res.status).toBe(404);
        expect(res.body).toMatchObject({ code: 'not_found' });
      }
    });

    it('should refuse an unknown code as resolve does, spending the failed-lookup budget', async () => {
      await started('m-typo');
      const { request_id } = await requestOf('m-typo');
      const actor = await createActor(db.url, { name: 'tess', org: 'default', role: 'member' });
      const res = await resolveRequest(request_id, { code: 'BBBB-BBBB', action: 'approve' }, actor.token);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 'not_found' });
      const [counter] = await sql<{ hits: number }>(
        db.url,
        `SELECT sum(hits)::int AS hits FROM rate_counters WHERE scope = 'machine_auth_lookup_fail_actor' AND subject = $1`,
        [String(actor.id)],
      );
      expect(counter.hits).toBe(1);
      expect((await statuses())['m-typo']).toBe('pending');
    });

    it('should answer a request decided by someone else as resolve does (authorization_claimed)', async () => {
      const { code } = await started('m-claimed');
      const { request_id } = await requestOf('m-claimed', mia.token);
      expect((await resolveMachineAuthorization(base, admin, code, 'approve')).status).toBe(200);
      const res = await resolveRequest(request_id, { code, action: 'approve' }, mia.token);
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'authorization_claimed' });
    });

    it.each([
      ['an unknown action', { code: 'BCDF-GHJK', action: 'maybe' }, 400, 'invalid_request'],
      ['a malformed code', { code: 'nope', action: 'approve' }, 400, 'invalid_request'],
      ['an unknown field', { code: 'BCDF-GHJK', action: 'approve', extra: 1 }, 400, 'invalid_request'],
    ])('should refuse %s and change nothing', async (_what, body, status, code) => {
      await started(`m-bad-${String(status)}-${String(body.action)}`);
      const { request_id } = (await list(admin))[0];
      const before = await statuses();
      const res = await resolveRequest(request_id, body);
      expect(res.status).toBe(status);
      expect(res.body).toMatchObject({ code });
      expect(await statuses()).toEqual(before);
    });

    it('should refuse a non-member and a text/plain body', async () => {
      const { code } = await started('m-outsider');
      const { request_id } = await requestOf('m-outsider');
      const outsider = await resolveRequest(request_id, { code, action: 'approve' }, otto.token);
      expect(outsider.status).toBe(403);
      expect(outsider.body).toMatchObject({ code: 'organization_membership_required' });
      const plain = await http(base, 'POST', `/v1/machine-authorizations/requests/${request_id}/resolve`, {
        raw: JSON.stringify({ code, action: 'approve' }),
        headers: { 'content-type': 'text/plain' },
        token: admin,
      });
      expect(plain.status).toBe(415);
      expect((await statuses())['m-outsider']).toBe('pending');
    });
  });

  // issue 26: a request nobody expected is denied from the list without the code its machine shows
  describe('POST /v1/machine-authorizations/requests/:request_id/deny', () => {
    const deny = (requestId: string, token = admin) =>
      http(base, 'POST', `/v1/machine-authorizations/requests/${requestId}/deny`, { token, clientIp: freshClientIp() });

    it('should deny a listed request without its code, the machine hears the denial, and a second deny is the same answer', async () => {
      const { ip, deviceCode } = await started('m-nocode');
      const { request_id } = await requestOf('m-nocode', mia.token);
      const res = await deny(request_id, mia.token);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ request_id, decision: 'denied' });
      expect((await statuses())['m-nocode']).toBe('denied');
      expect((await list(admin)).map((r) => r.machine_id)).not.toContain('m-nocode');
      const poll = await pollMachineAuthorization(base, deviceCode, machine('m-nocode'), ip);
      expect(poll.body).toMatchObject({ code: 'authorization_denied' });
      expect((await deny(request_id, mia.token)).body).toEqual({ request_id, decision: 'denied' });
      // someone else's decision is theirs
      const other = await deny(request_id, admin);
      expect(other.status).toBe(403);
      expect(other.body).toMatchObject({ code: 'authorization_claimed' });
    });

    it('should refuse a non-member, and answer 404 not_found for a gone or unknown request, changing nothing', async () => {
      await started('m-nocode-2');
      const { request_id } = await requestOf('m-nocode-2');
      const outsider = await deny(request_id, otto.token);
      expect(outsider.status).toBe(403);
      expect(outsider.body).toMatchObject({ code: 'organization_membership_required' });
      for (const id of ['mr_' + '0'.repeat(32), 'not-a-request']) {
        const res = await deny(id);
        expect(res.status).toBe(404);
        expect(res.body).toMatchObject({ code: 'not_found' });
      }
      await sql(
        db.url,
        `UPDATE machine_authorizations SET expires_at = now() - interval '1 second' WHERE machine_id = $1`,
        ['m-nocode-2'],
      );
      const gone = await deny(request_id);
      expect(gone.status).toBe(404);
      expect(gone.body).toMatchObject({ code: 'not_found' });
    });
  });

  describe('change notices on GET /v1/events/stream', () => {
    let streams: OpenedStream[] = [];
    afterEach(async () => {
      await Promise.all(streams.map((s) => s.close()));
      streams = [];
    });

    it('should announce started, decided, consumed and expired to members only', async () => {
      const [adminStream, miaStream, ottoStream] = await Promise.all(
        [admin, mia.token, otto.token].map((token) => openStream(base, token)),
      );
      streams = [adminStream, miaStream, ottoStream];
      // issue 24: an actor with no membership gets no stream at all
      expect(ottoStream.status).toBe(403);
      const notice = (op: string, requestId: string) => (m: { event: string; data: Record<string, unknown> }) =>
        m.event === 'machine_authorization' && m.data.op === op && m.data.request_id === requestId;

      const { ip, code, deviceCode } = await started('m-live');
      const { request_id } = await requestOf('m-live');
      for (const stream of [adminStream, miaStream]) {
        const m = await stream.waitFor(notice('started', request_id));
        expect(m.data).toEqual({ type: 'machine_authorization', op: 'started', request_id, org: 'default' });
        expect(m.id).toBeNull();
      }
      expect((await resolveRequest(request_id, { code, action: 'approve' })).status).toBe(200);
      for (const stream of [adminStream, miaStream]) await stream.waitFor(notice('decided', request_id));
      expect((await pollMachineAuthorization(base, deviceCode, machine('m-live'), ip)).status).toBe(200);
      for (const stream of [adminStream, miaStream]) await stream.waitFor(notice('consumed', request_id));

      // expiry noticed by an update (direct SQL) and by the sweep's delete
      await started('m-expire');
      const expiring = (await requestOf('m-expire')).request_id;
      await sql(
        db.url,
        `UPDATE machine_authorizations SET expires_at = now() - interval '1 second' WHERE machine_id = $1`,
        ['m-expire'],
      );
      await miaStream.waitFor(notice('expired', expiring));
      await started('m-swept');
      const swept = (await requestOf('m-swept')).request_id;
      await sql(db.url, 'DELETE FROM machine_authorizations WHERE machine_id = $1', ['m-swept']);
      await miaStream.waitFor(notice('expired', swept));

      expect(ottoStream.messages).toEqual([]);
    });
  });
});

describe('pending machine requests (hosted)', () => {
  let db: TestDatabase;
  let daemon: DaemonProcess;
  let base: string;
  let ann: TestActor;
  let max: TestActor;
  let bea: TestActor;

  beforeAll(async () => {
    db = await createTestDatabase('server', 'mreq_hosted');
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
    bea = await createActor(db.url, { name: 'bea', org: 'beta', role: 'admin' });
  });

  afterAll(async () => {
    await daemon?.stop();
    await db?.drop();
  });

  async function startAt(prefix: string, machineId: string) {
    const ip = freshClientIp();
    const res = await http<{ device_code: string; user_code: string }>(
      base,
      'POST',
      `${prefix}/api/machine/authorizations`,
      { body: {}, clientIp: ip },
    );
    expect(res.status).toBe(201);
    // the first poll names the machine
    const poll = await http(base, 'POST', `${prefix}/api/machine/authorizations/token`, {
      body: { device_code: res.body.device_code, machine_id: machineId, machine_name: `${machineId} box` },
      clientIp: ip,
    });
    expect(poll.body).toMatchObject({ code: 'authorization_pending' });
    return { ip, code: res.body.user_code, deviceCode: res.body.device_code };
  }

  const listAt = async (prefix: string, token: string) =>
    http<MachineAuthorizationRequestList>(base, 'GET', `${prefix}/v1/machine-authorizations`, { token });

  const machinesOf = (requests: MachineAuthorizationRequest[]) =>
    Object.fromEntries(requests.map((r) => [r.machine_id, r.org]));

  it("should list an organization's requests and unbound ones to its admins only", async () => {
    await startAt('/api/orgs/acme', 'h-acme');
    await startAt('/api/orgs/beta', 'h-beta');
    await startAt('', 'h-unbound');
    const annList = await listAt('', ann.token);
    expect(annList.status).toBe(200);
    expect(machinesOf(annList.body.requests)).toEqual({ 'h-acme': 'acme', 'h-unbound': null });
    expect(machinesOf((await listAt('', bea.token)).body.requests)).toEqual({ 'h-beta': 'beta', 'h-unbound': null });
    expect((await listAt('', max.token)).body.requests).toEqual([]);
    const scoped = await listAt('/api/orgs/acme', ann.token);
    expect(scoped.status).toBe(200);
    expect(machinesOf(scoped.body.requests)).toEqual({ 'h-acme': 'acme', 'h-unbound': null });
    for (const [prefix, token] of [
      ['/api/orgs/acme', max.token],
      ['/api/orgs/beta', ann.token],
    ]) {
      const refused = await listAt(prefix, token);
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ code: 'organization_membership_required' });
    }
  });

  it('should bind an unbound request to the organization it is resolved at, and refuse to guess one', async () => {
    const { code, deviceCode, ip } = await startAt('', 'h-bind');
    const { request_id } = (await listAt('', ann.token)).body.requests.find((r) => r.machine_id === 'h-bind')!;
    const unscoped = await http(base, 'POST', `/v1/machine-authorizations/requests/${request_id}/resolve`, {
      body: { code, action: 'approve' },
      token: ann.token,
      clientIp: freshClientIp(),
    });
    expect(unscoped.status).toBe(400);
    expect(unscoped.body).toMatchObject({ code: 'invalid_request' });
    const scoped = await http(base, 'POST', `/api/orgs/acme/v1/machine-authorizations/requests/${request_id}/resolve`, {
      body: { code, action: 'approve' },
      token: ann.token,
      clientIp: freshClientIp(),
    });
    expect(scoped.status).toBe(200);
    expect(scoped.body).toEqual({ code, decision: 'approved' });
    expect((await listAt('', bea.token)).body.requests.map((r) => r.machine_id)).not.toContain('h-bind');
    const poll = await http(base, 'POST', '/api/machine/authorizations/token', {
      body: { device_code: deviceCode, machine_id: 'h-bind', machine_name: 'h-bind box' },
      clientIp: ip,
    });
    expect(poll.status).toBe(200);
    expect(poll.body).toMatchObject({ org: 'acme' });
  });

  it("should announce an organization's changes to its admins and unbound ones to every admin", async () => {
    const [annStream, beaStream, maxStream] = await Promise.all(
      [ann.token, bea.token, max.token].map((token) => openStream(base, token)),
    );
    try {
      await startAt('/api/orgs/acme', 'h-live-acme');
      await startAt('', 'h-live-unbound');
      const requests = (await listAt('', ann.token)).body.requests;
      const acmeId = requests.find((r) => r.machine_id === 'h-live-acme')!.request_id;
      const unboundId = requests.find((r) => r.machine_id === 'h-live-unbound')!.request_id;
      const started = (id: string) => (m: { event: string; data: Record<string, unknown> }) =>
        m.event === 'machine_authorization' && m.data.request_id === id && m.data.op === 'started';
      expect((await annStream.waitFor(started(acmeId))).data.org).toBe('acme');
      expect((await annStream.waitFor(started(unboundId))).data.org).toBeNull();
      await beaStream.waitFor(started(unboundId));
      await marker(db.url, 'after-hosted');
      for (const stream of [beaStream, maxStream]) await stream.waitFor((m) => m.event === 'marker');
      expect(beaStream.messages.filter((m) => m.data.request_id === acmeId)).toEqual([]);
      expect(maxStream.messages.filter((m) => m.event === 'machine_authorization')).toEqual([]);
    } finally {
      await Promise.all([annStream, beaStream, maxStream].map((s) => s.close()));
    }
  });
});
