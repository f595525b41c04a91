import {
  CliResult,
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
import { createActor, sql, TestActor } from '@app/testing/machine-auth';

// Issue 15's Done-when list, driven from the svc command line only (the fixtures are rows and actors).
interface RunWire {
  id: string;
  status: string;
  current_stage: string | null;
  stage_index: number;
  capabilities: string[] | null;
  halt: { kind: string; stage: string; missing: string[]; since: string; summary: string } | null;
}
interface FrontierRow {
  item_id: string;
  adapter: string;
  blocked_reasons: string[];
}
interface ErrorBody {
  code: string;
  message: string;
  run?: RunWire | null;
  missing?: string[];
}

// each step is an svc process: a whole pipeline is a few dozen of them on a shared machine
jest.setTimeout(240_000);

const SHIP_STAGES = JSON.stringify([
  'build',
  { name: 'staging', capabilities: ['docker'] },
  { name: 'production', environment: 'production', approval: true },
]);

describe('deployment halts from the command line', () => {
  let db: TestDatabase;
  let daemon: DaemonProcess;
  let env: Record<string, string>;
  let mia: TestActor;
  let ann: TestActor;
  let otto: TestActor;

  beforeAll(async () => {
    db = await createTestDatabase('server', 'deploy_halts_cli');
    daemon = await startDaemonProcess({ env: { SVC_DATABASE_URL: db.url } });
    env = svcEnv(daemon);
    await withClient(db.url, async (client) => {
      await createProject(client, { id: 'dep', prefix: 'DP' });
      await insertItems(client, 'dep', [
        { title: 'ship it', status: 'release' },
        { title: 'ship that', status: 'release' },
      ]);
      await createProject(client, { id: 'org', prefix: 'OR' });
      await insertItems(client, 'org', [
        { title: 'member gate', status: 'release' },
        { title: 'admin gate', status: 'release' },
      ]);
      await createProject(client, { id: 'strict', prefix: 'ST', policy: { deployment_approval_role: 'admin' } });
      await insertItems(client, 'strict', [{ title: 'policy gate', status: 'release' }]);
    });
    mia = await createActor(db.url, { name: 'mia', org: 'acme', role: 'member' });
    ann = await createActor(db.url, { name: 'ann', org: 'acme', role: 'admin' });
    otto = await createActor(db.url, { name: 'otto', org: 'other', role: 'admin' });
    await sql(
      db.url,
      `UPDATE projects SET organization_id = (SELECT id FROM organizations WHERE slug = 'acme')
        WHERE id IN ('org', 'strict')`,
    );
  });

  afterAll(async () => {
    await daemon?.stop();
    await db?.drop();
  });

  const svc = (args: string[], token?: string) =>
    runSvc([...args, '--json'], { env: token ? { ...env, SVC_TOKEN: token } : env });
  const ok = async <T = Record<string, unknown>>(args: string[], token?: string): Promise<T> => {
    const result = await svc(args, token);
    if (result.code !== 0) throw new Error(`svc ${args.join(' ')} failed (${result.code}): ${result.stderr}`);
    return parseJson<T>(result);
  };
  const refused = async (args: string[], token?: string): Promise<{ result: CliResult; body: ErrorBody }> => {
    const result = await svc(args, token);
    expect(result.code).not.toBe(0);
    return { result, body: JSON.parse(result.stderr.trim().split('\n').pop()!) as ErrorBody };
  };
  const frontier = (project: string) =>
    ok<{ ready_rows: FrontierRow[]; blocked_rows: FrontierRow[] }>(['frontier', 'list', '--project', project]);
  const runRow = async (id: string) =>
    (
      await sql<{ status: string; halt_kind: string | null; halted_at: Date | null }>(
        db.url,
        'SELECT status, halt_kind, halted_at FROM deployment_runs WHERE id = $1',
        [id],
      )
    )[0];

  it('should halt at a capability stage and an approval stage, approve once, resume and complete before done', async () => {
    const flow = await ok<{ stages: unknown[] }>([
      'deployments',
      'flows',
      'create',
      'ship',
      '--project',
      'dep',
      '--stages',
      SHIP_STAGES,
    ]);
    expect(flow.stages).toEqual(JSON.parse(SHIP_STAGES));
    await ok(['items', 'update', 'DP-1', 'deployment_flow', '--value', 'ship']);

    // done is held while the item's flow has no completed run
    const tooSoon = await refused(['items', 'status', 'DP-1', 'done']);
    expect(tooSoon.body).toMatchObject({ code: 'deployment_incomplete', run: null });

    const created = await ok<RunWire>([
      'deployments',
      'runs',
      'create',
      '--project',
      'dep',
      '--flow',
      'ship',
      '--environment',
      'production',
      '--items',
      'DP-1',
      '--stage-index',
      '1',
      '--capabilities',
      'kubectl',
    ]);
    expect(created).toMatchObject({ status: 'running', current_stage: 'build', capabilities: ['kubectl'], halt: null });
    const run = created.id;

    // staging needs docker, which the runner does not have: the run halts and says what is missing
    const missing = await ok<RunWire>(['deployments', 'runs', 'update', run, '--stage-index', '2']);
    expect(missing).toMatchObject({
      status: 'halted',
      current_stage: 'staging',
      halt: { kind: 'needs-capability', stage: 'staging', missing: ['docker'] },
    });
    expect(missing.halt!.summary).toMatch(/^needs capability docker for staging since \d+s$/);
    const progress = await ok<{ halt: { summary: string } | null }>(['items', 'progress', 'DP-1']);
    expect(progress.halt!.summary).toMatch(/^needs capability docker for staging since/);
    // the readable view says it in words, not as a JSON object
    const readable = await runSvc(['items', 'progress', 'DP-1'], { env });
    expect(readable.stdout).toMatch(/^halt\s+needs capability docker for staging since \d+s$/m);
    expect((await ok<{ deploy_stage: string }>(['items', 'get', 'DP-1'])).deploy_stage).toBe('needs-capability');

    // the frontier lists it as blocked, with the halt in words; explain says the same
    let rows = await frontier('dep');
    expect(rows.ready_rows.map((r) => r.item_id)).toEqual(['DP-2']);
    const blocked = rows.blocked_rows.find((r) => r.item_id === 'DP-1')!;
    expect(blocked.adapter).toBe('wait');
    expect(blocked.blocked_reasons).toEqual([
      expect.stringMatching(
        new RegExp(
          `^deployment halted \\(needs-capability\\): needs capability docker for staging since ` +
            `\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2} UTC; fix it, then svc deployments runs resume ${run}$`,
        ),
      ),
    ]);
    const explained = await ok<{ bucket: string; summary: string[] }>(['frontier', 'explain', 'DP-1']);
    expect(explained.bucket).toBe('blocked');
    expect(explained.summary.join('\n')).toContain('needs capability docker for staging');

    // resuming before the fix changes nothing and says what is still missing
    const before = await runRow(run);
    const notFixed = await refused(['deployments', 'runs', 'resume', run]);
    expect(notFixed.body).toMatchObject({
      code: 'run_still_halted',
      missing: ['docker'],
      run: { status: 'halted', halt: { kind: 'needs-capability' } },
    });
    expect(await runRow(run)).toEqual(before);

    // fixed: the runner declares docker and the run resumes at staging; a second resume is 409 and changes nothing
    const resumed = await ok<RunWire>(['deployments', 'runs', 'resume', run, '--capabilities', 'docker,kubectl']);
    expect(resumed).toMatchObject({ status: 'running', current_stage: 'staging', stage_index: 2, halt: null });
    expect((await ok<{ deploy_stage: string }>(['items', 'get', 'DP-1'])).deploy_stage).toBe('staging');
    const twice = await refused(['deployments', 'runs', 'resume', run]);
    expect(twice.body).toMatchObject({ code: 'run_not_halted', run: { status: 'running' } });
    const [resumedEvent] = await sql<{ item_ref: string; payload: Record<string, unknown> }>(
      db.url,
      `SELECT item_ref, payload FROM events WHERE name = 'DeploymentResumed'`,
    );
    expect(resumedEvent).toMatchObject({
      item_ref: 'DP-1',
      payload: { run_id: run, stage: 'staging', halt: { kind: 'needs-capability', missing: ['docker'] } },
    });
    rows = await frontier('dep');
    expect(rows.ready_rows.find((r) => r.item_id === 'DP-1')).toMatchObject({ adapter: 'usher' });

    // production needs a human approval
    const halted = await ok<RunWire>(['deployments', 'runs', 'update', run, '--stage-index', '3']);
    expect(halted).toMatchObject({
      status: 'halted',
      current_stage: 'production',
      halt: { kind: 'awaiting-approval', stage: 'production', missing: [] },
    });
    expect(halted.halt!.summary).toMatch(/^awaiting approval for production since \d+s$/);
    rows = await frontier('dep');
    expect(rows.blocked_rows.find((r) => r.item_id === 'DP-1')!.blocked_reasons[0]).toMatch(
      /^deployment halted \(awaiting-approval\): awaiting approval for production since .* UTC; approve with svc approve DP-1$/,
    );
    const early = await refused(['items', 'status', 'DP-1', 'done']);
    expect(early.body).toMatchObject({
      code: 'deployment_incomplete',
      run: { id: run, status: 'halted', halt: { kind: 'awaiting-approval' } },
    });
    const unapproved = await refused(['deployments', 'runs', 'resume', run]);
    expect(unapproved.body).toMatchObject({ code: 'run_still_halted', run: { halt: { kind: 'awaiting-approval' } } });
    expect(unapproved.body.message).toContain('svc approve DP-1');

    // svc approve records the approval once; a second approve is 409
    const approved = await ok(['approve', 'DP-1']);
    expect(approved).toMatchObject({ item_id: 'DP-1', run_id: run, stage: 'production', approved_by: 'admin' });
    const again = await refused(['approve', 'DP-1']);
    expect(again.body).toMatchObject({ code: 'already_approved' });
    expect(await sql(db.url, 'SELECT stage, stage_index FROM deployment_approvals WHERE run_id = $1', [run])).toEqual([
      { stage: 'production', stage_index: 3 },
    ]);
    // approved: the usher step is runnable again, to re-run the gate
    rows = await frontier('dep');
    expect(rows.ready_rows.find((r) => r.item_id === 'DP-1')).toMatchObject({ adapter: 'usher', blocked_reasons: [] });

    // the usher step re-runs and passes; done still waits for the run to complete
    const passed = await ok<RunWire>(['deployments', 'runs', 'update', run, '--stage-index', '3']);
    expect(passed).toMatchObject({ status: 'running', current_stage: 'production', halt: null });
    expect((await refused(['items', 'status', 'DP-1', 'done'])).body.code).toBe('deployment_incomplete');
    const succeeded = await ok<RunWire>(['deployments', 'runs', 'update', run, '--status', 'succeeded']);
    expect(succeeded.status).toBe('succeeded');
    expect((await ok<{ deploy_stage: string }>(['items', 'get', 'DP-1'])).deploy_stage).toBe('complete');
    const done = await ok<{ status: string }>(['items', 'status', 'DP-1', 'done']);
    expect(done.status).toBe('done');
  });

  it('should resume an approved halt explicitly, and refuse to resume a run that never halted', async () => {
    const created = await ok<RunWire>([
      'deployments',
      'runs',
      'create',
      '--project',
      'dep',
      '--flow',
      'ship',
      '--environment',
      'production',
      '--items',
      'DP-2',
      '--stage',
      'production',
    ]);
    expect(created).toMatchObject({ status: 'halted', halt: { kind: 'awaiting-approval', stage: 'production' } });
    await ok(['approve', 'DP-2']);
    const resumed = await ok<RunWire>(['deployments', 'runs', 'resume', created.id]);
    expect(resumed).toMatchObject({ status: 'running', current_stage: 'production', halt: null });

    const plain = await ok<RunWire>([
      'deployments',
      'runs',
      'create',
      '--project',
      'dep',
      '--environment',
      'staging',
      '--items',
      'DP-2',
    ]);
    const never = await refused(['deployments', 'runs', 'resume', plain.id]);
    expect(never.body).toMatchObject({ code: 'run_not_halted', run: { id: plain.id, status: 'running' } });
    const unknown = await refused(['deployments', 'runs', 'resume', '00000000-0000-0000-0000-000000000000']);
    expect(unknown.body.code).toBe('deployment_run_not_found');
    const badCapabilities = await refused([
      'deployments',
      'runs',
      'resume',
      plain.id,
      '--capabilities',
      'x'.repeat(101),
    ]);
    expect(badCapabilities.body.code).toBe('validation_failed');
  });

  it('should let only members of the organization approve, and only admins where the stage or project says so', async () => {
    await ok([
      'deployments',
      'flows',
      'create',
      'member-gate',
      '--project',
      'org',
      '--stages',
      JSON.stringify([{ name: 'production', approval: true }]),
    ]);
    await ok([
      'deployments',
      'flows',
      'create',
      'admin-gate',
      '--project',
      'org',
      '--stages',
      JSON.stringify([{ name: 'production', approval: { role: 'admin' } }]),
    ]);
    await ok([
      'deployments',
      'flows',
      'create',
      'policy-gate',
      '--project',
      'strict',
      '--stages',
      JSON.stringify([{ name: 'production', approval: true }]),
    ]);
    const halt = async (project: string, flow: string, item: string) =>
      ok<RunWire>([
        'deployments',
        'runs',
        'create',
        '--project',
        project,
        '--flow',
        flow,
        '--environment',
        'production',
        '--items',
        item,
        '--stage-index',
        '1',
      ]);
    const memberRun = await halt('org', 'member-gate', 'OR-1');
    const adminRun = await halt('org', 'admin-gate', 'OR-2');
    const policyRun = await halt('strict', 'policy-gate', 'ST-1');
    for (const run of [memberRun, adminRun, policyRun]) expect(run.halt).toMatchObject({ kind: 'awaiting-approval' });
    const approvals = async () =>
      (await sql<{ run_id: string }>(db.url, 'SELECT run_id FROM deployment_approvals ORDER BY id')).map(
        (a) => a.run_id,
      );
    const beforeCount = (await approvals()).length;

    // the server admin sees the project but is no member of acme; someone of another organization does not see it
    const notMember = await refused(['approve', 'OR-1']);
    expect(notMember.result.code).toBe(3);
    expect(notMember.body).toMatchObject({ code: 'organization_membership_required' });
    expect((await refused(['approve', 'OR-1'], otto.token)).body.code).toBe('item_not_found');

    // a member approves a member gate, not an admin gate nor a project requiring admins
    expect((await refused(['approve', 'OR-2'], mia.token)).body.code).toBe('admin_approval_required');
    expect((await refused(['approve', 'ST-1'], mia.token)).body.code).toBe('admin_approval_required');
    expect(await approvals()).toHaveLength(beforeCount);
    expect(await ok(['approve', 'OR-1'], mia.token)).toMatchObject({ approved_by: 'mia', run_id: memberRun.id });
    expect(await ok(['approve', 'OR-2'], ann.token)).toMatchObject({ approved_by: 'ann', run_id: adminRun.id });
    expect(await ok(['approve', 'ST-1'], ann.token)).toMatchObject({ approved_by: 'ann', run_id: policyRun.id });
    expect((await approvals()).slice(beforeCount)).toEqual([memberRun.id, adminRun.id, policyRun.id]);
  });
});
