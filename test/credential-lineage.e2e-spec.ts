import { createTestDatabase, DaemonProcess, runSvc, startDaemonProcess, TestDatabase } from '@app/testing';
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

// Issue 24, "credential lineage": a token minted by a credential records it, expires no later than it, and is
// revoked with it (transitively), whichever way the parent is revoked. Issue 36: so is a machine credential approved
// with a credential (an API token, another machine's credential, the approval page's token sign-in), and what it
// mints.
jest.setTimeout(120000);

interface Minted {
  token_id: number;
  token: string;
  actor: string;
  expires_at: string | null;
  parent_token_id: number | null;
  parent_machine_id: string | null;
}

describe('credential lineage', () => {
  let db: TestDatabase;
  let daemon: DaemonProcess;
  let mia: TestActor;

  const mint = (parent: string, body: Record<string, unknown> = {}) =>
    http<Minted>(daemon.url, 'POST', '/v1/tokens', { token: parent, body: { name: 'child', ...body } });
  const whoami = async (token: string) => (await http(daemon.url, 'GET', '/v1/whoami', { token })).status;

  // A machine of mia's, approved the way `svc connect` is (with mia's token unless another credential is given):
  // returns its machine credential.
  async function approveMachine(machine: { id: string; name: string }, approver = mia.token): Promise<string> {
    const ip = freshClientIp();
    const started = await startMachineAuthorization(daemon.url, machine, ip);
    expect(started.status).toBe(201);
    expect(
      (await resolveMachineAuthorization(daemon.url, approver, started.body.user_code, 'approve', ip)).status,
    ).toBe(200);
    const poll = await pollMachineAuthorization(daemon.url, started.body.device_code, machine, ip);
    expect(poll.status).toBe(200);
    return (poll.body as { token: string }).token;
  }

  const machineRow = async (machineId: string) =>
    (
      await sql<{ expires_at: Date | null; revoked_at: Date | null }>(
        db.url,
        'SELECT expires_at, revoked_at FROM machine_credentials WHERE machine_id = $1 ORDER BY id DESC LIMIT 1',
        [machineId],
      )
    )[0];

  beforeAll(async () => {
    db = await createTestDatabase('server', 'credential_lineage');
    daemon = await startDaemonProcess({
      env: {
        SVC_DATABASE_URL: db.url,
        SVC_SERVER_SECRET: 'e2e-credential-lineage-secret-0123456789ab',
        SVC_API_TRUSTED_PROXIES: '127.0.0.1,::1',
      },
    });
    mia = await createActor(db.url, { name: 'mia', org: 'default' });
  });

  afterAll(async () => {
    await daemon?.stop();
    await db?.drop();
  });

  it('should cap what a one-hour token mints at its own expiry, and record the parent', async () => {
    const hour = await mint(mia.token, { expires_in: 3600 });
    expect(hour.status).toBe(201);
    expect(hour.body.expires_at).not.toBeNull();
    const forever = await mint(hour.body.token);
    expect(forever.status).toBe(201);
    expect(forever.body.expires_at).toBe(hour.body.expires_at);
    expect(forever.body.parent_token_id).toBe(hour.body.token_id);
    const tenYears = await mint(hour.body.token, { expires_in: 10 * 365 * 24 * 3600 });
    expect(tenYears.body.expires_at).toBe(hour.body.expires_at);
    // a shorter lifetime than the parent's stays as asked
    const minute = await mint(hour.body.token, { expires_in: 60 });
    expect(Date.parse(minute.body.expires_at!)).toBeLessThan(Date.parse(hour.body.expires_at!));
    const [row] = await sql<{ expires_at: Date; parent_token_id: number }>(
      db.url,
      'SELECT expires_at, parent_token_id FROM api_tokens WHERE id = $1',
      [forever.body.token_id],
    );
    expect(row.expires_at.toISOString()).toBe(hour.body.expires_at);
    expect(row.parent_token_id).toBe(hour.body.token_id);

    // the command line says when the lifetime was capped, and which credential minted a token
    const env = { SVC_URL: daemon.url, SVC_TOKEN: hour.body.token, SVC_CONFIG_DIR: daemon.configDir };
    const cli = await runSvc(['tokens', 'create', '--name', 'cli-child', '--expires-in', '90d', '--json'], { env });
    expect(cli.code).toBe(0);
    expect(JSON.parse(cli.stdout)).toMatchObject({ expires_at: hour.body.expires_at });
    const text = await runSvc(['tokens', 'create', '--name', 'cli-child-2', '--expires-in', '90d'], { env });
    expect(text.stderr).toContain('capped at the expiry of the credential that created it');
    const listed = await runSvc(['--wide', 'tokens', 'list'], { env: { ...env, SVC_TOKEN: mia.token } });
    expect(listed.stdout).toMatch(/cli-child .*token #\d+/);
  });

  it('should revoke what a token minted, transitively, when it is revoked', async () => {
    const parent = await mint(mia.token, { name: 'parent' });
    const child = await mint(parent.body.token);
    const grandchild = await mint(child.body.token);
    const sibling = await mint(mia.token, { name: 'sibling' });
    expect([await whoami(child.body.token), await whoami(grandchild.body.token)]).toEqual([200, 200]);

    const revoked = await http(daemon.url, 'POST', `/v1/tokens/${parent.body.token_id}/revoke`, { token: mia.token });
    expect(revoked.status).toBe(200);
    expect(await whoami(parent.body.token)).toBe(401);
    expect(await whoami(child.body.token)).toBe(401);
    expect(await whoami(grandchild.body.token)).toBe(401);
    expect(await whoami(sibling.body.token)).toBe(200);
    expect(await whoami(mia.token)).toBe(200);
    // a revoked credential mints nothing
    expect((await mint(parent.body.token)).status).toBe(401);
  });

  it("should revoke what a server admin minted for someone else with the admin's token", async () => {
    const adminSecond = await mint(daemon.token!, { name: 'admin-ci' });
    const forMia = await mint(adminSecond.body.token, { actor: 'mia', name: 'from-admin' });
    expect(forMia.status).toBe(201);
    expect(forMia.body).toMatchObject({ actor: 'mia', parent_token_id: adminSecond.body.token_id });
    expect(await whoami(forMia.body.token)).toBe(200);
    await http(daemon.url, 'POST', `/v1/tokens/${adminSecond.body.token_id}/revoke`, { token: daemon.token! });
    expect(await whoami(forMia.body.token)).toBe(401);
  });

  it('should revoke what a machine credential minted when the machine is revoked', async () => {
    const machine = { id: 'mia-laptop-id', name: 'mia-laptop' };
    const credential = await approveMachine(machine);
    const minted = await mint(credential, { name: 'from-machine' });
    expect(minted.status).toBe(201);
    expect(minted.body).toMatchObject({ expires_at: null, parent_token_id: null, parent_machine_id: machine.id });
    const grandchild = await mint(minted.body.token);
    expect(await whoami(minted.body.token)).toBe(200);
    // both stay confined to the machine's organization
    const confined = await sql<{ id: number; org: string }>(
      db.url,
      `SELECT t.id, o.slug AS org FROM api_tokens t JOIN organizations o ON o.id = t.organization_id
        WHERE t.id = ANY($1::int[]) ORDER BY t.id`,
      [[minted.body.token_id, grandchild.body.token_id]],
    );
    expect(confined.map((r) => r.org)).toEqual(['default', 'default']);

    const revoked = await http(daemon.url, 'POST', '/v1/machines/revoke', {
      token: mia.token,
      body: { machine_id: machine.id },
    });
    expect(revoked.status).toBe(200);
    expect(await whoami(credential)).toBe(401);
    expect(await whoami(minted.body.token)).toBe(401);
    expect(await whoami(grandchild.body.token)).toBe(401);
    expect(await whoami(mia.token)).toBe(200);
  });

  it("should confine what a machine credential minted to the machine's organization", async () => {
    // mia also belongs to `side`, which has a project of its own: her own token sees both.
    await sql(db.url, `INSERT INTO organizations (slug, name) VALUES ('side', 'side') ON CONFLICT DO NOTHING`);
    await sql(
      db.url,
      `INSERT INTO memberships (organization_id, actor_id, role, status)
       SELECT o.id, $1, 'member', 'active' FROM organizations o WHERE o.slug = 'side'`,
      [mia.id],
    );
    await sql(
      db.url,
      `INSERT INTO projects (id, name, public_item_prefix, policy, organization_id)
       SELECT 'sidecar', 'sidecar', 'SIDE', '{}'::jsonb, id FROM organizations WHERE slug = 'side'`,
    );
    const listed = async (token: string) =>
      (await http<{ projects: { id: string }[] }>(daemon.url, 'GET', '/v1/projects', { token })).body.projects.map(
        (p) => p.id,
      );
    expect(await listed(mia.token)).toContain('sidecar');
    const credential = await approveMachine({ id: 'mia-desk-id', name: 'mia-desk' });
    const minted = await mint(credential, { name: 'from-desk' });
    expect(minted.status).toBe(201);
    expect(await listed(credential)).not.toContain('sidecar');
    expect(await listed(minted.body.token)).not.toContain('sidecar');
    const read = await http(daemon.url, 'GET', '/v1/projects/sidecar', { token: minted.body.token });
    expect(read.status).toBe(404);
  });

  it("should revoke what a machine credential minted when the machine's approval rotates it", async () => {
    const machine = { id: 'mia-desktop-id', name: 'mia-desktop' };
    const first = await approveMachine(machine);
    const minted = await mint(first, { name: 'from-old-credential' });
    expect(await whoami(minted.body.token)).toBe(200);
    const second = await approveMachine(machine);
    expect(await whoami(first)).toBe(401);
    expect(await whoami(minted.body.token)).toBe(401);
    expect(await whoami(second)).toBe(200);
  });

  describe('through device codes (issue 36)', () => {
    it('should make a machine approved with a 120-second token expire with it, and what it mints too', async () => {
      const short = await mint(mia.token, { name: 'short', expires_in: 120 });
      expect(short.status).toBe(201);
      const machine = { id: 'mia-short-id', name: 'mia-short' };
      const credential = await approveMachine(machine, short.body.token);
      expect((await machineRow(machine.id)).expires_at?.toISOString()).toBe(short.body.expires_at);
      const minted = await mint(credential, { name: 'from-short-machine' });
      expect(minted.status).toBe(201);
      expect(minted.body.expires_at).toBe(short.body.expires_at);
      const asked = await mint(credential, { name: 'asks-a-year', expires_in: 365 * 24 * 3600 });
      expect(asked.body.expires_at).toBe(short.body.expires_at);
      // the machine list shows when it expires
      const listed = await http<{ machines: { machine_id: string; expires_at: string | null }[] }>(
        daemon.url,
        'GET',
        '/v1/machines',
        { token: mia.token },
      );
      expect(listed.body.machines.find((m) => m.machine_id === machine.id)?.expires_at).toBe(short.body.expires_at);
      // past its expiry the credential is refused
      expect(await whoami(credential)).toBe(200);
      await sql(
        db.url,
        `UPDATE machine_credentials SET expires_at = now() - interval '1 second' WHERE machine_id = $1`,
        [machine.id],
      );
      expect(await whoami(credential)).toBe(401);
      expect((await mint(credential)).status).toBe(401);
    });

    it('should revoke a machine approved with a token, and what it minted, when the token is revoked', async () => {
      const approving = await mint(mia.token, { name: 'approver', expires_in: 120 });
      const machine = { id: 'mia-revoked-approver-id', name: 'mia-revoked-approver' };
      const credential = await approveMachine(machine, approving.body.token);
      const minted = await mint(credential, { name: 'from-machine' });
      const grandchild = await mint(minted.body.token);
      expect([await whoami(credential), await whoami(minted.body.token), await whoami(grandchild.body.token)]).toEqual([
        200, 200, 200,
      ]);
      const revoked = await http(daemon.url, 'POST', `/v1/tokens/${approving.body.token_id}/revoke`, {
        token: mia.token,
      });
      expect(revoked.status).toBe(200);
      expect(await whoami(credential)).toBe(401);
      expect(await whoami(minted.body.token)).toBe(401);
      expect(await whoami(grandchild.body.token)).toBe(401);
      expect((await mint(credential)).status).toBe(401);
      expect((await machineRow(machine.id)).revoked_at).not.toBeNull();
      expect(await whoami(mia.token)).toBe(200);
    });

    it('should revoke a machine approved by another machine when that one is revoked', async () => {
      const first = { id: 'mia-first-id', name: 'mia-first' };
      const second = { id: 'mia-second-id', name: 'mia-second' };
      const firstCredential = await approveMachine(first);
      const secondCredential = await approveMachine(second, firstCredential);
      const minted = await mint(secondCredential, { name: 'from-second' });
      expect([await whoami(secondCredential), await whoami(minted.body.token)]).toEqual([200, 200]);
      const revoked = await http(daemon.url, 'POST', '/v1/machines/revoke', {
        token: mia.token,
        body: { machine_id: first.id },
      });
      expect(revoked.status).toBe(200);
      expect(await whoami(firstCredential)).toBe(401);
      expect(await whoami(secondCredential)).toBe(401);
      expect(await whoami(minted.body.token)).toBe(401);
      expect(await whoami(mia.token)).toBe(200);
    });

    it('should issue no credential when the approving token is revoked before the machine polls', async () => {
      const approving = await mint(mia.token, { name: 'gone-before-poll' });
      const machine = { id: 'mia-late-poll-id', name: 'mia-late-poll' };
      const ip = freshClientIp();
      const started = await startMachineAuthorization(daemon.url, machine, ip);
      const resolved = await resolveMachineAuthorization(
        daemon.url,
        approving.body.token,
        started.body.user_code,
        'approve',
        ip,
      );
      expect(resolved.status).toBe(200);
      await http(daemon.url, 'POST', `/v1/tokens/${approving.body.token_id}/revoke`, { token: mia.token });
      const poll = await pollMachineAuthorization(daemon.url, started.body.device_code, machine, ip);
      expect(poll.status).toBe(409);
      expect(poll.body).toMatchObject({ code: 'machine_credential_refused' });
      expect(await sql(db.url, 'SELECT 1 FROM machine_credentials WHERE machine_id = $1', [machine.id])).toEqual([]);
    });

    it('should make a machine approved on the approval page expire and be revoked with the sign-in token', async () => {
      const signInToken = await mint(mia.token, { name: 'page-sign-in', expires_in: 600 });
      const machine = { id: 'mia-page-id', name: 'mia-page' };
      const ip = freshClientIp();
      const started = await startMachineAuthorization(daemon.url, machine, ip);
      const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
      const headers = { 'content-type': 'application/x-www-form-urlencoded', origin: daemon.url };
      const signIn = await http(daemon.url, 'POST', '/machine-approval/session', {
        raw: form({ token: signInToken.body.token, code: started.body.user_code }),
        headers,
      });
      expect(signIn.status).toBe(303);
      const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0];
      const page = await http(daemon.url, 'GET', `/machine-approval/${started.body.user_code}`, {
        headers: { cookie },
      });
      const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)![1];
      const decided = await http(daemon.url, 'POST', `/machine-approval/${started.body.user_code}/decision`, {
        raw: form({ action: 'approve', csrf }),
        headers: { ...headers, cookie },
      });
      expect(decided.status).toBe(200);
      const poll = await pollMachineAuthorization(daemon.url, started.body.device_code, machine, ip);
      expect(poll.status).toBe(200);
      const credential = (poll.body as { token: string }).token;
      expect((await machineRow(machine.id)).expires_at?.toISOString()).toBe(signInToken.body.expires_at);
      expect(await whoami(credential)).toBe(200);
      await http(daemon.url, 'POST', `/v1/tokens/${signInToken.body.token_id}/revoke`, { token: mia.token });
      expect(await whoami(credential)).toBe(401);
    });
  });
});
