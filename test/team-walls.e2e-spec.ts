import { createTestDatabase, DaemonProcess, runSvc, startDaemonProcess, TestDatabase } from '@app/testing';
import { createActor, http, HttpResult, sql, TestActor } from '@app/testing/machine-auth';

// Issue 24, "organizations are walls": an organization admin sees and manages only the actors all of whose
// memberships are in organizations they administer; anyone else answers exactly like a name that does not exist.
jest.setTimeout(120000);

describe('organizations are walls', () => {
  let db: TestDatabase;
  let daemon: DaemonProcess;
  let admin: string;
  // dana: admin of default (not a server admin); mia: member of default (dana's); eve: admin of other;
  // olga: member of default and of other; zed: no membership anywhere.
  let dana: TestActor;
  let mia: TestActor;
  let eve: TestActor;
  let olga: TestActor;

  const call = <T = Record<string, unknown>>(token: string, method: string, path: string, body?: unknown) =>
    http<T>(daemon.url, method, path, { token, body });

  // The same 404 for a name outside the caller's view as for a name that does not exist: same status, same code,
  // the same message once the name is replaced.
  function expectSameNotFound(outside: HttpResult, outsideName: string, unknown: HttpResult, unknownName: string) {
    expect(outside.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(outside.body).toEqual({ code: 'not_found', message: expect.stringContaining(outsideName) });
    expect(outside.text.split(outsideName).join('<name>')).toBe(unknown.text.split(unknownName).join('<name>'));
  }

  const membershipsOf = async (name: string) =>
    (
      await sql<{ slug: string }>(
        db.url,
        `SELECT o.slug FROM memberships m JOIN organizations o ON o.id = m.organization_id
           JOIN actors a ON a.id = m.actor_id WHERE a.name = $1 ORDER BY o.slug`,
        [name],
      )
    ).map((r) => r.slug);

  const tokenCount = async (name: string) =>
    Number(
      (
        await sql<{ n: string }>(
          db.url,
          'SELECT count(*) AS n FROM api_tokens t JOIN actors a ON a.id = t.actor_id WHERE a.name = $1',
          [name],
        )
      )[0].n,
    );

  beforeAll(async () => {
    db = await createTestDatabase('server', 'team_walls');
    daemon = await startDaemonProcess({
      env: { SVC_DATABASE_URL: db.url, SVC_SERVER_SECRET: 'e2e-team-walls-secret-0123456789abcdef' },
    });
    admin = daemon.token!;
    dana = await createActor(db.url, { name: 'dana', org: 'default', role: 'admin' });
    mia = await createActor(db.url, { name: 'mia', org: 'default' });
    eve = await createActor(db.url, { name: 'eve', org: 'other', role: 'admin' });
    olga = await createActor(db.url, { name: 'olga', org: 'other' });
    await sql(
      db.url,
      `INSERT INTO memberships (organization_id, actor_id, role, status)
       SELECT id, $1, 'member', 'active' FROM organizations WHERE slug = 'default'`,
      [olga.id],
    );
    await createActor(db.url, { name: 'zed', membership: null });
  });

  afterAll(async () => {
    await daemon?.stop();
    await db?.drop();
  });

  it("should refuse an organization admin adding another organization's admin, as if she did not exist", async () => {
    const added = await call(dana.token, 'POST', '/v1/members', { actor: 'eve' });
    const unknown = await call(dana.token, 'POST', '/v1/members', { actor: 'nobody' });
    expectSameNotFound(added, 'eve', unknown, 'nobody');
    expect(added.body).toEqual({ code: 'not_found', message: 'actor eve not found' });
    const asAdmin = await call(dana.token, 'POST', '/v1/members', { actor: 'eve', role: 'admin' });
    expect(asAdmin.status).toBe(404);
    // someone who also belongs elsewhere, someone who belongs nowhere, and the server admin: all outside her view
    for (const name of ['olga', 'zed', 'admin']) {
      expectSameNotFound(await call(dana.token, 'POST', '/v1/members', { actor: name }), name, unknown, 'nobody');
    }
    expect(await membershipsOf('eve')).toEqual(['other']);
    expect(await membershipsOf('zed')).toEqual([]);
  });

  it('should refuse minting a token for someone outside her view', async () => {
    for (const name of ['eve', 'olga', 'zed', 'admin']) {
      const minted = await call(dana.token, 'POST', '/v1/tokens', { actor: name, name: 'takeover' });
      const unknown = await call(dana.token, 'POST', '/v1/tokens', { actor: 'nobody', name: 'takeover' });
      expectSameNotFound(minted, name, unknown, 'nobody');
    }
    expect(await tokenCount('eve')).toBe(1);
    expect(await sql(db.url, `SELECT 1 FROM api_tokens WHERE name = 'takeover'`, []).then((rows) => rows.length)).toBe(
      0,
    );
    // her own member: allowed
    const forMia = await call<{ actor: string }>(dana.token, 'POST', '/v1/tokens', { actor: 'mia', name: 'ok' });
    expect(forMia.status).toBe(201);
    expect(forMia.body.actor).toBe('mia');
  });

  it("should refuse disabling or enabling another organization's admin", async () => {
    for (const action of ['disable', 'enable']) {
      for (const name of ['eve', 'olga', 'admin']) {
        const changed = await call(dana.token, 'POST', `/v1/actors/${name}/${action}`);
        const unknown = await call(dana.token, 'POST', `/v1/actors/nobody/${action}`);
        expectSameNotFound(changed, name, unknown, 'nobody');
      }
    }
    const [row] = await sql<{ status: string }>(db.url, `SELECT status FROM actors WHERE name = 'eve'`);
    expect(row.status).toBe('active');
    expect((await call(eve.token, 'GET', '/v1/whoami')).status).toBe(200);
  });

  it('should show her only the actors in her view', async () => {
    for (const name of ['eve', 'olga', 'zed', 'admin']) {
      expectSameNotFound(
        await call(dana.token, 'GET', `/v1/actors/${name}`),
        name,
        await call(dana.token, 'GET', '/v1/actors/nobody'),
        'nobody',
      );
      expectSameNotFound(
        await call(dana.token, 'GET', `/v1/tokens?actor=${name}`),
        name,
        await call(dana.token, 'GET', '/v1/tokens?actor=nobody'),
        'nobody',
      );
    }
    const listed = await call<{ actors: { name: string }[] }>(dana.token, 'GET', '/v1/actors');
    expect(listed.body.actors.map((a) => a.name)).toEqual(['dana', 'mia']);
    expect((await call(dana.token, 'GET', '/v1/actors/mia')).status).toBe(200);
  });

  it("should not list the server admin's or other organizations' tokens in tokens?all=true", async () => {
    const all = await call<{ tokens: { actor: string; name: string }[] }>(
      dana.token,
      'GET',
      '/v1/tokens?all=true&include_revoked=true',
    );
    expect(all.status).toBe(200);
    expect([...new Set(all.body.tokens.map((t) => t.actor))].sort()).toEqual(['dana', 'mia']);
    expect(all.body.tokens.map((t) => t.name)).not.toContain('first-boot admin');
    // a member with ?all sees only her own
    const own = await call<{ tokens: { actor: string }[] }>(mia.token, 'GET', '/v1/tokens?all=true');
    expect([...new Set(own.body.tokens.map((t) => t.actor))]).toEqual(['mia']);
  });

  it("should answer a revocation of someone else's token like an unknown token id", async () => {
    const [eveToken] = await sql<{ id: number }>(
      db.url,
      `SELECT t.id FROM api_tokens t JOIN actors a ON a.id = t.actor_id WHERE a.name = 'eve'`,
    );
    const [adminToken] = await sql<{ id: number }>(db.url, `SELECT id FROM api_tokens WHERE name = 'first-boot admin'`);
    for (const id of [eveToken.id, adminToken.id]) {
      const revoked = await call(dana.token, 'POST', `/v1/tokens/${id}/revoke`);
      expectSameNotFound(revoked, String(id), await call(dana.token, 'POST', '/v1/tokens/999999/revoke'), '999999');
    }
    expect((await call(eve.token, 'GET', '/v1/whoami')).status).toBe(200);
    expect((await call(admin, 'GET', '/v1/whoami')).status).toBe(200);
  });

  it('should not tell an organization admin where a taken name is used', async () => {
    const elsewhere = await call(dana.token, 'POST', '/v1/actors', { name: 'eve' });
    const mine = await call(dana.token, 'POST', '/v1/actors', { name: 'mia' });
    expect(elsewhere.status).toBe(409);
    expect(elsewhere.body).toEqual({
      code: 'name_unavailable',
      message: 'the name eve is not available; choose another',
    });
    expect(mine.text.split('mia').join('<name>')).toBe(elsewhere.text.split('eve').join('<name>'));
    const byServerAdmin = await call(admin, 'POST', '/v1/actors', { name: 'eve' });
    expect(byServerAdmin.status).toBe(409);
    expect(byServerAdmin.body).toMatchObject({ code: 'actor_exists' });
  });

  it('should let her take a member out of her own organization, but not touch other organizations', async () => {
    const unknownOrg = await call(dana.token, 'POST', '/v1/members', { actor: 'mia', org: 'nope' });
    const otherOrg = await call(dana.token, 'POST', '/v1/members', { actor: 'mia', org: 'other' });
    expectSameNotFound(otherOrg, 'other', unknownOrg, 'nope');
    expect(otherOrg.body).toEqual({ code: 'not_found', message: 'organization other not found' });
    const removeOther = await call(dana.token, 'POST', '/v1/members/remove', { actor: 'eve', org: 'other' });
    expect(removeOther.status).toBe(404);
    expect(await membershipsOf('mia')).toEqual(['default']);
    // olga also belongs to other: dana may still take her out of default, never out of other
    expect((await call(dana.token, 'POST', '/v1/members/remove', { actor: 'olga' })).status).toBe(200);
    expect(await membershipsOf('olga')).toEqual(['other']);
    // the server admin is a member of default but is not hers to remove
    const removeAdmin = await call(dana.token, 'POST', '/v1/members/remove', { actor: 'admin' });
    expectSameNotFound(
      removeAdmin,
      'admin',
      await call(dana.token, 'POST', '/v1/members/remove', { actor: 'nobody' }),
      'nobody',
    );
    expect(await membershipsOf('admin')).toEqual(['default']);
  });

  it('should let the server admin do all of it', async () => {
    const added = await call(admin, 'POST', '/v1/members', { actor: 'eve', org: 'default' });
    expect(added.status).toBe(201);
    expect(await membershipsOf('eve')).toEqual(['default', 'other']);
    const minted = await call<{ token: string }>(admin, 'POST', '/v1/tokens', { actor: 'eve', name: 'by-admin' });
    expect(minted.status).toBe(201);
    expect((await call<{ name: string }>(minted.body.token, 'GET', '/v1/whoami')).body.name).toBe('eve');
    expect((await call(admin, 'POST', '/v1/actors/eve/disable')).status).toBe(200);
    expect((await call(eve.token, 'GET', '/v1/whoami')).status).toBe(403);
    expect((await call(admin, 'POST', '/v1/actors/eve/enable')).status).toBe(200);
    expect((await call(admin, 'GET', '/v1/actors/zed')).status).toBe(200);
    const all = await call<{ tokens: { actor: string }[] }>(admin, 'GET', '/v1/tokens?all=true');
    expect(new Set(all.body.tokens.map((t) => t.actor))).toEqual(
      new Set(['admin', 'dana', 'eve', 'mia', 'olga', 'zed']),
    );
    // eve now belongs to default too: still outside dana's view (she also belongs to other)
    expect((await call(dana.token, 'GET', '/v1/actors/eve')).status).toBe(404);
    expect((await call(admin, 'POST', '/v1/members/remove', { actor: 'eve', org: 'default' })).status).toBe(200);
  });

  describe('organizations API', () => {
    it('should let only a server admin create organizations, and show others only their own', async () => {
      const created = await call(admin, 'POST', '/v1/orgs', { slug: 'acme', name: 'Acme Inc' });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        slug: 'acme',
        name: 'Acme Inc',
        member_count: 0,
        admin_count: 0,
        role: null,
      });
      expect((await call(admin, 'POST', '/v1/orgs', { slug: 'acme' })).body).toMatchObject({
        code: 'organization_exists',
      });
      expect((await call(admin, 'POST', '/v1/orgs', { slug: 'Not A Slug' })).status).toBe(400);
      const refused = await call(dana.token, 'POST', '/v1/orgs', { slug: 'dana-co' });
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ code: 'forbidden' });

      const all = await call<{ organizations: { slug: string }[] }>(admin, 'GET', '/v1/orgs');
      expect(all.body.organizations.map((o) => o.slug)).toEqual(['acme', 'default', 'other']);
      const hers = await call<{ organizations: { slug: string; role: string }[] }>(dana.token, 'GET', '/v1/orgs');
      expect(hers.body.organizations).toEqual([expect.objectContaining({ slug: 'default', role: 'admin' })]);

      const shown = await call<{ members: { actor: string }[]; member_count: number }>(
        dana.token,
        'GET',
        '/v1/orgs/default',
      );
      expect(shown.status).toBe(200);
      expect(shown.body.members.map((m) => m.actor)).toEqual(['admin', 'dana', 'mia']);
      expect(shown.body.member_count).toBe(3);
      expectSameNotFound(
        await call(dana.token, 'GET', '/v1/orgs/other'),
        'other',
        await call(dana.token, 'GET', '/v1/orgs/nope'),
        'nope',
      );
      expect((await call(admin, 'GET', '/v1/orgs/other')).status).toBe(200);
    });

    it('should create, list and show organizations from the command line', async () => {
      const env = { SVC_URL: daemon.url, SVC_TOKEN: admin, SVC_CONFIG_DIR: daemon.configDir };
      const created = await runSvc(['orgs', 'create', 'globex', '--name', 'Globex'], { env });
      expect(created.code).toBe(0);
      expect(created.stdout).toContain('created organization globex');
      const again = await runSvc(['orgs', 'create', 'globex'], { env });
      expect(again.code).toBe(1);
      expect(again.stderr).toContain('organization_exists');
      expect((await runSvc(['members', 'add', 'zed', '--role', 'admin', '--org', 'globex'], { env })).code).toBe(0);

      const listed = await runSvc(['orgs', 'list'], { env });
      expect(listed.code).toBe(0);
      expect(listed.stdout).toMatch(/slug.*name.*members.*admins/);
      expect(listed.stdout).toMatch(/globex\s+│?\s*Globex\s+│?\s*1\s+│?\s*1/);
      const json = JSON.parse((await runSvc(['orgs', 'list', '--json'], { env })).stdout) as {
        organizations: { slug: string; member_count: number }[];
      };
      expect(json.organizations.map((o) => o.slug)).toEqual(['acme', 'default', 'globex', 'other']);

      const shown = await runSvc(['orgs', 'show', 'globex'], { env });
      expect(shown.code).toBe(0);
      expect(shown.stdout).toMatch(/organization\s+globex/);
      expect(shown.stdout).toMatch(/zed\s+│?\s*admin/);
      expect(JSON.parse((await runSvc(['orgs', 'show', 'globex', '--json'], { env })).stdout)).toMatchObject({
        slug: 'globex',
        name: 'Globex',
        member_count: 1,
        admin_count: 1,
        members: [{ org: 'globex', actor: 'zed', role: 'admin', status: 'active' }],
      });

      const danaEnv = { ...env, SVC_TOKEN: dana.token };
      const refused = await runSvc(['orgs', 'create', 'dana-co'], { env: danaEnv });
      expect(refused.code).toBe(3);
      expect(refused.stderr).toContain('forbidden');
      const hidden = await runSvc(['orgs', 'show', 'globex'], { env: danaEnv });
      expect(hidden.code).toBe(1);
      expect(hidden.stderr).toContain('not_found');
      const hers = JSON.parse((await runSvc(['orgs', 'list', '--json'], { env: danaEnv })).stdout) as {
        organizations: { slug: string }[];
      };
      expect(hers.organizations.map((o) => o.slug)).toEqual(['default']);
    });
  });
});

// The same steps through the hosted organization paths, where a takeover made the attacker an admin of the other
// organization: refused the same way.
describe('organizations are walls (hosted)', () => {
  let db: TestDatabase;
  let daemon: DaemonProcess;
  let dana: TestActor;
  let eve: TestActor;

  beforeAll(async () => {
    db = await createTestDatabase('server', 'team_walls_hosted');
    daemon = await startDaemonProcess({
      env: {
        SVC_DATABASE_URL: db.url,
        SVC_SERVER_SECRET: 'e2e-team-walls-hosted-0123456789abcdef',
        SVC_MODE: 'hosted',
        SVC_API_TRUSTED_PROXIES: '127.0.0.1',
      },
    });
    dana = await createActor(db.url, { name: 'dana', org: 'acme', role: 'admin' });
    eve = await createActor(db.url, { name: 'eve', org: 'beta', role: 'admin' });
  });

  afterAll(async () => {
    await daemon?.stop();
    await db?.drop();
  });

  it("should refuse an organization admin making another organization's admin hers", async () => {
    const at = (path: string, body: unknown) =>
      http(daemon.url, 'POST', `/api/orgs/acme${path}`, { token: dana.token, body });
    const added = await at('/v1/members', { actor: 'eve', role: 'admin' });
    const unknown = await at('/v1/members', { actor: 'nobody', role: 'admin' });
    expect(added.status).toBe(404);
    expect(added.text.split('eve').join('<name>')).toBe(unknown.text.split('nobody').join('<name>'));
    const minted = await at('/v1/tokens', { actor: 'eve' });
    expect(minted.status).toBe(404);
    expect(minted.body).toEqual({ code: 'not_found', message: 'actor eve not found' });
    expect((await at('/v1/members', { actor: 'eve', org: 'beta', role: 'admin' })).status).toBe(404);
    const rows = await sql<{ slug: string; role: string }>(
      db.url,
      `SELECT o.slug, m.role FROM memberships m JOIN organizations o ON o.id = m.organization_id
        WHERE m.actor_id = $1 ORDER BY o.slug`,
      [eve.id],
    );
    expect(rows).toEqual([{ slug: 'beta', role: 'admin' }]);
    const members = await sql(
      db.url,
      `SELECT 1 FROM memberships m JOIN organizations o ON o.id = m.organization_id
        WHERE o.slug = 'beta' AND m.actor_id = $1`,
      [dana.id],
    );
    expect(members).toEqual([]);
  });
});
