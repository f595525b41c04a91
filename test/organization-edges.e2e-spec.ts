import {
  createTestDatabase,
  DaemonProcess,
  runSvc,
  startDaemonProcess,
  svcEnv,
  TestDatabase,
  waitFor,
} from '@app/testing';
import { createActor, http, HttpResult, sql, TestActor } from '@app/testing/machine-auth';

// Issue 36, "edges stay inside an organization" and "environments are retired and un-retired by admins only", with
// the smaller findings next to them: a write naming a missing project answers 404, the documented policy key
// deployment_approval_role is accepted, and frontier explain of an item outside the caller's view answers exactly as
// an unknown item.
jest.setTimeout(120000);

type Json = Record<string, unknown>;

const ZETA_TITLE = 'Zeta merger codename Bluebird';
const ZETA_STATUS = 'plan-drafted';

describe('organization walls: dependencies, environments, frontier', () => {
  let db: TestDatabase;
  let daemon: DaemonProcess;
  let admin: string;
  // dana: admin of default; mia: member of default; eve: admin of other; olga: member of both.
  let dana: TestActor;
  let mia: TestActor;
  let eve: TestActor;
  let olga: TestActor;

  const call = <T = Json>(token: string, method: string, path: string, body?: unknown) =>
    http<T>(daemon.url, method, path, { token, body });
  const created = async (token: string, project: string, title: string, status?: string) => {
    const res = await call<{ item_id: string }>(token, 'POST', '/v1/items', {
      project,
      title,
      ...(status ? { status } : {}),
    });
    expect(res.status).toBe(201);
    return res.body.item_id;
  };
  const edgeCount = async () =>
    (await sql<{ n: number }>(db.url, 'SELECT count(*)::int AS n FROM item_dependencies'))[0].n;
  // A crossing edge as only raw SQL can still make one (rows from before the fix).
  const plantEdge = (dependent: string, blocker: string) =>
    sql(
      db.url,
      `INSERT INTO item_dependencies (dependent_item_id, blocking_item_id, gate_point, satisfaction, source)
       SELECT d.id, b.id, 'activation', 'status:done', 'operator'
         FROM items d JOIN projects dp ON dp.id = d.project, items b JOIN projects bp ON bp.id = b.project
        WHERE dp.public_item_prefix || '-' || d.project_sequence = $1
          AND bp.public_item_prefix || '-' || b.project_sequence = $2`,
      [dependent, blocker],
    );
  const leaks = (res: HttpResult<unknown>) => res.text.includes(ZETA_TITLE) || res.text.includes(ZETA_STATUS);

  beforeAll(async () => {
    db = await createTestDatabase('server', 'organization_edges');
    daemon = await startDaemonProcess({
      env: { SVC_DATABASE_URL: db.url, SVC_SERVER_SECRET: 'e2e-organization-edges-0123456789abcdef' },
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
    expect(
      (await call(dana.token, 'POST', '/v1/projects', { id: 'atlas', name: 'Atlas', public_item_prefix: 'ATL' }))
        .status,
    ).toBe(201);
    expect(
      (await call(eve.token, 'POST', '/v1/projects', { id: 'zeta', name: 'Zeta', public_item_prefix: 'ZET' })).status,
    ).toBe(201);
    for (let i = 1; i <= 3; i += 1) {
      expect(await created(mia.token, 'atlas', `Atlas item ${i}`)).toBe(`ATL-${i}`);
      expect(await created(eve.token, 'zeta', i === 2 ? ZETA_TITLE : `Zeta item ${i}`, ZETA_STATUS)).toBe(`ZET-${i}`);
    }
  });

  afterAll(async () => {
    await daemon?.stop();
    await db?.drop();
  });

  describe('dependencies across organizations', () => {
    it('should refuse someone in both organizations adding an edge across them, either way', async () => {
      const before = await edgeCount();
      for (const [dependent, blocker] of [
        ['ATL-1', 'ZET-1'],
        ['ZET-1', 'ATL-1'],
      ]) {
        const res = await call(olga.token, 'POST', `/v1/items/${dependent}/dependencies`, { blocker });
        expect(res.status).toBe(409);
        expect(res.body).toMatchObject({ code: 'dependency_crosses_organization', dependent, blocker });
      }
      // the server admin, who sees both, is refused too
      const asAdmin = await call(admin, 'POST', '/v1/items/ATL-1/dependencies', { blocker: 'ZET-1' });
      expect(asAdmin.status).toBe(409);
      expect(asAdmin.body).toMatchObject({ code: 'dependency_crosses_organization' });
      expect(await edgeCount()).toBe(before);
      // inside one organization an edge is still added
      const inside = await call(olga.token, 'POST', '/v1/items/ATL-3/dependencies', { blocker: 'ATL-1' });
      expect(inside.status).toBe(201);
    });

    describe('an edge made before the fix (ATL-2 waits on ZET-2)', () => {
      beforeAll(async () => {
        await plantEdge('ATL-2', 'ZET-2');
      });

      it('should list the blocker by ref only, without title or status, to the dependent’s side', async () => {
        const res = await call<{ dependencies: Json[] }>(mia.token, 'GET', '/v1/items/ATL-2/dependencies');
        expect(res.status).toBe(200);
        expect(res.body.dependencies).toEqual([
          expect.objectContaining({
            direction: 'depends_on',
            other_item: 'ZET-2',
            other_title: null,
            other_status: null,
            satisfied: false,
            reason: expect.stringContaining('another organization'),
          }),
        ]);
        expect(leaks(res)).toBe(false);
      });

      it('should list the dependent by ref only to the blocker’s side', async () => {
        const res = await call<{ dependencies: Json[] }>(eve.token, 'GET', '/v1/items/ZET-2/dependencies');
        expect(res.status).toBe(200);
        expect(res.body.dependencies).toEqual([
          expect.objectContaining({ direction: 'blocks', other_item: 'ATL-2', other_title: null, other_status: null }),
        ]);
        expect(res.text).not.toContain('Atlas item 2');
      });

      it('should explain the item as blocked by a sealed blocker, without its title or status', async () => {
        const res = await call<{ bucket: string; unsatisfied: Json[]; summary: string[] }>(
          mia.token,
          'GET',
          '/v1/frontier/explain/ATL-2',
        );
        expect(res.status).toBe(200);
        expect(res.body.bucket).toBe('blocked');
        expect(res.body.unsatisfied).toEqual([
          expect.objectContaining({
            blocker: 'ZET-2',
            state: null,
            reason: expect.stringContaining('another organization'),
          }),
        ]);
        expect(leaks(res)).toBe(false);
      });

      it('should keep the title and status out of frontier.list, the frontier and gate evaluations', async () => {
        const list = await call<{ dependency_edges: Json[] }>(mia.token, 'GET', '/v1/frontier/list?project=atlas');
        expect(list.status).toBe(200);
        expect(list.body.dependency_edges).toContainEqual(
          expect.objectContaining({
            blocker: 'ZET-2',
            dependent: 'ATL-2',
            blocker_resolves: true,
            blocker_stage: null,
            blocker_title: null,
          }),
        );
        expect(leaks(list)).toBe(false);
        const frontier = await call(mia.token, 'GET', '/v1/charge/frontier?project=atlas');
        expect(frontier.status).toBe(200);
        expect(frontier.text).toContain('ZET-2');
        expect(leaks(frontier)).toBe(false);
        const gate = await call<{ satisfied: boolean; blockers: Json[] }>(
          mia.token,
          'GET',
          '/v1/gates/evaluate?item=ATL-2&gate_point=activation',
        );
        expect(gate.status).toBe(200);
        expect(gate.body.satisfied).toBe(false);
        expect(gate.body.blockers).toEqual([
          expect.objectContaining({ blocker: 'ZET-2', blocker_title: null, blocker_status: null }),
        ]);
        expect(leaks(gate)).toBe(false);
        const plan = await call(mia.token, 'POST', '/v1/gates/plan', { gate_point: 'activation', items: ['ATL-2'] });
        expect(plan.status).toBe(200);
        expect(leaks(plan)).toBe(false);
      });

      it('should still gate on the sealed blocker: done on the other side frees the item', async () => {
        await sql(db.url, `UPDATE items SET status = 'done' WHERE project = 'zeta' AND project_sequence = 2`);
        await waitFor(
          async () =>
            (await call<{ bucket: string }>(mia.token, 'GET', '/v1/frontier/explain/ATL-2')).body.bucket === 'runnable',
          { what: 'ATL-2 runnable once ZET-2 is done', timeout: 10000, interval: 100 },
        );
        const res = await call<{ dependencies: Json[] }>(mia.token, 'GET', '/v1/items/ATL-2/dependencies');
        expect(res.body.dependencies).toEqual([
          expect.objectContaining({ other_item: 'ZET-2', other_status: null, satisfied: true }),
        ]);
        expect(res.text).not.toContain('"done"');
      });
    });
  });

  describe('frontier explain of an item the caller cannot see', () => {
    it('should answer exactly as for an unknown item, as GET /v1/items does', async () => {
      const unseen = await call(mia.token, 'GET', '/v1/frontier/explain/ZET-3');
      const unknownProject = await call(mia.token, 'GET', '/v1/frontier/explain/QQQ-3');
      const unknownItem = await call(mia.token, 'GET', '/v1/frontier/explain/ATL-999');
      const item = await call(mia.token, 'GET', '/v1/items/ZET-3');
      expect(unseen.status).toBe(404);
      expect(unseen.body).toEqual({ code: 'item_not_found', message: 'no item ZET-3', item_id: 'ZET-3' });
      expect(unseen.text).not.toContain('zeta');
      expect(unseen.text).toBe(item.text);
      expect(unknownProject.text.split('QQQ-3').join('<ref>')).toBe(unseen.text.split('ZET-3').join('<ref>'));
      expect(unknownItem.text.split('ATL-999').join('<ref>')).toBe(unseen.text.split('ZET-3').join('<ref>'));
    });
  });

  describe('environments: retired and un-retired by admins only', () => {
    const retiredAt = async (name: string) =>
      (
        await sql<{ retired_at: Date | null }>(
          db.url,
          `SELECT retired_at FROM environments WHERE project = 'atlas' AND name = $1`,
          [name],
        )
      )[0].retired_at;

    beforeAll(async () => {
      for (const name of ['staging', 'production']) {
        const res = await call(mia.token, 'POST', '/v1/deployments/environments', { project: 'atlas', name });
        expect(res.status).toBe(201);
      }
    });

    it('should refuse a member retiring an environment with 403, changing nothing', async () => {
      const res = await call(mia.token, 'POST', '/v1/deployments/environments/atlas/staging/retire');
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({
        code: 'environment_admin_required',
        environment: 'staging',
        organization: 'default',
      });
      expect(await retiredAt('staging')).toBeNull();
      // an admin of another organization does not see the project at all
      const outsider = await call(eve.token, 'POST', '/v1/deployments/environments/atlas/staging/retire');
      expect(outsider.status).toBe(404);
      expect(outsider.body).toMatchObject({ code: 'project_not_found' });
      expect(await retiredAt('staging')).toBeNull();
    });

    it('should let the organization admin retire it and refuse a member un-retiring it', async () => {
      const res = await call<{ retired_at: string | null }>(
        dana.token,
        'POST',
        '/v1/deployments/environments/atlas/staging/retire',
      );
      expect(res.status).toBe(200);
      expect(res.body.retired_at).not.toBeNull();
      const reRegister = await call(mia.token, 'POST', '/v1/deployments/environments', {
        project: 'atlas',
        name: 'staging',
      });
      expect(reRegister.status).toBe(409);
      expect(reRegister.body).toMatchObject({ code: 'environment_exists', retired: true });
      expect((reRegister.body as { message: string }).message).toContain('unretire');
      const unretire = await call(mia.token, 'POST', '/v1/deployments/environments/atlas/staging/unretire');
      expect(unretire.status).toBe(403);
      expect(unretire.body).toMatchObject({ code: 'environment_admin_required', environment: 'staging' });
      expect(await retiredAt('staging')).not.toBeNull();
    });

    it('should let the organization admin un-retire it with svc', async () => {
      const env = { ...svcEnv(daemon), SVC_TOKEN: dana.token };
      const result = await runSvc(
        ['deployments', 'environments', 'unretire', 'staging', '--project', 'atlas', '--json'],
        {
          env,
        },
      );
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ name: 'staging', retired_at: null });
      expect(await retiredAt('staging')).toBeNull();
      const asMember = await runSvc(['deployments', 'environments', 'unretire', 'staging', '--project', 'atlas'], {
        env: { ...env, SVC_TOKEN: mia.token },
      });
      expect(asMember.code).not.toBe(0);
      expect(asMember.stderr).toContain('environment_admin_required');
    });

    it('should let an unconfined server admin retire and un-retire, and answer 404 for a missing environment', async () => {
      const retired = await call(admin, 'POST', '/v1/deployments/environments/atlas/production/retire');
      expect(retired.status).toBe(200);
      expect(await retiredAt('production')).not.toBeNull();
      const back = await call(admin, 'POST', '/v1/deployments/environments/atlas/production/unretire');
      expect(back.status).toBe(200);
      expect(await retiredAt('production')).toBeNull();
      const missing = await call(dana.token, 'POST', '/v1/deployments/environments/atlas/nowhere/unretire');
      expect(missing.status).toBe(404);
      expect(missing.body).toMatchObject({ code: 'environment_not_found' });
    });
  });

  describe('a write naming a missing project', () => {
    it('should answer 404 project_not_found, never 500, for flows and environments, to the server admin too', async () => {
      for (const token of [admin, mia.token]) {
        const flow = await call(token, 'POST', '/v1/deployments/flows', {
          id: 'ghost-flow',
          project: 'ghost',
          name: 'Ghost',
          stages: ['build'],
        });
        expect(flow.status).toBe(404);
        expect(flow.body).toEqual({ code: 'project_not_found', message: 'no project ghost', project: 'ghost' });
        const environment = await call(token, 'POST', '/v1/deployments/environments', {
          project: 'ghost',
          name: 'staging',
        });
        expect(environment.status).toBe(404);
        expect(environment.body).toEqual(flow.body);
      }
      expect(await sql(db.url, `SELECT 1 FROM deployment_flows WHERE id = 'ghost-flow'`)).toEqual([]);
    });
  });

  describe('the policy key deployment_approval_role', () => {
    const policyOf = async () =>
      (await sql<{ policy: Json }>(db.url, `SELECT policy FROM projects WHERE id = 'atlas'`))[0].policy;

    it('should be accepted from an admin of the organization with a documented value', async () => {
      const res = await call<{ policy: Json }>(dana.token, 'PATCH', '/v1/projects/atlas', {
        policy: { deployment_approval_role: 'admin' },
      });
      expect(res.status).toBe(200);
      expect(res.body.policy).toMatchObject({ deployment_approval_role: 'admin' });
      expect(await policyOf()).toMatchObject({ deployment_approval_role: 'admin' });
    });

    it('should refuse another value with 400 naming the field, and a member with 403', async () => {
      const bad = await call(dana.token, 'PATCH', '/v1/projects/atlas', {
        policy: { deployment_approval_role: 'owner' },
      });
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({
        code: 'validation_failed',
        fields: [{ field: 'policy.deployment_approval_role', problems: ['must be one of member, admin'] }],
      });
      const byMember = await call(mia.token, 'PATCH', '/v1/projects/atlas', {
        policy: { deployment_approval_role: null },
      });
      expect(byMember.status).toBe(403);
      expect(byMember.body).toMatchObject({ code: 'policy_admin_required', field: 'policy.deployment_approval_role' });
      expect(await policyOf()).toMatchObject({ deployment_approval_role: 'admin' });
    });
  });
});
