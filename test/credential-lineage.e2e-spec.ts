import { createTestDatabase, DaemonProcess, runSvc, startDaemonProcess, TestDatabase } from '@app/testing';
import {
  createActor,
  http,
  pollMachineAuthorization,
  resolveMachineAuthorization,
  sql,
  startMachineAuthorization,
  TestActor,
} from '@app/testing/machine-auth';

// Issue 24, "credential lineage": a token minted by a credential records it, expires no later than it, and is
// revoked with it (transitively), whichever way the parent is revoked.
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

  // A machine of mia's, approved the way `svc connect` is: returns its machine credential.
  async function approveMachine(machine: { id: string; name: string }): Promise<string> {
    const started = await startMachineAuthorization(daemon.url, machine);
    expect(started.status).toBe(201);
    expect((await resolveMachineAuthorization(daemon.url, mia.token, started.body.user_code, 'approve')).status).toBe(
      200,
    );
    const poll = await pollMachineAuthorization(daemon.url, started.body.device_code, machine);
    expect(poll.status).toBe(200);
    return (poll.body as { token: string }).token;
  }

  beforeAll(async () => {
    db = await createTestDatabase('server', 'credential_lineage');
    daemon = await startDaemonProcess({
      env: { SVC_DATABASE_URL: db.url, SVC_SERVER_SECRET: 'e2e-credential-lineage-secret-0123456789ab' },
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
});
