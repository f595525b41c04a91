import {
  createProject,
  createTestDatabase,
  DaemonProcess,
  insertItems,
  parseJson,
  runSvc,
  startDaemonProcess,
  svcEnv,
  TestDatabase,
  withClient,
} from '@app/testing';
import { createActor, http, sql, TestActor } from '@app/testing/machine-auth';

interface RunWire {
  id: string;
  status: string;
  current_stage: string | null;
  stage_index: number;
  halt: { kind: string; stage: string; missing: string[]; since: string; summary: string } | null;
}

describe('deployment halts: awaiting-approval, needs-capability, complete before done', () => {
  let db: TestDatabase;
  let daemon: DaemonProcess;
  let base: string;
  let admin: string;
  let env: Record<string, string>;
  let mia: TestActor;
  let ann: TestActor;

  beforeAll(async () => {
    db = await createTestDatabase('server', 'deploy_halts');
    daemon = await startDaemonProcess({ env: { SVC_DATABASE_URL: db.url } });
    base = daemon.url;
    admin = daemon.token!;
    env = svcEnv(daemon);
    await withClient(db.url, async (client) => {
      await createProject(client, { id: 'dep', prefix: 'DP' });
      await insertItems(
        client,
        'dep',
        Array.from({ length: 4 }, (_v, i) => ({ title: `ship ${i + 1}`, status: 'release' })),
      );
      await createProject(client, { id: 'org', prefix: 'OR', policy: { deployment_approval_role: 'admin' } });
      await insertItems(client, 'org', [{ title: 'guarded', status: 'release' }]);
    });
    mia = await createActor(db.url, { name: 'mia', org: 'acme', role: 'member' });
    ann = await createActor(db.url, { name: 'ann', org: 'acme', role: 'admin' });
    await sql(
      db.url,
      `UPDATE projects SET organization_id = (SELECT id FROM organizations WHERE slug = 'acme') WHERE id = 'org'`,
    );
    for (const [project, id, stages, extra] of [
      [
        'dep',
        'ship',
        [
          'build',
          { name: 'staging', capabilities: ['docker'] },
          { name: 'production', environment: 'production', approval: true },
        ],
        {},
      ],
      ['dep', 'loose', ['build', { name: 'production', approval: true }], { complete_before_done: false }],
      ['org', 'guarded', [{ name: 'production', approval: true }], {}],
    ] as const) {
      const res = await http(base, 'POST', '/v1/deployments/flows', {
        token: admin,
        body: { id, project, name: id, stages, ...extra },
      });
      expect(res.status).toBe(201);
    }
    await sql(db.url, `UPDATE items SET deployment_flow = 'ship' WHERE project = 'dep' AND project_sequence IN (1, 3)`);
  });

  afterAll(async () => {
    await daemon?.stop();
    await db?.drop();
  });

  const advance = (id: string, body: Record<string, unknown>) =>
    http<RunWire>(base, 'PATCH', `/v1/deployments/runs/${id}`, { token: admin, body });
  const item = async (ref: string) =>
    (await http<{ status: string; deploy_stage: string | null }>(base, 'GET', `/v1/items/${ref}`, { token: admin }))
      .body;
  const setStatus = (ref: string, status: string, token = admin) =>
    http(base, 'POST', `/v1/items/${ref}/status`, { token, body: { status } });

  it('should halt at a capability and an approval stage, approve once with svc approve, and complete after the usher re-runs', async () => {
    const created = await http<RunWire>(base, 'POST', '/v1/deployments/runs', {
      token: admin,
      body: { project: 'dep', flow_id: 'ship', environment: 'production', items: ['DP-1'], stage_index: 1 },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'running', current_stage: 'build', halt: null });
    const runId = created.body.id;

    // staging needs docker: a usher step without it halts the run and says what is missing
    const missing = await advance(runId, { stage_index: 2, capabilities: ['kubectl'] });
    expect(missing.status).toBe(200);
    expect(missing.body).toMatchObject({
      status: 'halted',
      current_stage: 'staging',
      halt: { kind: 'needs-capability', stage: 'staging', missing: ['docker'] },
    });
    expect(missing.body.halt!.summary).toMatch(/^needs capability docker for staging since \d+s$/);
    expect((await item('DP-1')).deploy_stage).toBe('needs-capability');
    // the usher is not dispatched into a capability halt: the item waits in the frontier's blocked bucket
    const session = await http<{ session_id: number }>(base, 'POST', '/v1/sessions', {
      token: admin,
      body: { harness: 'h', model: 'm', project: 'dep' },
    });
    const blind = await http<{ code: string; blocked_reasons: string[] }>(base, 'POST', '/v1/charge/dispatch', {
      token: admin,
      body: { session_id: session.body.session_id, item_id: 'DP-1' },
    });
    expect(blind.status).toBe(409);
    expect(blind.body.code).toBe('wait_adapter_encountered');
    expect(blind.body.blocked_reasons).toEqual([expect.stringContaining('needs capability docker for staging')]);
    // fixed: the re-run with docker passes
    const fixed = await advance(runId, { stage_index: 2, capabilities: ['docker'] });
    expect(fixed.body).toMatchObject({ status: 'running', current_stage: 'staging', halt: null });
    expect((await item('DP-1')).deploy_stage).toBe('staging');

    // production needs a human approval
    const halted = await advance(runId, { stage_index: 3 });
    expect(halted.body).toMatchObject({
      status: 'halted',
      current_stage: 'production',
      halt: { kind: 'awaiting-approval', stage: 'production', missing: [] },
    });
    expect(halted.body.halt!.summary).toMatch(/^awaiting approval for production since \d+s$/);
    expect((await item('DP-1')).deploy_stage).toBe('awaiting-approval');
    const progress = await http<Record<string, unknown>>(base, 'GET', '/v1/items/DP-1/progress', { token: admin });
    expect(progress.body).toMatchObject({
      flow_name: 'ship',
      run_id: runId,
      current_stage: 'production',
      halt: {
        kind: 'awaiting-approval',
        stage: 'production',
        summary: expect.stringMatching(/^awaiting approval for production since/),
      },
    });
    // re-running the usher step without an approval stays halted, at the same halt time
    const still = await advance(runId, { stage_index: 3 });
    expect(still.body.status).toBe('halted');
    expect(still.body.halt!.since).toBe(halted.body.halt!.since);

    // the usher dispatch reports the halt instead of dispatching
    const dispatched = await http(base, 'POST', '/v1/charge/dispatch', {
      token: admin,
      body: { session_id: session.body.session_id, item_id: 'DP-1' },
    });
    expect(dispatched.status).toBe(409);
    expect(dispatched.body).toMatchObject({
      code: 'deployment_awaiting_approval',
      item_id: 'DP-1',
      run_id: runId,
      stage: 'production',
      decision_recorded: true,
    });
    const [decision] = await sql<{ payload: { detail: Record<string, unknown> } }>(
      db.url,
      `SELECT payload FROM events WHERE name = 'ChargeDecisionMade' AND item_ref = 'DP-1' ORDER BY id DESC LIMIT 1`,
    );
    expect(decision.payload.detail).toMatchObject({ reason: 'wait_adapter_encountered', dispatched: false });
    expect(await sql(db.url, 'SELECT 1 FROM item_claims')).toEqual([]);

    // done waits for the run
    const early = await setStatus('DP-1', 'done');
    expect(early.status).toBe(409);
    expect(early.body).toMatchObject({
      code: 'deployment_incomplete',
      run: { id: runId, status: 'halted', halt: { kind: 'awaiting-approval' } },
    });

    const approved = await runSvc(['approve', 'DP-1', '--json'], { env });
    expect(approved.code).toBe(0);
    expect(parseJson<Record<string, unknown>>(approved)).toMatchObject({
      item_id: 'DP-1',
      run_id: runId,
      stage: 'production',
      environment: 'production',
      approved_by: 'admin',
    });
    const again = await runSvc(['approve', 'DP-1'], { env });
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('already_approved');
    expect(await sql(db.url, 'SELECT stage, stage_index FROM deployment_approvals')).toEqual([
      { stage: 'production', stage_index: 3 },
    ]);
    const events = await sql(db.url, `SELECT item_ref, payload FROM events WHERE name = 'DeploymentApproved'`);
    expect(events).toEqual([
      {
        item_ref: 'DP-1',
        payload: expect.objectContaining({ run_id: runId, stage: 'production', approved_by: 'admin' }),
      },
    ]);

    // the usher step re-runs and passes; the run completes; done is accepted
    const resumed = await advance(runId, { stage_index: 3 });
    expect(resumed.body).toMatchObject({ status: 'running', current_stage: 'production', halt: null });
    expect((await setStatus('DP-1', 'done')).status).toBe(409);
    const succeeded = await advance(runId, { status: 'succeeded' });
    expect(succeeded.body.status).toBe('succeeded');
    expect((await item('DP-1')).deploy_stage).toBe('complete');
    const done = await setStatus('DP-1', 'done');
    expect(done.status).toBe(200);
    expect((await item('DP-1')).status).toBe('done');
  });

  it('should refuse to approve an item not awaiting approval with 409', async () => {
    const res = await runSvc(['approve', 'DP-2'], { env });
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('not_awaiting_approval');
    const created = await http<RunWire>(base, 'POST', '/v1/deployments/runs', {
      token: admin,
      body: { project: 'dep', flow_id: 'ship', environment: 'production', items: ['DP-2'] },
    });
    expect(created.body.status).toBe('running');
    const running = await http(base, 'POST', '/v1/deployments/approvals', { token: admin, body: { item: 'DP-2' } });
    expect(running.status).toBe(409);
    expect(running.body).toMatchObject({ code: 'not_awaiting_approval', run: { status: 'running' } });
    const bad = await http(base, 'POST', '/v1/deployments/approvals', { token: admin, body: { item: 'not a ref' } });
    expect(bad.status).toBe(400);
    expect(
      await sql(
        db.url,
        `SELECT 1 FROM deployment_approvals a JOIN items i ON i.id = a.item_id WHERE i.project_sequence = 2 AND i.project = 'dep'`,
      ),
    ).toEqual([]);
  });

  it('should let only members approve, and admins where the project requires it', async () => {
    const run = await http<RunWire>(base, 'POST', '/v1/deployments/runs', {
      token: admin,
      body: { project: 'org', flow_id: 'guarded', environment: 'production', items: ['OR-1'], stage_index: 1 },
    });
    expect(run.body).toMatchObject({ status: 'halted', halt: { kind: 'awaiting-approval', stage: 'production' } });
    const outsider = await createActor(db.url, { name: 'otto', org: 'other', role: 'admin' });
    const hidden = await http(base, 'POST', '/v1/deployments/approvals', {
      token: outsider.token,
      body: { item: 'OR-1' },
    });
    expect(hidden.status).toBe(404);
    const member = await http(base, 'POST', '/v1/deployments/approvals', { token: mia.token, body: { item: 'OR-1' } });
    expect(member.status).toBe(403);
    expect(member.body).toMatchObject({ code: 'admin_approval_required' });
    expect(await sql(db.url, `SELECT 1 FROM deployment_approvals WHERE run_id = $1`, [run.body.id])).toEqual([]);
    const byAdmin = await http(base, 'POST', '/v1/deployments/approvals', { token: ann.token, body: { item: 'OR-1' } });
    expect(byAdmin.status).toBe(201);
    expect(byAdmin.body).toMatchObject({ approved_by: 'ann', stage: 'production' });
  });

  it('should hold done for an item of a flow with no run yet, and not when the flow says otherwise', async () => {
    const none = await setStatus('DP-3', 'done');
    expect(none.status).toBe(409);
    expect(none.body).toMatchObject({ code: 'deployment_incomplete', run: null });
    const loose = await http<RunWire>(base, 'POST', '/v1/deployments/runs', {
      token: admin,
      body: { project: 'dep', flow_id: 'loose', environment: 'production', items: ['DP-4'] },
    });
    expect(loose.body.status).toBe('running');
    expect((await setStatus('DP-4', 'done')).status).toBe(200);
  });

  it('should refuse a flow whose stages are malformed', async () => {
    for (const stages of [
      [{ name: 'x', approval: 'yes' }],
      [{ nome: 'x' }],
      ['a', 'a'],
      [{ name: 'y', capabilities: ['has space'] }],
    ]) {
      const res = await http(base, 'POST', '/v1/deployments/flows', {
        token: admin,
        body: { id: `bad-${Math.random().toString(36).slice(2, 8)}`, project: 'dep', name: 'bad', stages },
      });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_failed' });
    }
  });
});
