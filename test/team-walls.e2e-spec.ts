import { createTestDatabase, DaemonProcess, runSvc, startDaemonProcess, TestDatabase } from '@app/testing';
import { createActor, http, HttpResult, sql, TestActor } from '@app/testing/machine-auth';

import { machineTokenFor } from './support/authorization-matrix';

// Issue 24, "organizations are walls": an organization admin sees and manages only the actors all of whose
// memberships are in organizations they administer; anyone else answers exactly like a name that does not exist.
// Records are walled too: an ouroboros entry belongs to the organization it was written in, and an admin's listing of
// verdicts and dispositions stays inside the organization the request is confined to.
jest.setTimeout(120000);

// A machine credential approved for `org`, of the named actor: its bearer token.
async function machineOf(url: string, actor: string, org: string, machineId: string): Promise<string> {
  const made = machineTokenFor();
  await sql(
    url,
    `INSERT INTO machine_credentials (machine_id, machine_name, actor_id, organization_id, token_hash, token_prefix)
     SELECT $1, 'box', a.id, o.id, $2, 'svcm_x' FROM actors a, organizations o WHERE a.name = $3 AND o.slug = $4`,
    [machineId, made.hash, actor, org],
  );
  return made.token;
}

interface Entry {
  id: number;
  organization: string;
  body: string;
  reviewed_at: string | null;
  archived_at: string | null;
}

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

  // By now: mia is a member of default, dana its admin; eve belongs to other only, and so does olga (taken out of
  // default above); zed belongs nowhere.
  describe('ouroboros entries', () => {
    const entries = async (token: string, query = '?category=walls') => {
      const res = await call<{ entries: Entry[] }>(token, 'GET', `/v1/records/ouroboros${query}`);
      expect(res.status).toBe(200);
      return res.body.entries.map((e) => `${e.organization}:${e.body}`);
    };
    const write = (token: string, body: string) =>
      call<Entry>(token, 'POST', '/v1/records/ouroboros', { agent: 'walls', category: 'walls', body });

    it('should keep an entry inside the organization it was written in, answering others as if it did not exist', async () => {
      const mine = await write(mia.token, 'default secret');
      expect(mine.status).toBe(201);
      expect(mine.body.organization).toBe('default');
      const theirs = await write(eve.token, 'other secret');
      expect(theirs.status).toBe(201);
      expect(theirs.body.organization).toBe('other');

      expect(await entries(mia.token)).toEqual(['default:default secret']);
      expect(await entries(dana.token)).toEqual(['default:default secret']);
      expect(await entries(eve.token)).toEqual(['other:other secret']);
      // a removed member of default (still in other), and someone in no organization
      expect(await entries(olga.token)).toEqual(['other:other secret']);
      expect(await entries((await createActor(db.url, { name: 'zoe', membership: null })).token)).toEqual([]);
      // the server admin, not confined to an organization, sees both
      expect(await entries(admin)).toEqual(['other:other secret', 'default:default secret']);

      for (const verb of ['review', 'archive']) {
        for (const token of [eve.token, olga.token]) {
          const crossed = await call(token, 'POST', `/v1/records/ouroboros/${mine.body.id}/${verb}`);
          const missing = await call(token, 'POST', `/v1/records/ouroboros/2000000000/${verb}`);
          expect(crossed.status).toBe(404);
          expect(crossed.body).toEqual({
            code: 'ouroboros_entry_not_found',
            message: `no ouroboros entry ${mine.body.id}`,
          });
          expect(crossed.text.split(String(mine.body.id)).join('<id>')).toBe(
            missing.text.split('2000000000').join('<id>'),
          );
        }
      }
      const [row] = await sql<{ reviewed_at: Date | null; archived_at: Date | null }>(
        db.url,
        'SELECT reviewed_at, archived_at FROM ouroboros_entries WHERE id = $1',
        [mine.body.id],
      );
      expect(row).toEqual({ reviewed_at: null, archived_at: null });

      // its own organization marks it
      const reviewed = await call<Entry>(mia.token, 'POST', `/v1/records/ouroboros/${mine.body.id}/review`);
      expect(reviewed.status).toBe(200);
      expect(reviewed.body.reviewed_at).not.toBeNull();
      const archived = await call<Entry>(dana.token, 'POST', `/v1/records/ouroboros/${mine.body.id}/archive`);
      expect(archived.status).toBe(200);
      expect(archived.body.archived_at).not.toBeNull();
    });

    it('should need an active membership to write one, and keep a machine credential to its organization', async () => {
      const count = async () =>
        Number((await sql<{ n: string }>(db.url, 'SELECT count(*) AS n FROM ouroboros_entries'))[0].n);
      const before = await count();
      const zedToken = (await createActor(db.url, { name: 'zack', membership: null })).token;
      const refused = await write(zedToken, 'from nowhere');
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ code: 'organization_membership_required' });

      // olga's machine approved for default, from before she was taken out of it: sees, writes and marks nothing
      const removedMachine = await machineOf(db.url, 'olga', 'default', 'walls-olga-default');
      expect(await entries(removedMachine)).toEqual([]);
      expect((await write(removedMachine, 'still here?')).status).toBe(403);
      const [{ id: defaultEntry }] = await sql<{ id: number }>(
        db.url,
        `SELECT e.id FROM ouroboros_entries e JOIN organizations o ON o.id = e.organization_id
          WHERE o.slug = 'default' ORDER BY e.id LIMIT 1`,
      );
      expect((await call(removedMachine, 'POST', `/v1/records/ouroboros/${defaultEntry}/review`)).status).toBe(404);
      expect(await count()).toBe(before);

      // mia's machine approved for default, and eve's for other: each reads and writes its own organization only,
      // and so does a credential of the server admin's approved for other
      const miaMachine = await machineOf(db.url, 'mia', 'default', 'walls-mia-default');
      const eveMachine = await machineOf(db.url, 'eve', 'other', 'walls-eve-other');
      const adminMachine = await machineOf(db.url, 'admin', 'other', 'walls-admin-other');
      expect(await entries(miaMachine)).toEqual(['default:default secret']);
      expect(await entries(eveMachine)).toEqual(['other:other secret']);
      expect(await entries(adminMachine)).toEqual(['other:other secret']);
      expect((await write(eveMachine, 'from the box')).body.organization).toBe('other');
      expect((await write(adminMachine, 'admin box')).body.organization).toBe('other');
      expect((await call(eveMachine, 'POST', `/v1/records/ouroboros/${defaultEntry}/archive`)).status).toBe(404);
      expect((await call(adminMachine, 'POST', `/v1/records/ouroboros/${defaultEntry}/archive`)).status).toBe(404);
    });
  });

  // Issue 36, "confined means confined": a server admin's machine credential approved for `default` (and what it
  // mints) acts as an admin of `default` and no more; server administration needs an unconfined credential.
  describe("a server admin's credential confined to one organization", () => {
    let confined: string;
    let minted: string;

    beforeAll(async () => {
      confined = await machineOf(db.url, 'admin', 'default', 'walls-admin-default');
      const made = await call<{ token: string }>(confined, 'POST', '/v1/tokens', { name: 'from-confined' });
      expect(made.status).toBe(201);
      minted = made.body.token;
    });

    const orgs = async () => (await sql<{ slug: string }>(db.url, 'SELECT slug FROM organizations')).map((r) => r.slug);
    const statusOf = async (name: string) =>
      (await sql<{ status: string }>(db.url, 'SELECT status FROM actors WHERE name = $1', [name]))[0].status;
    const roleIn = async (name: string, org: string) =>
      (
        await sql<{ role: string }>(
          db.url,
          `SELECT m.role FROM memberships m JOIN actors a ON a.id = m.actor_id
             JOIN organizations o ON o.id = m.organization_id WHERE a.name = $1 AND o.slug = $2`,
          [name, org],
        )
      )[0]?.role ?? null;

    it('should not create organizations', async () => {
      const before = await orgs();
      for (const token of [confined, minted]) {
        const created = await call(token, 'POST', '/v1/orgs', { slug: 'confined-co' });
        expect(created.status).toBe(403);
        expect(created.body).toMatchObject({ code: 'forbidden' });
      }
      expect(await orgs()).toEqual(before);
    });

    it("should not make anyone an admin of another organization, nor take another organization's members out", async () => {
      const beforeEve = await membershipsOf('eve');
      for (const token of [confined, minted]) {
        const added = await call(token, 'POST', '/v1/members', { actor: 'mia', org: 'other', role: 'admin' });
        expect(added.status).toBe(404);
        expect(added.body).toEqual({ code: 'not_found', message: 'organization other not found' });
        const promoted = await call(token, 'POST', '/v1/members', { actor: 'eve', org: 'other', role: 'member' });
        expect(promoted.status).toBe(404);
        // eve belongs to `other` only: outside the view of a credential confined to `default`
        const pulledIn = await call(token, 'POST', '/v1/members', { actor: 'eve', org: 'default' });
        expect(pulledIn.status).toBe(404);
        expect((await call(token, 'POST', '/v1/members/remove', { actor: 'eve', org: 'other' })).status).toBe(404);
      }
      expect(await roleIn('mia', 'other')).toBeNull();
      expect(await membershipsOf('eve')).toEqual(beforeEve);
    });

    it("should not disable another organization's people, nor mint tokens for them, nor see them", async () => {
      const eveTokens = await tokenCount('eve');
      for (const token of [confined, minted]) {
        const disabled = await call(token, 'POST', '/v1/actors/eve/disable');
        expectSameNotFound(disabled, 'eve', await call(token, 'POST', '/v1/actors/nobody/disable'), 'nobody');
        expect((await call(token, 'POST', '/v1/tokens', { actor: 'eve', name: 'takeover' })).status).toBe(404);
        expect((await call(token, 'GET', '/v1/actors/eve')).status).toBe(404);
        const listed = await call<{ actors: { name: string }[] }>(token, 'GET', '/v1/actors');
        expect(listed.body.actors.map((a) => a.name)).not.toContain('eve');
        const orgsListed = await call<{ organizations: { slug: string }[] }>(token, 'GET', '/v1/orgs');
        expect(orgsListed.body.organizations.map((o) => o.slug)).toEqual(['default']);
        expect((await call(token, 'GET', '/v1/orgs/other')).status).toBe(404);
      }
      expect(await statusOf('eve')).toBe('active');
      expect(await tokenCount('eve')).toBe(eveTokens);
    });

    it('should not read the metrics or the doctor, nor register workflows', async () => {
      for (const token of [confined, minted]) {
        for (const path of ['/metrics', '/v1/doctor']) {
          const res = await call(token, 'GET', path);
          expect(res.status).toBe(403);
          expect(res.body).toMatchObject({ code: 'forbidden' });
        }
        const registered = await call(token, 'POST', '/v1/workflows', { id: 'confined-flow' });
        expect(registered.status).toBe(403);
      }
      expect((await call(admin, 'GET', '/v1/doctor')).status).toBe(200);
    });

    it('should make no server admin, and still administer its own organization', async () => {
      const created = await call<{ is_admin: boolean; memberships: { org: string; role: string }[] }>(
        confined,
        'POST',
        '/v1/actors',
        { name: 'confined-made', admin: true },
      );
      expect(created.status).toBe(201);
      expect(created.body.is_admin).toBe(false);
      expect(created.body.memberships).toEqual([{ org: 'default', role: 'admin', status: 'active' }]);
      expect((await call(confined, 'POST', '/v1/actors/confined-made/disable')).status).toBe(200);
      expect(await statusOf('confined-made')).toBe('disabled');
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

  // Issue 36: through an organization's path even the server admin's own token acts in that organization only, and a
  // token minted there stays confined to it.
  it("should confine a server admin's token to the path's organization", async () => {
    const admin = daemon.token!;
    const at = (method: string, path: string, body?: unknown) =>
      http(daemon.url, method, `/api/orgs/acme${path}`, { token: admin, body });
    const disabled = await at('POST', '/v1/actors/eve/disable');
    expect(disabled.status).toBe(404);
    expect(disabled.body).toEqual({ code: 'not_found', message: 'actor eve not found' });
    const eveStatus = await sql<{ status: string }>(db.url, 'SELECT status FROM actors WHERE id = $1', [eve.id]);
    expect(eveStatus).toEqual([{ status: 'active' }]);
    expect((await at('POST', '/v1/tokens', { actor: 'eve', name: 'takeover' })).status).toBe(404);
    expect((await at('POST', '/v1/members', { actor: 'dana', org: 'beta', role: 'admin' })).status).toBe(404);
    expect((await at('POST', '/v1/orgs', { slug: 'through-acme' })).status).toBe(403);
    expect((await at('GET', '/v1/doctor')).status).toBe(403);
    expect(await sql(db.url, `SELECT 1 FROM organizations WHERE slug = 'through-acme'`)).toEqual([]);

    const minted = await at('POST', '/v1/tokens', { name: 'through-acme' });
    expect(minted.status).toBe(201);
    const token = (minted.body as { token: string; token_id: number }).token;
    const [row] = await sql<{ slug: string }>(
      db.url,
      `SELECT o.slug FROM api_tokens t JOIN organizations o ON o.id = t.organization_id WHERE t.id = $1`,
      [(minted.body as { token_id: number }).token_id],
    );
    expect(row).toEqual({ slug: 'acme' });
    expect((await http(daemon.url, 'GET', '/v1/doctor', { token })).status).toBe(403);
    expect((await http(daemon.url, 'POST', '/v1/orgs', { token, body: { slug: 'via-minted' } })).status).toBe(403);
    expect((await http(daemon.url, 'POST', '/v1/actors/eve/disable', { token })).status).toBe(404);
    // unconfined, the same token's parent still administers the server
    expect((await http(daemon.url, 'GET', '/v1/doctor', { token: admin })).status).toBe(200);
  });

  // Listing every verdict and disposition (no ?item=) is a server admin's; through an organization's path, or with a
  // machine credential approved for one, it lists that organization's projects' rows only (ouroboros entries too).
  it("should list a confined server admin only the organization's verdicts, dispositions and entries", async () => {
    const admin = daemon.token!;
    const at = <T = Record<string, unknown>>(
      token: string,
      org: string,
      method: string,
      path: string,
      body?: unknown,
    ) => http<T>(daemon.url, method, `/api/orgs/${org}${path}`, { token, body });
    for (const [who, org, id, prefix] of [
      [dana, 'acme', 'rockets', 'RKT'],
      [eve, 'beta', 'secrets', 'SEC'],
    ] as const) {
      expect(
        (await at(who.token, org, 'POST', '/v1/projects', { id, name: id, public_item_prefix: prefix })).status,
      ).toBe(201);
      expect((await at(who.token, org, 'POST', '/v1/items', { project: id, title: 'one' })).status).toBe(201);
      const verdict = { item: `${prefix}-1`, transition: 'implementing', worker: 'w', verdict: 'pass' };
      expect((await at(who.token, org, 'POST', '/v1/records/shepherd-verdicts', verdict)).status).toBe(201);
      const disposition = {
        item: `${prefix}-1`,
        transition: 'implementing',
        caveat_num: 1,
        caveat_text: 'c',
        disposition: 'RESOLVED',
      };
      expect((await at(who.token, org, 'POST', '/v1/records/caveat-dispositions', disposition)).status).toBe(201);
      const entry = { agent: 'a', category: 'walls', body: `${org} note` };
      expect((await at(who.token, org, 'POST', '/v1/records/ouroboros', entry)).status).toBe(201);
    }
    const listed = async (get: (path: string) => Promise<HttpResult>) => {
      const verdicts = await get('/v1/records/shepherd-verdicts');
      const dispositions = await get('/v1/records/caveat-dispositions');
      const entries = await get('/v1/records/ouroboros?category=walls');
      expect([verdicts.status, dispositions.status, entries.status]).toEqual([200, 200, 200]);
      return {
        verdicts: (verdicts.body.verdicts as { item: string }[]).map((v) => v.item),
        dispositions: (dispositions.body.dispositions as { item: string }[]).map((d) => d.item),
        entries: (entries.body.entries as Entry[]).map((e) => `${e.organization}:${e.body}`),
      };
    };
    const acmeOnly = { verdicts: ['RKT-1'], dispositions: ['RKT-1'], entries: ['acme:acme note'] };
    expect(await listed((path) => at(admin, 'acme', 'GET', path))).toEqual(acmeOnly);
    const adminMachine = await machineOf(db.url, 'admin', 'acme', 'walls-admin-acme');
    expect(await listed((path) => http(daemon.url, 'GET', path, { token: adminMachine }))).toEqual(acmeOnly);
    expect(await listed((path) => http(daemon.url, 'GET', `/api/orgs/acme${path}`, { token: adminMachine }))).toEqual(
      acmeOnly,
    );
    // unconfined, the server admin sees every organization's
    expect(await listed((path) => http(daemon.url, 'GET', path, { token: admin }))).toEqual({
      verdicts: ['RKT-1', 'SEC-1'],
      dispositions: ['RKT-1', 'SEC-1'],
      entries: ['beta:beta note', 'acme:acme note'],
    });
  });
});
