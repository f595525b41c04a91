import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';

import {
  createTestDatabase,
  DaemonProcess,
  insertItems,
  REPO_ROOT,
  runSvc,
  startDaemonProcess,
  svcEnv,
  TestDatabase,
  withClient,
} from '@app/testing';
import { createActor, http, sql, TestActor } from '@app/testing/machine-auth';

type Json = Record<string, unknown>;
const DEMO = join(REPO_ROOT, 'examples', 'demo-backlog.json');

describe('backlog import and export', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-transfer-'));
  let first: { db: TestDatabase; daemon: DaemonProcess };
  let second: { db: TestDatabase; daemon: DaemonProcess };

  const svc = (daemon: DaemonProcess, ...args: string[]) => runSvc([...args, '--json'], { env: svcEnv(daemon) });
  async function ok<T = Json>(daemon: DaemonProcess, ...args: string[]): Promise<T> {
    const result = await svc(daemon, ...args);
    if (result.code !== 0) throw new Error(`svc ${args.join(' ')} failed: ${result.stderr}`);
    return JSON.parse(result.stdout) as T;
  }
  async function refused(daemon: DaemonProcess, ...args: string[]): Promise<Json> {
    const result = await svc(daemon, ...args);
    expect(result.code).not.toBe(0);
    return JSON.parse(result.stderr.trim().split('\n').pop()!) as Json;
  }
  async function count(db: TestDatabase, table: string): Promise<number> {
    const client = new Client({ connectionString: db.url });
    await client.connect();
    try {
      return Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0].n);
    } finally {
      await client.end();
    }
  }
  async function boot(label: string) {
    const db = await createTestDatabase('server', label);
    return { db, daemon: await startDaemonProcess({ env: { SVC_DATABASE_URL: db.url } }) };
  }

  beforeAll(async () => {
    [first, second] = await Promise.all([boot('transfer_a'), boot('transfer_b')]);
  });

  afterAll(async () => {
    for (const side of [first, second]) {
      await side?.daemon.stop();
      await side?.db.drop();
    }
  });

  it('should import the demo backlog with everything it carries', async () => {
    const summary = await ok(first.daemon, 'import', DEMO);
    expect(summary).toEqual({
      project: 'atlas',
      replaced: false,
      items: 40,
      sections: 5,
      dependencies: 32,
      epic_tasks: 8,
      shepherd_verdicts: 3,
      caveat_dispositions: 3,
      deployment_flows: 1,
      environments: 3,
      deployment_runs: 3,
      workflow_versions_created: 0,
      snapshot_id: null,
      not_carried: { claims: [], deployment_approvals: [] },
    });
    const gates = new Set(
      (JSON.parse(readFileSync(DEMO, 'utf8')) as { dependencies: Json[] }).dependencies.map((d) => d.gate_point),
    );
    expect([...gates].sort()).toEqual(['activation', 'closure', 'coordination_only', 'integration']);
    // ATL-6 only reached staging: production is halted awaiting approval
    const closure = await ok<{ satisfied: boolean }>(first.daemon, 'evaluate-gate', 'ATL-40', 'closure');
    expect(closure.satisfied).toBe(false);
    expect(await ok(first.daemon, 'evaluate-gate', 'ATL-30', 'closure')).toMatchObject({ satisfied: true });
    expect(await ok(first.daemon, 'evaluate-gate', 'ATL-33', 'closure')).toMatchObject({ satisfied: true });
    expect(await ok(first.daemon, 'items', 'progress', 'ATL-6')).toMatchObject({
      flow_name: 'Atlas main pipeline',
      current_stage: 'deploy-production',
      stage_progress: '4/5',
    });
  });

  it('should keep every field the demo gives when exported', async () => {
    const demo = JSON.parse(readFileSync(DEMO, 'utf8')) as { items: Json[]; dependencies: Json[]; project: Json };
    const exported = await ok<{ items: Json[]; dependencies: Json[]; project: Json }>(
      first.daemon,
      'export',
      '--project',
      'atlas',
    );
    expect(exported.project).toEqual(demo.project);
    demo.items.forEach((item, i) => expect(exported.items[i]).toMatchObject(item));
    expect(exported.dependencies).toHaveLength(demo.dependencies.length);
    for (const edge of demo.dependencies) expect(exported.dependencies).toContainEqual(expect.objectContaining(edge));
  });

  it('should round-trip losslessly: export → import into a new database → export is byte-identical', async () => {
    const a = join(dir, 'a.json');
    const b = join(dir, 'b.json');
    await ok(first.daemon, 'export', '--project', 'atlas', '--output', a);
    expect(await ok(second.daemon, 'import', a)).toMatchObject({ items: 40, dependencies: 32 });
    await ok(second.daemon, 'export', '--project', 'atlas', '--output', b);
    expect(readFileSync(b, 'utf8')).toBe(readFileSync(a, 'utf8'));
  });

  it('should refuse importing onto a non-empty project unless --replace, then replace it losslessly', async () => {
    const a = join(dir, 'a.json');
    const before = await count(second.db, 'items');
    expect(await refused(second.daemon, 'import', a)).toMatchObject({ code: 'project_not_empty', items: 40 });
    expect(await count(second.db, 'items')).toBe(before);
    await ok(second.daemon, 'items', 'create', '--project', 'atlas', '--title', 'Scratch');
    expect(await ok(second.daemon, 'import', a, '--replace')).toMatchObject({ replaced: true, items: 40 });
    const c = join(dir, 'c.json');
    await ok(second.daemon, 'export', '--project', 'atlas', '--output', c);
    expect(readFileSync(c, 'utf8')).toBe(readFileSync(a, 'utf8'));
  });

  it('should keep cross-project edges to existing items and refuse unknown ones with a clear list', async () => {
    const doc = {
      format: 'svc-backlog/v1',
      project: { id: 'side', public_item_prefix: 'SIDE' },
      items: [{ ref: 'SIDE-1', title: 'Uses the price book' }],
      dependencies: [{ dependent: 'SIDE-1', blocker: 'ATL-6', satisfaction: 'fact:merged' }],
    };
    expect(await ok(first.daemon, 'import', write('side.json', doc))).toMatchObject({ items: 1, dependencies: 1 });
    const list = await ok<{ dependencies: Json[] }>(first.daemon, 'items', 'dependency', 'list', 'SIDE-1');
    expect(list.dependencies).toEqual([expect.objectContaining({ other_item: 'ATL-6', satisfied: true })]);

    const projects = await count(first.db, 'projects');
    const missing = {
      ...doc,
      project: { id: 'lost', public_item_prefix: 'LOST' },
      items: [{ ref: 'LOST-1', title: 'x' }],
    };
    missing.dependencies = [{ dependent: 'LOST-1', blocker: 'NOPE-4', satisfaction: 'status:done' }];
    expect(await refused(first.daemon, 'import', write('lost.json', missing))).toMatchObject({
      code: 'unresolved_refs',
      refs: ['NOPE-4'],
    });
    expect(await count(first.db, 'projects')).toBe(projects);
  });

  it('should refuse malformed documents, writing nothing', async () => {
    const projects = await count(first.db, 'projects');
    const unknownKey = { format: 'svc-backlog/v1', project: { id: 'bad', public_item_prefix: 'BAD' }, colour: 'red' };
    const body = await refused(first.daemon, 'import', write('bad.json', unknownKey));
    expect(body).toMatchObject({ code: 'validation_failed', fields: [{ field: 'colour', problems: ['unknown key'] }] });
    const wrongPrefix = {
      format: 'svc-backlog/v1',
      project: { id: 'bad', public_item_prefix: 'BAD' },
      items: [{ ref: 'ATL-1', title: 'x' }],
    };
    expect(await refused(first.daemon, 'import', write('prefix.json', wrongPrefix))).toMatchObject({
      code: 'invalid_backlog',
    });
    const badStage = { ...wrongPrefix, items: [{ ref: 'BAD-1', title: 'x', status: 'shipping' }] };
    expect(await refused(first.daemon, 'import', write('stage.json', badStage))).toMatchObject({
      code: 'stage_not_in_workflow',
    });
    const cycle = {
      ...wrongPrefix,
      items: [
        { ref: 'BAD-1', title: 'a' },
        { ref: 'BAD-2', title: 'b' },
      ],
      dependencies: [
        { dependent: 'BAD-1', blocker: 'BAD-2' },
        { dependent: 'BAD-2', blocker: 'BAD-1' },
      ],
    };
    expect(await refused(first.daemon, 'import', write('cycle.json', cycle))).toMatchObject({
      code: 'dependency_cycle',
    });
    const path = join(dir, 'broken.json');
    writeFileSync(path, '{"format": ');
    expect(await refused(first.daemon, 'import', path)).toMatchObject({ code: 'invalid_json' });
    const response = await fetch(`${first.daemon.url}/v1/import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${first.daemon.token}`, 'content-type': 'application/json' },
      body: '{"format": ',
    });
    expect(response.status).toBe(400);
    expect(await count(first.db, 'projects')).toBe(projects);
  });

  function write(name: string, doc: unknown): string {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify(doc));
    return path;
  }
});

// Issue 36: import --replace rewrote a project past every rule. Replacing is an admin's act, keeps a snapshot of the
// project as it was, and a file's runs, approvals, flows and statuses count only where the routes would have let them.
describe('backlog import: replace is an admin act and loses nothing', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-replace-'));
  let db: TestDatabase;
  let daemon: DaemonProcess;
  let admin: string;
  let mia: TestActor;
  let ann: TestActor;
  let original: Doc;

  type Doc = {
    project: Json;
    items: Json[];
    dependencies: Json[];
    deployments: { flows: Json[]; environments: Json[]; runs: Json[] };
  } & Json;
  const call = <T = Json>(method: string, path: string, token: string, body?: unknown) =>
    http<T>(daemon.url, method, path, { token, body });
  const importAs = (token: string, doc: unknown, replace = true) =>
    call<Json>('POST', `/v1/import${replace ? '?replace=1' : ''}`, token, doc);
  const exported = async () => (await call<Doc>('GET', '/v1/export?project=atlas', admin)).body;
  const edited = (edit: (doc: Doc) => void): Doc => {
    const doc = structuredClone(original);
    edit(doc);
    return doc;
  };
  const count = async (query: string) => Number((await sql<{ n: string }>(db.url, query))[0].n);
  const svcAs = (token: string, ...args: string[]) =>
    runSvc([...args, '--json'], { env: { ...svcEnv(daemon), SVC_TOKEN: token } });

  beforeAll(async () => {
    db = await createTestDatabase('server', 'transfer_replace');
    daemon = await startDaemonProcess({ env: { SVC_DATABASE_URL: db.url } });
    admin = daemon.token!;
    mia = await createActor(db.url, { name: 'mia', org: 'default', role: 'member' });
    ann = await createActor(db.url, { name: 'ann', org: 'default', role: 'admin' });
    expect((await importAs(admin, JSON.parse(readFileSync(DEMO, 'utf8')), false)).status).toBe(201);
    // an admin-approval stage, an approval recorded on a run that passed it, and a claim
    const flow = await call('POST', '/v1/deployments/flows', admin, {
      id: 'atlas-gated',
      project: 'atlas',
      name: 'Gated',
      stages: ['build', { name: 'prod-eu', environment: 'prod-eu', approval: { role: 'admin' } }],
    });
    expect(flow.status).toBe(201);
    const env = { project: 'atlas', name: 'prod-eu', tier: 'production', flow_id: 'atlas-gated' };
    expect((await call('POST', '/v1/deployments/environments', admin, env)).status).toBe(201);
    const run = await call<{ id: string; status: string }>('POST', '/v1/deployments/runs', admin, {
      project: 'atlas',
      flow_id: 'atlas-gated',
      environment: 'prod-eu',
      items: ['ATL-9'],
      stage_index: 2,
    });
    expect(run.body).toMatchObject({ status: 'halted' });
    expect((await call('POST', '/v1/deployments/approvals', ann.token, { item: 'ATL-9' })).status).toBe(201);
    const done = await call('PATCH', `/v1/deployments/runs/${run.body.id}`, admin, { status: 'succeeded' });
    expect(done.body).toMatchObject({ status: 'succeeded' });
    await sql(
      db.url,
      `WITH s AS (INSERT INTO executor_sessions (actor_id, project, harness, model, lane)
                  VALUES ($1, 'atlas', 'claude-code', 'opus', 'deep') RETURNING id)
       INSERT INTO item_claims (item_id, session_id, project, expires_at)
       SELECT i.id, s.id, 'atlas', now() + interval '1 hour' FROM s, items i
        WHERE i.project = 'atlas' AND i.project_sequence = 22`,
      [mia.id],
    );
    original = await exported();
  });

  afterAll(async () => {
    await daemon?.stop();
    await db?.drop();
  });

  it('should refuse a member replacing the project, changing nothing', async () => {
    // the edit: the admin stage gone, an environment un-retired, a succeeded run planted, an item done
    const doc = edited((d) => {
      d.deployments.flows.find((f) => f.id === 'atlas-gated')!.stages = ['build', 'prod-eu'];
      for (const e of d.deployments.environments) e.retired_at = null;
      d.deployments.runs.push({
        environment: 'production',
        flow_id: 'atlas-main',
        status: 'succeeded',
        items: ['ATL-40'],
      });
      d.items.find((i) => i.ref === 'ATL-40')!.status = 'done';
    });
    const res = await importAs(mia.token, doc);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'project_admin_required', project: 'atlas' });
    expect(await exported()).toEqual(original);
    expect(await count(`SELECT count(*) AS n FROM item_claims`)).toBe(1);
    expect(await count(`SELECT count(*) AS n FROM project_snapshots`)).toBe(0);
  });

  it('should refuse a member a plain import over a project that holds deployments only', async () => {
    await sql(
      db.url,
      `INSERT INTO projects (id, name, public_item_prefix, organization_id)
                       SELECT 'bare', 'bare', 'BARE', id FROM organizations WHERE slug = 'default'`,
    );
    await sql(db.url, `INSERT INTO environments (project, name, retired_at) VALUES ('bare', 'prod', now())`);
    const doc = {
      format: 'svc-backlog/v1',
      project: { id: 'bare', public_item_prefix: 'BARE' },
      deployments: { environments: [{ name: 'prod', retired_at: null }] },
    };
    expect((await importAs(mia.token, doc, false)).body).toMatchObject({ code: 'project_not_empty' });
    expect((await importAs(mia.token, doc)).body).toMatchObject({ code: 'project_admin_required' });
    expect(await count(`SELECT count(*) AS n FROM environments WHERE project = 'bare' AND retired_at IS NULL`)).toBe(0);
  });

  it('should refuse an admin dropping or weakening an approval stage', async () => {
    const dropped = edited((d) => {
      d.deployments.flows.find((f) => f.id === 'atlas-gated')!.stages = ['build', 'prod-eu'];
    });
    const res = await importAs(ann.token, dropped);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'approval_stage_removed', flow: 'atlas-gated', stage: 'prod-eu' });
    const weakened = edited((d) => {
      d.deployments.flows.find((f) => f.id === 'atlas-gated')!.stages = [
        'build',
        { name: 'prod-eu', environment: 'prod-eu', approval: true },
      ];
    });
    expect((await importAs(ann.token, weakened)).body).toMatchObject({ code: 'approval_stage_removed' });
    expect(await exported()).toEqual(original);
  });

  it('should refuse a succeeded run the routes would not have recorded, and approvals this server never recorded', async () => {
    const planted = edited((d) => {
      d.deployments.runs.push({
        id: 'planted',
        flow_id: 'atlas-gated',
        environment: 'prod-eu',
        status: 'succeeded',
        stage_index: 2,
        stage_count: 2,
        items: ['ATL-40'],
      });
    });
    const res = await importAs(ann.token, planted);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'run_not_recordable', run: 'planted', rule: 'approval_required' });
    const forged = edited((d) => {
      d.deployments.runs.push({
        id: 'forged',
        flow_id: 'atlas-gated',
        environment: 'prod-eu',
        status: 'succeeded',
        stage_index: 2,
        stage_count: 2,
        items: ['ATL-40'],
        approvals: [
          {
            stage_index: 2,
            stage: 'prod-eu',
            approved_by: 'ann',
            approver_role: 'admin',
            approved_at: '2026-01-01T00:00:00.000Z',
          },
        ],
      });
    });
    expect((await importAs(ann.token, forged)).body).toMatchObject({ code: 'run_not_recordable', run: 'forged' });
    expect(await exported()).toEqual(original);
  });

  it('should refuse an item status the status route would refuse (a closure dependency unsatisfied)', async () => {
    // ATL-36 waits at closure for ATL-35 to reach production; nothing else holds it
    const direct = await call('POST', '/v1/items/ATL-36/status', ann.token, { status: 'done' });
    expect(direct.status).toBe(409);
    expect(direct.body).toMatchObject({ gate_point: 'closure' });
    const doc = edited((d) => {
      d.items.find((i) => i.ref === 'ATL-36')!.status = 'done';
    });
    const res = await importAs(ann.token, doc);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({
      code: 'status_not_reachable',
      item: 'ATL-36',
      from: 'idea',
      status: 'done',
      rule: (direct.body as Json).code,
      detail: { gate_point: 'closure', blockers: [expect.objectContaining({ blocker: 'ATL-35' })] },
    });
    expect(await exported()).toEqual(original);
  });

  it('should let a member import a new project, but not plant an admin stage or lean on items outside the file', async () => {
    const fresh = (id: string, prefix: string, extra: Json) => ({
      format: 'svc-backlog/v1',
      project: { id, public_item_prefix: prefix },
      items: [{ ref: `${prefix}-1`, title: 'new work' }],
      ...extra,
    });
    expect((await importAs(mia.token, fresh('mine', 'MINE', {}), false)).status).toBe(201);
    const gated = fresh('gated', 'GATE', {
      deployments: { flows: [{ id: 'gate-flow', name: 'g', stages: [{ name: 'prod', approval: { role: 'admin' } }] }] },
    });
    const refused = await importAs(mia.token, gated, false);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'approver_required' });
    const leaning = fresh('lean', 'LEAN', {
      items: [{ ref: 'LEAN-1', title: 'waits for production', status: 'done' }],
      dependencies: [
        { dependent: 'LEAN-1', blocker: 'ATL-6', gate_point: 'closure', satisfaction: 'fact:deployed:production' },
      ],
    });
    expect((await importAs(mia.token, leaning, false)).body).toMatchObject({
      code: 'status_not_reachable',
      item: 'LEAN-1',
    });
    expect(await count(`SELECT count(*) AS n FROM projects WHERE id IN ('gated', 'lean')`)).toBe(0);
  });

  it("should answer an item of another organization's project like a missing one", async () => {
    await sql(db.url, `INSERT INTO organizations (slug, name) VALUES ('other', 'other') ON CONFLICT DO NOTHING`);
    await sql(
      db.url,
      `INSERT INTO projects (id, name, public_item_prefix, organization_id)
       SELECT 'zeta', 'zeta', 'ZET', id FROM organizations WHERE slug = 'other'`,
    );
    await withClient(db.url, (client) => insertItems(client, 'zeta', [{ title: 'hidden' }]));
    const doc = {
      format: 'svc-backlog/v1',
      project: { id: 'peek', public_item_prefix: 'PEEK' },
      items: [{ ref: 'PEEK-1', title: 'leans on a hidden item' }],
      dependencies: [{ dependent: 'PEEK-1', blocker: 'ZET-1' }],
    };
    expect((await importAs(mia.token, doc, false)).body).toMatchObject({ code: 'unresolved_refs', refs: ['ZET-1'] });
    expect(await count(`SELECT count(*) AS n FROM projects WHERE id = 'peek'`)).toBe(0);
  });

  it('should let an admin replace, keep a snapshot, and restore it: the project is as before', async () => {
    const doc = edited((d) => {
      d.items.find((i) => i.ref === 'ATL-16')!.title = 'Renamed by the replace';
      d.items.find((i) => i.ref === 'ATL-8')!.status = 'idea';
    });
    const replaced = await importAs(ann.token, doc);
    expect(replaced.status).toBe(201);
    expect(replaced.body).toMatchObject({
      replaced: true,
      snapshot_id: expect.stringMatching(/^[0-9]+$/),
      not_carried: {
        claims: [expect.objectContaining({ item: 'ATL-22', actor: 'mia', harness: 'claude-code' })],
        deployment_approvals: [],
      },
    });
    // the approval travelled with its run: it still counts
    expect(await count(`SELECT count(*) AS n FROM deployment_approvals`)).toBe(1);
    const snapshotId = replaced.body.snapshot_id as string;

    expect((await call('GET', '/v1/projects/atlas/snapshots', mia.token)).body).toMatchObject({
      code: 'project_admin_required',
    });
    const listed = await svcAs(ann.token, 'projects', 'snapshots', 'atlas');
    expect(JSON.parse(listed.stdout)).toEqual({
      project: 'atlas',
      snapshots: [expect.objectContaining({ id: snapshotId, taken_by: 'ann', reason: 'import --replace', items: 40 })],
    });
    const one = await call<Json>('GET', `/v1/projects/atlas/snapshots/${snapshotId}`, ann.token);
    expect(one.body).toMatchObject({ held: { claims: [expect.objectContaining({ item: 'ATL-22' })] } });
    expect((await call('GET', '/v1/projects/atlas/snapshots/999999', ann.token)).body).toMatchObject({
      code: 'snapshot_not_found',
    });

    const file = join(dir, 'snapshot.json');
    const fetched = await svcAs(ann.token, 'export', '--project', 'atlas', '--snapshot', snapshotId, '--output', file);
    expect(fetched.code).toBe(0);
    const restored = await svcAs(ann.token, 'import', file, '--replace');
    expect(restored.code).toBe(0);
    expect(JSON.parse(restored.stdout)).toMatchObject({ replaced: true, not_carried: { deployment_approvals: [] } });
    expect(await exported()).toEqual(original);
    expect(await count(`SELECT count(*) AS n FROM project_snapshots WHERE project = 'atlas'`)).toBe(2);
  });
});
