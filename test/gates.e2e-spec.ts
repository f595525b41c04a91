import { Client } from 'pg';

import { createTestDatabase, DaemonProcess, runSvc, startDaemonProcess, svcEnv, TestDatabase } from '@app/testing';

type Json = Record<string, unknown>;

// Issue 11 from the command line: every gate point enforced on every write that reaches or passes it, the running
// epic at the WIP cap, decisions that contradict their reason, progress from the run's flow.
describe('gates at every point (svc CLI)', () => {
  let db: TestDatabase;
  let daemon: DaemonProcess;
  let pg: Client;

  const svc = (...args: string[]) => runSvc(args, { env: svcEnv(daemon) });
  async function ok<T = Json>(...args: string[]): Promise<T> {
    const result = await svc(...args, '--json');
    if (result.code !== 0) throw new Error(`svc ${args.join(' ')} failed: ${result.stderr}`);
    return JSON.parse(result.stdout) as T;
  }
  async function refused(...args: string[]): Promise<Json> {
    const result = await svc(...args, '--json');
    expect(result.code).not.toBe(0);
    return JSON.parse(result.stderr.trim().split('\n').pop()!) as Json;
  }
  const item = async (project: string, title: string, ...extra: string[]) =>
    (await ok<{ item_id: string }>('items', 'create', '--project', project, '--title', title, ...extra)).item_id;
  const status = async (ref: string) => (await ok<{ status: string }>('items', 'get', ref)).status;

  beforeAll(async () => {
    db = await createTestDatabase('server', 'gates');
    daemon = await startDaemonProcess({ env: { SVC_DATABASE_URL: db.url } });
    pg = new Client({ connectionString: db.url });
    await pg.connect();
    await ok('projects', 'create', 'atl', '--prefix', 'ATL');
    await ok('deployments', 'environments', 'register', 'production', '--project', 'atl');
  });

  afterAll(async () => {
    await pg?.end();
    await daemon?.stop();
    await db?.drop();
  });

  describe('closure', () => {
    let blocker: string;
    let dependent: string;

    beforeAll(async () => {
      blocker = await item('atl', 'Ship the API', '--status', 'release');
      dependent = await item('atl', 'Announce the API');
      await ok(
        'items',
        'dependency',
        'add',
        dependent,
        blocker,
        '--gate-point',
        'closure',
        '--satisfaction',
        'fact:deployed:production',
      );
    });

    it('should refuse done from idea while the closure blocker is not deployed', async () => {
      const body = await refused('items', 'status', dependent, 'done');
      expect(body).toMatchObject({ code: 'blocked_by_dependencies', gate_point: 'closure', stage: 'done' });
      expect(body.blockers).toEqual([
        expect.objectContaining({
          blocker: blocker,
          satisfaction: 'fact:deployed:production',
          blocker_status: 'release',
        }),
      ]);
      expect(await status(dependent)).toBe('idea');
    });

    it('should print the blockers the way frontier explain does', async () => {
      const result = await svc('items', 'status', dependent, 'done');
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('error: blocked_by_dependencies:');
      expect(result.stderr).toMatch(/blocker\s.*satisfaction\s.*state\s.*would satisfy/);
      expect(result.stderr).toMatch(new RegExp(`${blocker}\\s.*fact:deployed:production\\s.*release`));
    });

    it('should let the dependent be cancelled while blocked (abandoning is not completing)', async () => {
      const other = await item('atl', 'Abandoned announcement');
      await ok('items', 'dependency', 'add', other, blocker, '--gate-point', 'closure');
      expect(await ok('items', 'status', other, 'cancelled')).toMatchObject({ status: 'cancelled' });
    });

    it('should allow done once the blocker is deployed to production', async () => {
      await ok(
        'deployments',
        'runs',
        'create',
        '--project',
        'atl',
        '--environment',
        'production',
        '--items',
        blocker,
        '--status',
        'succeeded',
      );
      expect(await ok('items', 'status', dependent, 'done')).toMatchObject({ status: 'done' });
    });
  });

  describe('integration', () => {
    let blocker: string;
    let dependent: string;

    beforeAll(async () => {
      blocker = await item('atl', 'Schema change', '--status', 'implementing');
      dependent = await item('atl', 'Reader of the schema', '--status', 'reviewed-implementation');
      await ok(
        'items',
        'dependency',
        'add',
        dependent,
        blocker,
        '--gate-point',
        'integration',
        '--satisfaction',
        'fact:merged',
      );
    });

    it('should refuse release until the blocker merges', async () => {
      const body = await refused('items', 'status', dependent, 'release');
      expect(body).toMatchObject({ code: 'blocked_by_dependencies', gate_point: 'integration', gate_stage: 'release' });
      expect(await status(dependent)).toBe('reviewed-implementation');
    });

    it('should refuse done from before release (it passes the release gate)', async () => {
      const body = await refused('items', 'status', dependent, 'done');
      expect(body).toMatchObject({ code: 'blocked_by_dependencies', gate_point: 'integration', stage: 'done' });
    });

    it('should refuse a write of merged_at until the blocker merges', async () => {
      const body = await refused('items', 'update', dependent, 'merged_at', '--value', '2026-11-20T10:00:00Z');
      expect(body).toMatchObject({ code: 'blocked_by_dependencies', gate_point: 'integration', write: 'merged_at' });
      const rows = await pg.query(`SELECT merged_at FROM items WHERE title = 'Reader of the schema'`);
      expect(rows.rows[0].merged_at).toBeNull();
    });

    it('should allow release and merged_at once the blocker has merged', async () => {
      await ok('items', 'update', blocker, 'merged_at', '--value', '2026-11-20T09:00:00Z');
      expect(await ok('items', 'update', dependent, 'merged_at', '--value', '2026-11-20T10:00:00Z')).toMatchObject({
        merged_at: expect.stringMatching(/^2026-11-20T10:00:00/),
      });
      expect(await ok('items', 'status', dependent, 'release')).toMatchObject({ status: 'release' });
    });
  });

  describe('activation', () => {
    it('should refuse idea → reviewing-implementation past an unsatisfied activation blocker', async () => {
      const blocker = await item('atl', 'Groundwork');
      const dependent = await item('atl', 'Builds on the groundwork');
      await ok('items', 'dependency', 'add', dependent, blocker);
      const body = await refused('items', 'status', dependent, 'reviewing-implementation');
      expect(body).toMatchObject({
        code: 'blocked_by_dependencies',
        gate_point: 'activation',
        gate_stage: 'implementing',
        stage: 'reviewing-implementation',
      });
      expect(await status(dependent)).toBe('idea');
      // a move backwards is never gated
      await ok('items', 'status', blocker, 'done');
      await ok('items', 'status', dependent, 'reviewing-implementation');
      expect(await ok('items', 'status', dependent, 'planned')).toMatchObject({ status: 'planned' });
    });
  });

  describe('WIP', () => {
    beforeAll(async () => {
      await ok('projects', 'create', 'cap', '--prefix', 'CAP', '--wip-cap', '1');
    });

    it('should keep the running epic conduct-eligible at the cap and hold back a new start', async () => {
      const running = await item('cap', 'Running epic', '--workflow', 'epic', '--status', 'implementing');
      const planned = await item('cap', 'Planned epic', '--workflow', 'epic', '--status', 'planned');
      const frontier = await ok<{ wip_active: number; conduct_eligible: { item_id: string }[] }>(
        'charge-frontier',
        '--project',
        'cap',
      );
      expect(frontier.wip_active).toBe(1);
      expect(frontier.conduct_eligible.map((i) => i.item_id)).toEqual([running]);

      const dispatched = await svc('charge', '--project', 'cap', '--item', running, '--yes', '--json');
      expect(dispatched.code).toBe(0);
      expect(JSON.parse(dispatched.stdout)).toMatchObject({ item_id: running, dispatched: true, reason: 'dispatched' });

      const held = await svc('charge', '--project', 'cap', '--item', planned, '--yes', '--json');
      expect(held.code).toBe(1);
      expect(JSON.parse(held.stdout)).toMatchObject({ item_id: planned, dispatched: false });
    });
  });

  describe('charge decisions', () => {
    const post = async (body: Json) => {
      const res = await fetch(`${daemon.url}/v1/charge/decisions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Json };
    };
    const decisions = async () =>
      Number((await pg.query(`SELECT count(*) AS n FROM events WHERE name = 'ChargeDecisionMade'`)).rows[0].n);

    it('should refuse dispatched true on a dry_run with 400 and record nothing', async () => {
      const before = await decisions();
      const res = await post({ reason: 'dry_run', project: 'atl', dispatched: true });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        code: 'validation_failed',
        fields: [expect.objectContaining({ field: 'dispatched' })],
      });
      expect(await decisions()).toBe(before);
    });

    it('should refuse target_bucket with a reason that does not carry one', async () => {
      const res = await post({ reason: 'operator_cancelled', project: 'atl', target_bucket: 'blocked' });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        code: 'validation_failed',
        fields: [expect.objectContaining({ field: 'target_bucket' })],
      });
    });

    it('should still record a consistent decision', async () => {
      const res = await post({ reason: 'requested_item_unavailable', project: 'atl', target_bucket: 'not_found' });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ detail: { reason: 'requested_item_unavailable', target_bucket: 'not_found' } });
    });
  });

  describe('items progress', () => {
    it("should take flow_name and done_description from the run's flow when there is a run", async () => {
      await ok(
        'deployments',
        'flows',
        'create',
        'atl-web',
        '--project',
        'atl',
        '--stages',
        'build,deploy',
        '--name',
        'Web',
        '--done',
        'live on the web',
      );
      await ok(
        'deployments',
        'flows',
        'create',
        'atl-hotfix',
        '--project',
        'atl',
        '--stages',
        'deploy',
        '--name',
        'Hotfix',
        '--done',
        'patched',
      );
      const ref = await item('atl', 'Patched in a hotfix', '--set', 'deployment_flow=atl-web');
      expect(await ok('items', 'progress', ref)).toMatchObject({
        flow_name: 'Web',
        done_description: 'live on the web',
        run_id: null,
      });
      await ok(
        'deployments',
        'runs',
        'create',
        '--project',
        'atl',
        '--environment',
        'production',
        '--items',
        ref,
        '--flow',
        'atl-hotfix',
      );
      expect(await ok('items', 'progress', ref)).toMatchObject({
        flow_name: 'Hotfix',
        done_description: 'patched',
        stage_progress: '0/1',
      });
    });
  });
});
