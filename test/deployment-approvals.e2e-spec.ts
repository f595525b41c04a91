import {
  createProject,
  createTestDatabase,
  DaemonProcess,
  insertEdges,
  insertItems,
  startDaemonProcess,
  TestDatabase,
  withClient,
} from '@app/testing';
import { createActor, http, sql, TestActor } from '@app/testing/machine-auth';

interface RunWire {
  id: string;
  status: string;
  current_stage: string | null;
  stage_index: number;
  required_approval: string | null;
  halt: { kind: string; stage: string } | null;
}

interface Explained {
  bucket: string;
  unsatisfied: { blocker: string | null; satisfaction: string }[];
}

// Issue 24, deliverable 4: a deployment approval cannot be walked around, by moving the run past the stage, by
// declaring it succeeded, or by a flow and run of one's own that skip the stage.
describe('deployment approvals cannot be walked around', () => {
  let db: TestDatabase;
  let daemon: DaemonProcess;
  let base: string;
  let ann: TestActor; // an admin of acme: may approve the admin-only stage
  let mia: TestActor; // a member of acme
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    db = await createTestDatabase('server', 'deploy_approvals');
    daemon = await startDaemonProcess({ env: { SVC_DATABASE_URL: db.url } });
    base = daemon.url;
    ann = await createActor(db.url, { name: 'ann', org: 'acme', role: 'admin' });
    mia = await createActor(db.url, { name: 'mia', org: 'acme', role: 'member' });
    await withClient(db.url, async (client) => {
      await createProject(client, { id: 'gt', prefix: 'GT' });
      const items = await insertItems(client, 'gt', [
        { title: 'ship the api', status: 'release' },
        { title: 'announce the api' },
        { title: 'ship the worker', status: 'release' },
        { title: 'announce the worker' },
        { title: 'ship the docs', status: 'release' },
      ]);
      items.forEach((item, i) => (ids[`GT-${i + 1}`] = item.id));
      await insertEdges(client, [
        { blocker: ids['GT-1'], dependent: ids['GT-2'], satisfaction: 'fact:deployed:production' },
        { blocker: ids['GT-3'], dependent: ids['GT-4'], satisfaction: 'fact:deployed:production' },
      ]);
    });
    await sql(
      db.url,
      `UPDATE projects SET organization_id = (SELECT id FROM organizations WHERE slug = 'acme') WHERE id = 'gt'`,
    );
    const flow = await http(base, 'POST', '/v1/deployments/flows', {
      token: ann.token,
      body: {
        id: 'release',
        project: 'gt',
        name: 'release',
        stages: ['build', { name: 'production', environment: 'production', approval: { role: 'admin' } }, 'smoke'],
      },
    });
    expect(flow.status).toBe(201);
    const environment = await http(base, 'POST', '/v1/deployments/environments', {
      token: ann.token,
      body: { project: 'gt', name: 'production' },
    });
    expect(environment.status).toBe(201);
  });

  afterAll(async () => {
    await daemon?.stop();
    await db?.drop();
  });

  const patch = (token: string, id: string, body: Record<string, unknown>) =>
    http<RunWire & { code?: string }>(base, 'PATCH', `/v1/deployments/runs/${id}`, { token, body });
  const stored = async (id: string) =>
    (
      await sql(
        db.url,
        `SELECT r.status, r.stage_index, r.current_stage, r.halt_kind, r.halted_at, r.capabilities,
                ARRAY(SELECT i.deploy_stage FROM items i
                       WHERE r.carried_work -> 'items' @> to_jsonb(i.id) ORDER BY i.id) AS deploy_stages
           FROM deployment_runs r WHERE r.id = $1`,
        [id],
      )
    )[0];
  const explain = async (ref: string) =>
    (await http<Explained>(base, 'GET', `/v1/frontier/explain/${ref}`, { token: ann.token })).body;

  async function haltedRun(ref: string): Promise<string> {
    const created = await http<RunWire>(base, 'POST', '/v1/deployments/runs', {
      token: ann.token,
      body: { project: 'gt', flow_id: 'release', environment: 'production', items: [ref], stage_index: 1 },
    });
    expect(created.status).toBe(201);
    const halted = await patch(ann.token, created.body.id, { stage_index: 2 });
    expect(halted.status).toBe(200);
    expect(halted.body).toMatchObject({ status: 'halted', stage_index: 2, halt: { kind: 'awaiting-approval' } });
    return created.body.id;
  }

  it('should refuse to move a halted run past its unapproved stage, or to record it succeeded, and change nothing', async () => {
    const runId = await haltedRun('GT-1');
    const before = await stored(runId);
    expect(before).toMatchObject({ status: 'halted', stage_index: 2, deploy_stages: ['awaiting-approval'] });

    // the finding: a member's usher step past the admin-only stage
    const byMember = await patch(mia.token, runId, { stage_index: 3 });
    expect(byMember.status).toBe(403);
    expect(byMember.body.code).toBe('approver_required');
    expect(await stored(runId)).toEqual(before);

    // not even someone who may approve walks past it without recording the approval first
    for (const body of [
      { stage_index: 3 },
      { current_stage: 'smoke' },
      { stage_index: 4 },
      { status: 'succeeded' },
      { stage_index: 3, status: 'succeeded', capabilities: ['kubectl'] },
    ]) {
      const refused = await patch(ann.token, runId, body);
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({
        code: 'approval_required',
        stage: 'production',
        stage_index: 2,
        run: { id: runId, status: 'halted', stage_index: 2 },
      });
      expect(await stored(runId)).toEqual(before);
    }
    const memberSucceeded = await patch(mia.token, runId, { status: 'succeeded' });
    expect(memberSucceeded.status).toBe(403);
    const resumed = await http(base, 'POST', `/v1/deployments/runs/${runId}/resume`, { token: mia.token, body: {} });
    expect(resumed.status).toBe(403);
    expect(await stored(runId)).toEqual(before);

    // a run created past the stage, or already succeeded, is refused and nothing is created
    for (const extra of [{ stage_index: 3 }, { status: 'succeeded' }]) {
      const created = await http(base, 'POST', '/v1/deployments/runs', {
        token: ann.token,
        body: { project: 'gt', flow_id: 'release', environment: 'production', items: ['GT-5'], ...extra },
      });
      expect(created.status).toBe(409);
      expect(created.body).toMatchObject({ code: 'approval_required', run: null });
    }
    // a run of no flow in the gated environment cannot be succeeded either: it has no approval
    const flowless = await http(base, 'POST', '/v1/deployments/runs', {
      token: ann.token,
      body: { project: 'gt', environment: 'production', items: ['GT-5'], status: 'succeeded' },
    });
    expect(flowless.status).toBe(409);
    expect(flowless.body).toMatchObject({ code: 'approval_required', required_approval: 'admin' });
    expect(
      await sql(db.url, `SELECT 1 FROM deployment_runs WHERE carried_work -> 'items' @> $1::jsonb`, [
        JSON.stringify([ids['GT-5']]),
      ]),
    ).toEqual([]);
    expect((await explain('GT-2')).bucket).toBe('blocked');
  });

  it('should refuse a member flow or run that skips the approval in the gated environment', async () => {
    const flow = await http(base, 'POST', '/v1/deployments/flows', {
      token: mia.token,
      body: {
        id: 'sneak',
        project: 'gt',
        name: 'sneak',
        stages: ['build', { name: 'prod', environment: 'production' }],
      },
    });
    expect(flow.status).toBe(403);
    expect(flow.body).toMatchObject({ code: 'approver_required', environment: 'production', required: 'admin' });
    // a flow that names no environment is ordinary, but a run of it into the gated environment is not
    const plain = await http(base, 'POST', '/v1/deployments/flows', {
      token: mia.token,
      body: { id: 'plain', project: 'gt', name: 'plain', stages: ['deploy'] },
    });
    expect(plain.status).toBe(201);
    const run = await http(base, 'POST', '/v1/deployments/runs', {
      token: mia.token,
      body: { project: 'gt', flow_id: 'plain', environment: 'production', items: ['GT-3'], status: 'succeeded' },
    });
    expect(run.status).toBe(403);
    expect(run.body).toMatchObject({ code: 'approver_required' });
    const env = await http(base, 'POST', '/v1/deployments/environments', {
      token: mia.token,
      body: { project: 'gt', name: 'production-eu', flow_id: 'release' },
    });
    expect(env.status).toBe(403);
    expect(await sql(db.url, `SELECT id FROM deployment_flows WHERE id = 'sneak'`)).toEqual([]);
    expect(await sql(db.url, `SELECT 1 FROM environments WHERE name = 'production-eu'`)).toEqual([]);
    expect(
      await sql(db.url, `SELECT 1 FROM deployment_runs WHERE carried_work -> 'items' @> $1::jsonb`, [
        JSON.stringify([ids['GT-3']]),
      ]),
    ).toEqual([]);
  });

  it('should not count a succeeded run that skipped the approval toward fact:deployed, however it was written', async () => {
    expect((await explain('GT-4')).bucket).toBe('blocked');
    // a bypass written before the fix (or by any writer that is not the daemon's deployments routes)
    await sql(
      db.url,
      `INSERT INTO deployment_flows (id, project, name, stages) VALUES ('bypass', 'gt', 'bypass', '["deploy"]'::jsonb)`,
    );
    await sql(
      db.url,
      `INSERT INTO deployment_runs (project, flow_id, environment, status, carried_work, finished_at)
       VALUES ('gt', 'bypass', 'production', 'succeeded', jsonb_build_object('items', jsonb_build_array($1::int)), now())`,
      [ids['GT-3']],
    );
    const [bypass] = await sql<{ required_approval: string | null }>(
      db.url,
      `SELECT required_approval FROM deployment_runs WHERE flow_id = 'bypass'`,
    );
    expect(bypass.required_approval).toBe('admin');
    const explained = await explain('GT-4');
    expect(explained.bucket).toBe('blocked');
    expect(explained.unsatisfied).toEqual([
      expect.objectContaining({ blocker: 'GT-3', satisfaction: 'fact:deployed:production' }),
    ]);
    // the closure gate reads the same facts: the dependent cannot be done
    const done = await http(base, 'POST', `/v1/items/GT-4/status`, { token: ann.token, body: { status: 'done' } });
    expect(done.status).toBe(409);
  });

  it('should let an admin approve, move on and succeed, and then satisfy fact:deployed', async () => {
    const [{ id: runId }] = await sql<{ id: string }>(
      db.url,
      `SELECT id FROM deployment_runs WHERE flow_id = 'release' AND carried_work -> 'items' @> $1::jsonb`,
      [JSON.stringify([ids['GT-1']])],
    );
    expect((await explain('GT-2')).bucket).toBe('blocked');
    const byMember = await http(base, 'POST', '/v1/deployments/approvals', {
      token: mia.token,
      body: { item: 'GT-1' },
    });
    expect(byMember.status).toBe(403);
    expect(byMember.body).toMatchObject({ code: 'admin_approval_required' });
    const approved = await http(base, 'POST', '/v1/deployments/approvals', {
      token: ann.token,
      body: { item: 'GT-1' },
    });
    expect(approved.status).toBe(201);
    expect(approved.body).toMatchObject({ approved_by: 'ann', stage: 'production', stage_index: 2 });

    const moved = await patch(ann.token, runId, { stage_index: 3 });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({
      status: 'running',
      current_stage: 'smoke',
      halt: null,
      required_approval: 'admin',
    });
    // still deploying: not yet live
    expect((await explain('GT-2')).bucket).toBe('blocked');
    const succeeded = await patch(ann.token, runId, { status: 'succeeded' });
    expect(succeeded.status).toBe(200);
    expect(succeeded.body.status).toBe('succeeded');
    const explained = await explain('GT-2');
    expect(explained.unsatisfied).toEqual([]);
    expect(explained.bucket).not.toBe('blocked');
    // the bypass of GT-3 still does not count
    expect((await explain('GT-4')).bucket).toBe('blocked');
  });

  it('should leave a member free in an environment without approval stages', async () => {
    const flow = await http(base, 'POST', '/v1/deployments/flows', {
      token: mia.token,
      body: {
        id: 'docs',
        project: 'gt',
        name: 'docs',
        stages: ['build', { name: 'publish', environment: 'docs-site' }],
      },
    });
    expect(flow.status).toBe(201);
    const env = await http(base, 'POST', '/v1/deployments/environments', {
      token: mia.token,
      body: { project: 'gt', name: 'docs-site', flow_id: 'docs' },
    });
    expect(env.status).toBe(201);
    const run = await http<RunWire>(base, 'POST', '/v1/deployments/runs', {
      token: mia.token,
      body: { project: 'gt', flow_id: 'docs', environment: 'docs-site', items: ['GT-5'], stage_index: 1 },
    });
    expect(run.status).toBe(201);
    expect(run.body.required_approval).toBeNull();
    const moved = await patch(mia.token, run.body.id, { stage_index: 2 });
    expect(moved.status).toBe(200);
    const done = await patch(mia.token, run.body.id, { status: 'succeeded' });
    expect(done.status).toBe(200);
    expect(done.body.status).toBe('succeeded');
  });
});
