import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';

import { createTestDatabase, DaemonProcess, runSvc, startDaemonProcess, svcEnv, TestDatabase } from '@app/testing';

type Json = Record<string, unknown>;

describe('backlog (projects, workflows, items, dependencies, gates, epics, records, deployments)', () => {
  let db: TestDatabase;
  let daemon: DaemonProcess;
  let pg: Client;
  const dir = mkdtempSync(join(tmpdir(), 'svc-backlog-'));

  const svc = (...args: string[]) => runSvc([...args, '--json'], { env: svcEnv(daemon) });
  async function ok<T = Json>(...args: string[]): Promise<T> {
    const result = await svc(...args);
    if (result.code !== 0) throw new Error(`svc ${args.join(' ')} failed: ${result.stderr}`);
    return JSON.parse(result.stdout) as T;
  }
  async function refused(...args: string[]): Promise<Json> {
    const result = await svc(...args);
    expect(result.code).not.toBe(0);
    return JSON.parse(result.stderr.trim().split('\n').pop()!) as Json;
  }
  async function http(method: string, path: string, body?: unknown, token: string | null = daemon.token) {
    const res = await fetch(`${daemon.url}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as Json };
  }
  const count = async (sql: string, params: unknown[] = []) =>
    Number((await pg.query<{ n: string }>(`SELECT count(*) AS n FROM ${sql}`, params)).rows[0].n);
  const file = (name: string, content: string) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };

  beforeAll(async () => {
    db = await createTestDatabase('server', 'backlog');
    daemon = await startDaemonProcess({ env: { SVC_DATABASE_URL: db.url, SVC_BODY_LIMIT: String(256 * 1024) } });
    pg = new Client({ connectionString: db.url });
    await pg.connect();
  });

  afterAll(async () => {
    await pg?.end();
    await daemon?.stop();
    await db?.drop();
  });

  describe('projects', () => {
    it('should create, list, get and update policy through the CLI', async () => {
      const created = await ok('projects', 'create', 'shop', '--prefix', 'SHOP', '--name', 'Shop', '--wip-cap', '3');
      expect(created).toMatchObject({
        id: 'shop',
        public_item_prefix: 'SHOP',
        policy: { wip_cap: 3 },
        title_max_length: 200,
      });
      expect(created.organization).toBe('default');
      await ok('projects', 'create', 'ops', '--prefix', 'OPS');
      const updated = await ok(
        'projects',
        'update',
        'shop',
        '--title-max-length',
        '40',
        '--lane-rule',
        'harness=claude-code,lane=deep',
        '--default-lane',
        'codex=fast',
      );
      expect(updated.policy).toEqual({
        wip_cap: 3,
        title_max_length: 40,
        lane_rules: [{ harness: 'claude-code', lane: 'deep' }],
        executor_default_lane_codex: 'fast',
      });
      const list = await ok<{ projects: Json[] }>('projects', 'list');
      expect(list.projects.map((p) => p.id)).toEqual(['ops', 'shop']);
      expect(await ok('projects', 'get', 'shop')).toMatchObject({ title_max_length: 40 });
      const readable = await runSvc(['projects', 'list'], { env: svcEnv(daemon) });
      expect(readable.stdout).toContain('SHOP');
    });

    it('should refuse duplicates, unknown policy keys and unknown projects', async () => {
      expect(await refused('projects', 'create', 'shop', '--prefix', 'ZZ')).toMatchObject({ code: 'project_exists' });
      expect(await refused('projects', 'create', 'shop2', '--prefix', 'SHOP')).toMatchObject({ code: 'prefix_taken' });
      const bad = await http('PATCH', '/v1/projects/shop', { policy: { wip: 3 } });
      expect(bad).toMatchObject({ status: 400, body: { code: 'validation_failed' } });
      expect(await http('GET', '/v1/projects/nope')).toMatchObject({
        status: 404,
        body: { code: 'project_not_found' },
      });
      expect(await count('projects')).toBe(2);
    });
  });

  describe('workflows', () => {
    it('should ship the default issue and epic workflows', async () => {
      const issue = await ok<{ definition: { stages: Json[]; initial_stage: string } }>(
        'workflows',
        'definition',
        'get',
      );
      // version 2 (migration GatesAtEveryPoint) adds integration on release and closure on done to version 1
      expect(issue).toMatchObject({ workflow_id: 'issue', version: 2, current: true });
      expect(issue.definition.stages.map((s) => s.id)).toEqual([
        'idea',
        'refining-idea',
        'refined-idea',
        'plan-drafted',
        'refining-plan',
        'planning',
        'planned',
        'implementing',
        'reviewing-implementation',
        'reviewed-implementation',
        'polishing-implementation',
        'implemented',
        'release',
        'done',
        'cancelled',
        'stopped',
        'failed',
      ]);
      expect(issue.definition.stages.find((s) => s.id === 'implementing')).toMatchObject({
        adapter: 'advance',
        gates: [{ type: 'check_hard_blocks', gate_point: 'activation' }],
      });
      expect(issue.definition.stages.find((s) => s.id === 'release')).toMatchObject({
        gates: [{ type: 'check_hard_blocks', gate_point: 'integration' }],
      });
      expect(issue.definition.stages.find((s) => s.id === 'done')).toMatchObject({
        gates: [{ type: 'check_hard_blocks', gate_point: 'closure' }],
      });
      expect(issue.definition).toMatchObject({ merge_stage: 'release' });
      const epic = await ok<{ definition: { stages: Json[] } }>('workflows', 'version', 'get', 'epic', '1');
      expect(epic.definition.stages.find((s) => s.id === 'planning')).toMatchObject({ adapter: 'shepherd' });
    });

    it('should register new versions, keep old ones, and no-op on an identical definition', async () => {
      const current = await ok<{ definition: Json & { stages: Json[] } }>('workflows', 'definition', 'get', 'issue');
      const v2 = { ...current.definition, name: 'Issue (v2)' };
      const path = file('issue-v2.json', JSON.stringify(v2));
      expect(await ok('workflows', 'register', path)).toMatchObject({
        workflow_id: 'issue',
        version: 3,
        created: true,
      });
      expect(await ok('workflows', 'register', path)).toMatchObject({ version: 3, created: false });
      const v1 = await ok<{ definition: Json }>('workflows', 'version', 'get', 'issue', '1');
      expect(v1.definition.name).toBe('Issue');
      const list = await ok<{ workflows: Json[] }>('workflows', 'list');
      expect(list.workflows).toContainEqual(
        expect.objectContaining({ workflow_id: 'issue', current_version: 3, versions: 3 }),
      );
    });

    it('should refuse an invalid definition naming each problem, and write nothing', async () => {
      const before = await count('workflow_versions');
      const bad = {
        id: 'broken',
        name: 'Broken',
        initial_stage: 'todo',
        colour: 'red',
        stages: [{ id: 'todo', adapter: 'sprint', entrypoint: '/svc x {ref}' }],
      };
      const body = await refused('workflows', 'register', file('bad.json', JSON.stringify(bad)));
      expect(body.code).toBe('invalid_workflow_definition');
      expect(JSON.stringify(body.fields)).toContain('colour');
      expect(JSON.stringify(body.fields)).toContain('terminal stage done is missing');
      const gate = { ...bad, colour: undefined };
      const unknownGate = JSON.parse(JSON.stringify(gate)) as { stages: Json[] };
      unknownGate.stages = [
        { id: 'todo', adapter: 'conduct', entrypoint: '/svc conduct {ref}', gates: [{ type: 'check_moon' }] },
        ...['done', 'cancelled', 'stopped', 'failed'].map((id) => ({ id, adapter: 'skip', terminal: true })),
      ];
      expect(await http('POST', '/v1/workflows', unknownGate)).toMatchObject({
        status: 400,
        body: { code: 'unknown_gate_type' },
      });
      expect(await count('workflow_versions')).toBe(before);
      expect(await http('GET', '/v1/workflows/nope/definition')).toMatchObject({
        status: 404,
        body: { code: 'workflow_not_found' },
      });
    });
  });

  describe('items', () => {
    it('should create items with gap-free sequences under 20 concurrent creates', async () => {
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => http('POST', '/v1/items', { project: 'ops', title: `Concurrent ${i}` })),
      );
      expect(results.every((r) => r.status === 201)).toBe(true);
      const refs = results.map((r) => r.body.item_id as string).sort((a, b) => Number(a.slice(4)) - Number(b.slice(4)));
      expect(refs).toEqual(Array.from({ length: 20 }, (_, i) => `OPS-${i + 1}`));
      expect((await ok('projects', 'get', 'ops')).next_sequence).toBe(21);
    });

    it('should create an item pinned to the current workflow version, with every column serialized', async () => {
      const item = await ok(
        'items',
        'create',
        '--project',
        'shop',
        '--title',
        'Checkout page',
        '--priority',
        'high',
        '--set',
        'github_issue=#7',
      );
      expect(item).toMatchObject({
        item_id: 'SHOP-1',
        project: 'shop',
        workflow_id: 'issue',
        workflow_version: 3,
        status: 'idea',
        priority: 'high',
        frozen: 0,
        blocked: 0,
        github_issue: '#7',
        db_mutation_profile: '{"state":"none"}',
        db_compatibility_attestation: '{}',
        workflow_posture: '{}',
      });
      expect(item).not.toHaveProperty('id');
      expect(String(item.created_at)).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      for (const column of [
        'spec',
        'design_spec',
        'technical_plan',
        'worktree_plan',
        'shepherd_log',
        'shepherd_caveats',
        'test_results',
        'deploy_log',
        'merged_at',
        'deployed_to',
        'deploy_stage',
        'deployment_flow',
        'owner',
        'source',
        'spec_updated_at',
        'spec_updated_by',
        'resolution',
        'resolution_ref',
        'resolution_comment',
        'depends_on',
        'body',
        'blocked_reason',
        'updated_at',
        'workflow_version_id',
      ]) {
        expect(item).toHaveProperty(column);
      }
      await ok('items', 'create', '--project', 'shop', '--title', 'Payment provider');
      await ok('items', 'create', '--project', 'shop', '--title', 'Order emails');
      await ok('items', 'create', '--project', 'shop', '--title', 'Stock epic', '--workflow', 'epic');
    });

    it('should refuse a title over the policy cap with a clear error, writing nothing', async () => {
      const before = await count('items');
      const body = await refused('items', 'create', '--project', 'shop', '--title', 'x'.repeat(41));
      expect(body).toMatchObject({ code: 'title_too_long', max_length: 40, length: 41 });
      expect(await count('items')).toBe(before);
      expect((await ok('projects', 'get', 'shop')).next_sequence).toBe(5);
    });

    it('should list with filters in one page', async () => {
      const list = await ok<{ items: Json[]; total: number }>(
        'items',
        'list',
        '--project',
        'shop',
        '--priority',
        'high',
      );
      expect(list.items.map((i) => i.item_id)).toEqual(['SHOP-1']);
      const page = await ok<{ items: Json[]; total: number }>(
        'items',
        'list',
        '--project',
        'ops',
        '--limit',
        '5',
        '--offset',
        '5',
      );
      expect(page.total).toBe(20);
      expect(page.items.map((i) => i.item_id)).toEqual(['OPS-6', 'OPS-7', 'OPS-8', 'OPS-9', 'OPS-10']);
      const epics = await ok<{ items: Json[] }>('items', 'list', '--workflow', 'epic');
      expect(epics.items.map((i) => i.item_id)).toEqual(['SHOP-4']);
      expect(await http('GET', '/v1/items?priority=urgent')).toMatchObject({
        status: 400,
        body: { code: 'validation_failed' },
      });
      expect(await http('GET', '/v1/items?colour=red')).toMatchObject({
        status: 400,
        body: { code: 'validation_failed' },
      });
    });

    it('should read and write structured fields, stamping spec_updated_at/by', async () => {
      const updated = await runSvc(['items', 'update', 'SHOP-1', 'spec', '--stdin', '--json'], {
        env: svcEnv(daemon),
        input: 'Accept cards and wallets.\n',
      });
      expect(updated.code).toBe(0);
      expect(JSON.parse(updated.stdout)).toMatchObject({ spec: 'Accept cards and wallets.\n', spec_updated_by: '1' });
      expect(JSON.parse(updated.stdout).spec_updated_at).not.toBeNull();
      expect(await ok('items', 'get', 'SHOP-1', 'spec')).toEqual({
        item_id: 'SHOP-1',
        field: 'spec',
        value: 'Accept cards and wallets.\n',
      });
      const raw = await runSvc(['items', 'get', 'SHOP-1', 'spec'], { env: svcEnv(daemon) });
      expect(raw.stdout).toBe('Accept cards and wallets.\n');
      await ok('items', 'update', 'SHOP-1', 'technical_plan', '--value', 'Use the provider SDK.');
      await ok('items', 'update', 'SHOP-1', 'body', '--value', 'Customers pay at the end of checkout.');
      expect(await refused('items', 'update', 'SHOP-1', 'colour', '--value', 'x')).toMatchObject({
        code: 'unknown_field',
      });
      expect(await refused('items', 'update', 'SHOP-1', 'status', '--value', 'done')).toMatchObject({
        code: 'field_not_writable',
      });
      expect(await refused('items', 'update', 'SHOP-1', 'priority', '--value', 'urgent')).toMatchObject({
        code: 'invalid_value',
      });
      expect(await refused('items', 'get', 'SHOP-1', 'colour')).toMatchObject({ code: 'unknown_field' });
    });

    it('should upsert sections and render the body from sections and structured fields', async () => {
      const path = file('context.md', 'Mobile first.\n');
      const section = await ok('sections', 'upsert', 'SHOP-1', 'Context', '--content-file', path, '--ordering', '1');
      expect(section).toMatchObject({ item_id: 'SHOP-1', section: { section_name: 'Context', ordering: 1 } });
      await ok(
        'sections',
        'upsert',
        'SHOP-1',
        'Acceptance',
        '--content-file',
        file('acc.md', '- pays'),
        '--ordering',
        '0',
      );
      await ok(
        'sections',
        'upsert',
        'SHOP-1',
        'Context',
        '--content-file',
        file('ctx2.md', 'Mobile first, then desktop.'),
      );
      const body = await ok('items', 'get', 'SHOP-1', 'body');
      expect(body.value).toBe(
        'Customers pay at the end of checkout.\n\n## Acceptance\n\n- pays\n\n## Context\n\nMobile first, then desktop.\n\n' +
          '## Spec\n\nAccept cards and wallets.\n\n## Technical plan\n\nUse the provider SDK.',
      );
      const sections = await ok<{ sections: Json[] }>('sections', 'list', 'SHOP-1');
      expect(sections.sections.map((s) => [s.section_name, s.ordering])).toEqual([
        ['Acceptance', 0],
        ['Context', 1],
      ]);
    });

    it('should route the db-claim field to the DB claim read', async () => {
      const result = await svc('items', 'get', 'SHOP-1', 'db-claim');
      // the route belongs to the DB-claims module; either it answers or it is absent, never an unknown-field refusal
      expect(result.stderr).not.toContain('unknown_field');
    });

    it('should answer 404 for an unknown ref and 400 for a malformed one', async () => {
      expect(await refused('items', 'get', 'SHOP-99')).toMatchObject({ code: 'item_not_found' });
      expect(await http('GET', '/v1/items/not-a-ref')).toMatchObject({ status: 400, body: { code: 'invalid_ref' } });
    });
  });

  describe('status writes, block and freeze, resolution', () => {
    it('should refuse a stage outside the pinned workflow, writing nothing', async () => {
      const body = await refused('items', 'status', 'SHOP-2', 'shipping');
      expect(body).toMatchObject({ code: 'stage_not_in_workflow', status: 'shipping' });
      expect((await ok('items', 'get', 'SHOP-2')).status).toBe('idea');
    });

    it('should refuse implementing while activation blockers are unsatisfied, listing them', async () => {
      await ok('items', 'dependency', 'add', 'SHOP-2', 'SHOP-3', '--rationale', 'emails first');
      const body = await refused('items', 'status', 'SHOP-2', 'implementing');
      expect(body).toMatchObject({
        code: 'blocked_by_dependencies',
        item_id: 'SHOP-2',
        gate_point: 'activation',
        blockers: [{ blocker: 'SHOP-3', satisfaction: 'status:done', blocker_status: 'idea' }],
      });
      expect((await ok('items', 'get', 'SHOP-2')).status).toBe('idea');
      const response = await http('POST', '/v1/items/SHOP-2/status', { status: 'implementing' });
      expect(response.status).toBe(409);
      await ok('items', 'status', 'SHOP-3', 'done');
      expect(await ok('items', 'status', 'SHOP-2', 'implementing')).toMatchObject({ status: 'implementing' });
    });

    it('should block and unblock preserving status, and freeze and unfreeze', async () => {
      expect(await ok('items', 'block', 'SHOP-2', '--reason', 'waiting on legal')).toMatchObject({
        blocked: 1,
        blocked_reason: 'waiting on legal',
        status: 'implementing',
      });
      expect(await ok('items', 'unblock', 'SHOP-2')).toMatchObject({
        blocked: 0,
        blocked_reason: null,
        status: 'implementing',
      });
      expect(await ok('items', 'freeze', 'SHOP-2')).toMatchObject({ frozen: 1 });
      expect(await ok('items', 'unfreeze', 'SHOP-2')).toMatchObject({ frozen: 0 });
      expect(await http('POST', '/v1/items/SHOP-2/block', {})).toMatchObject({ status: 400 });
    });

    it('should resolve as completed, duplicate (with its ref) and wontfix', async () => {
      expect(await ok('items', 'resolve', 'SHOP-3', '--resolution', 'completed')).toMatchObject({
        resolution: 'completed',
        status: 'done',
      });
      const ops = await ok('items', 'resolve', 'OPS-2', '--resolution', 'duplicate', '--duplicate-of', 'OPS-1');
      expect(ops).toMatchObject({ resolution: 'duplicate', resolution_ref: 'OPS-1', status: 'cancelled' });
      expect(await refused('items', 'resolve', 'OPS-3', '--resolution', 'duplicate')).toMatchObject({
        code: 'resolution_ref_required',
      });
      expect(await ok('items', 'resolve', 'OPS-4', '--resolution', 'wontfix', '--comment', 'no')).toMatchObject({
        resolution: 'wontfix',
        resolution_comment: 'no',
        status: 'cancelled',
      });
      expect(await http('POST', '/v1/items/OPS-5/resolve', { resolution: 'abandoned' })).toMatchObject({ status: 400 });
    });

    it("should show an item's pinned workflow and its stage binding", async () => {
      expect(await ok('workflows', 'item', 'get', 'SHOP-2')).toMatchObject({
        item_id: 'SHOP-2',
        workflow_id: 'issue',
        workflow_version: 3,
        stage: { id: 'implementing', adapter: 'advance', entrypoint_rendered: '/svc advance SHOP-2 implementation' },
      });
    });
  });

  describe('dependencies and gates', () => {
    it('should treat re-declaring an edge as a silent no-op', async () => {
      const again = await http('POST', '/v1/items/SHOP-2/dependencies', {
        blocker: 'SHOP-3',
        satisfaction: 'fact:merged',
      });
      expect(again).toMatchObject({
        status: 200,
        body: { created: false, dependency: { satisfaction: 'status:done' } },
      });
      expect(await count('item_dependencies')).toBe(1);
    });

    it('should accept cross-project edges and list both directions with the counterpart', async () => {
      const added = await ok(
        'items',
        'dependency',
        'add',
        'OPS-6',
        'SHOP-1',
        '--satisfaction',
        'status:implemented',
        '--evidence',
        '{"pr":12}',
        '--source',
        'shepherd',
      );
      expect(added).toMatchObject({
        created: true,
        dependency: { dependent: 'OPS-6', blocker: 'SHOP-1', evidence: { pr: 12 } },
      });
      const list = await ok<{ dependencies: Json[] }>('items', 'dependency', 'list', 'SHOP-1');
      expect(list.dependencies).toEqual([
        expect.objectContaining({
          direction: 'blocks',
          other_item: 'OPS-6',
          satisfied: false,
          gate_point: 'activation',
        }),
      ]);
      const blocked = await ok<{ dependencies: Json[] }>(
        'items',
        'dependency',
        'list',
        'SHOP-2',
        '--direction',
        'depends_on',
      );
      expect(blocked.dependencies).toEqual([expect.objectContaining({ other_item: 'SHOP-3', satisfied: true })]);
    });

    it('should refuse an edge that closes an activation cycle, naming it, and write nothing', async () => {
      await ok('items', 'dependency', 'add', 'OPS-7', 'OPS-6');
      const before = await count('item_dependencies');
      const body = await refused('items', 'dependency', 'add', 'SHOP-1', 'OPS-7');
      expect(body).toMatchObject({ code: 'dependency_cycle', cycle: ['SHOP-1', 'OPS-6', 'OPS-7', 'SHOP-1'] });
      expect(await count('item_dependencies')).toBe(before);
      // the same pair at the integration gate is no activation cycle
      expect(await ok('items', 'dependency', 'add', 'SHOP-1', 'OPS-7', '--gate-point', 'integration')).toMatchObject({
        created: true,
      });
    });

    // The cycle check holds a lock per organization (issue 38), not one for the server: two additions racing to close
    // a cycle between them still see each other, so one of them is refused, naming the cycle, and the other is kept.
    it('should refuse one of two concurrent additions that together close a cycle', async () => {
      for (let round = 0; round < 5; round++) {
        const [a, b, c] = (
          await Promise.all(
            ['a', 'b', 'c'].map((k) => http('POST', '/v1/items', { project: 'ops', title: `Race ${round}${k}` })),
          )
        ).map((r) => r.body.item_id as string);
        // c waits on b; then, at once, b waits on a and a waits on c: a → b → c → a
        await ok('items', 'dependency', 'add', c, b);
        const results = await Promise.all([
          http('POST', `/v1/items/${b}/dependencies`, { blocker: a }),
          http('POST', `/v1/items/${a}/dependencies`, { blocker: c }),
        ]);
        expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
        const refusal = results.find((r) => r.status === 409)!.body;
        expect(refusal.code).toBe('dependency_cycle');
        expect(new Set(refusal.cycle as string[])).toEqual(new Set([a, b, c]));
        const kept = await ok<{ dependencies: Json[] }>('items', 'dependency', 'list', a, '--direction', 'both');
        // a's one edge is the addition taken: a blocks b, or a waits on c
        expect(kept.dependencies).toEqual([
          results[0].status === 201
            ? expect.objectContaining({ direction: 'blocks', other_item: b })
            : expect.objectContaining({ direction: 'depends_on', other_item: c }),
        ]);
      }
    });

    // ADR 0096: an addition inserts its edge before the organization's lock and the cycle check leaves it out of the
    // daemon's kept graph; a refused one is rolled back and must not be held there as if it had been kept.
    it('should check the next addition against the edges kept, not against one it refused', async () => {
      const [p, q] = (
        await Promise.all(['p', 'q'].map((k) => http('POST', '/v1/items', { project: 'ops', title: `Phantom ${k}` })))
      ).map((r) => r.body.item_id as string);
      await ok('items', 'dependency', 'add', q, p);
      // p waiting on q closes p → q → p: refused, nothing written
      expect(await refused('items', 'dependency', 'add', p, q)).toMatchObject({ code: 'dependency_cycle' });
      await ok('items', 'dependency', 'remove', q, p);
      // q waiting on p again closes a cycle only with the refused edge
      expect(await ok('items', 'dependency', 'add', q, p)).toMatchObject({ created: true });
      // and the kept graph has it: p waiting on q is refused again, naming the cycle
      expect(await refused('items', 'dependency', 'add', p, q)).toMatchObject({
        code: 'dependency_cycle',
        cycle: [p, q, p],
      });
      // an edge that is already there is answered as such, with no cycle check to pass
      expect(await ok('items', 'dependency', 'add', q, p)).toMatchObject({ created: false });
    });

    it('should refuse bad satisfaction forms, self edges and unknown refs', async () => {
      const edges = await count('item_dependencies');
      const records = await count("change_records WHERE object = 'dependency'");
      // a form the table takes but no stage of the blocker's workflow: the edge is inserted with the read of its
      // ends (ADR 0106), then refused; the refusal rolls the insert and its write record back
      expect(
        await refused('items', 'dependency', 'add', 'OPS-8', 'OPS-9', '--satisfaction', 'status:shipped'),
      ).toMatchObject({
        code: 'invalid_satisfaction',
      });
      expect(await count('item_dependencies')).toBe(edges);
      expect(await count("change_records WHERE object = 'dependency'")).toBe(records);
      expect(
        await refused('items', 'dependency', 'add', 'OPS-8', 'OPS-9', '--satisfaction', 'fact:landed'),
      ).toMatchObject({
        code: 'invalid_satisfaction',
      });
      expect(await refused('items', 'dependency', 'add', 'OPS-8', 'OPS-8')).toMatchObject({ code: 'self_dependency' });
      expect(await refused('items', 'dependency', 'add', 'OPS-8', 'OPS-99')).toMatchObject({ code: 'item_not_found' });
      expect(
        await http('POST', '/v1/items/OPS-8/dependencies', { blocker: 'OPS-9', gate_point: 'launch' }),
      ).toMatchObject({
        status: 400,
        body: { code: 'validation_failed' },
      });
    });

    it('should evaluate satisfaction forms: status:implemented, fact:merged and fact:deployed', async () => {
      await ok('items', 'dependency', 'add', 'OPS-10', 'OPS-11', '--satisfaction', 'status:implemented');
      await ok('items', 'dependency', 'add', 'OPS-10', 'OPS-12', '--satisfaction', 'fact:merged');
      await ok(
        'items',
        'dependency',
        'add',
        'OPS-10',
        'OPS-13',
        '--satisfaction',
        'fact:deployed:prod',
        '--gate-point',
        'closure',
      );
      let gate = await ok<{ blockers: Json[] }>('evaluate-gate', 'OPS-10', 'activation');
      expect(gate.blockers.map((b) => b.blocker)).toEqual(['OPS-11', 'OPS-12']);
      await ok('items', 'status', 'OPS-11', 'release');
      await ok('items', 'update', 'OPS-12', 'merged_at', '--value', '2025-10-01T10:00:00Z');
      gate = await ok('evaluate-gate', 'OPS-10', 'activation');
      expect(gate).toMatchObject({ satisfied: true, blockers: [] });

      const closure = await ok<{ blockers: Json[] }>('evaluate-gate', 'OPS-10', 'closure');
      expect(closure.blockers[0]).toMatchObject({ blocker: 'OPS-13', satisfaction: 'fact:deployed:prod' });
      await ok('deployments', 'flows', 'create', 'ops-main', '--project', 'ops', '--stages', 'deploy,smoke,complete');
      const run = await ok<{ id: string }>(
        'deployments',
        'runs',
        'create',
        '--project',
        'ops',
        '--environment',
        'prod',
        '--items',
        'OPS-13',
        '--flow',
        'ops-main',
        '--status',
        'running',
        '--stage',
        'deploy',
        '--stage-index',
        '1',
      );
      // a running run, and a succeeded run to an unregistered environment, satisfy nothing
      expect((await ok('evaluate-gate', 'OPS-10', 'closure')).satisfied).toBe(false);
      await ok(
        'deployments',
        'runs',
        'update',
        run.id,
        '--status',
        'succeeded',
        '--stage',
        'complete',
        '--stage-index',
        '3',
      );
      const unregistered = await ok<{ blockers: Json[] }>('evaluate-gate', 'OPS-10', 'closure');
      expect(String(unregistered.blockers[0].reason)).toContain('not registered');
      await ok('deployments', 'environments', 'register', 'prod', '--project', 'ops', '--flow', 'ops-main');
      expect((await ok('evaluate-gate', 'OPS-10', 'closure')).satisfied).toBe(true);
      await ok('deployments', 'environments', 'retire', 'prod', '--project', 'ops');
      expect((await ok('evaluate-gate', 'OPS-10', 'closure')).satisfied).toBe(false);

      await ok('items', 'update', 'OPS-13', 'deployment_flow', '--value', 'ops-main');
      expect(await ok('items', 'progress', 'OPS-13')).toMatchObject({
        item_id: 'OPS-13',
        flow_name: 'ops-main',
        run_id: run.id,
        current_stage: 'complete',
        target_environment: 'prod',
        stage_progress: '3/3',
      });
      expect((await ok('items', 'get', 'OPS-13')).deploy_stage).toBe('complete');
    });

    it('should plan candidates in topological order with blocked detail, and evaluate in batch', async () => {
      await ok('items', 'dependency', 'add', 'OPS-15', 'OPS-14');
      await ok('items', 'dependency', 'add', 'OPS-16', 'OPS-15');
      await ok('items', 'dependency', 'add', 'OPS-17', 'OPS-20');
      const plan = await ok<{ eligible: string[]; blocked: Json[] }>(
        'plan-candidates',
        'activation',
        'OPS-16',
        'OPS-15',
        'OPS-14',
        'OPS-17',
      );
      expect(plan.eligible).toEqual(['OPS-14', 'OPS-15', 'OPS-16']);
      expect(plan.blocked).toEqual([
        expect.objectContaining({ item_id: 'OPS-17', blockers: [expect.objectContaining({ blocker: 'OPS-20' })] }),
      ]);
      const batch = await ok<{ evaluations: Json[] }>('evaluate-gates', 'activation', 'OPS-15', 'OPS-16', 'OPS-14');
      expect(batch.evaluations.map((e) => [e.item_id, e.satisfied])).toEqual([
        ['OPS-15', false],
        ['OPS-16', false],
        ['OPS-14', true],
      ]);
      const project = await ok<{ evaluations: Json[] }>('evaluate-gates', 'activation', '--project', 'ops');
      expect(project.evaluations.find((e) => e.item_id === 'OPS-17')).toMatchObject({ satisfied: false });
      expect(project.evaluations.find((e) => e.item_id === 'OPS-2')).toBeUndefined();
    });

    it('should remove an edge by ref and gate point', async () => {
      expect(await ok('items', 'dependency', 'remove', 'OPS-17', 'OPS-20')).toMatchObject({ dependent: 'OPS-17' });
      expect(await refused('items', 'dependency', 'remove', 'OPS-17', 'OPS-20')).toMatchObject({
        code: 'dependency_not_found',
      });
    });
  });

  describe('epics', () => {
    it('should manage tasks with dependencies, attempts, files, chains and notes', async () => {
      expect(await ok('epics', 'tasks', 'add', 'SHOP-4', '--title', 'Stock table', '--estimate', 'S')).toMatchObject({
        epic: 'SHOP-4',
        task_num: 1,
        status: 'planning',
        dispatch_attempts: 0,
        max_attempts: 5,
      });
      await ok('epics', 'tasks', 'add', 'SHOP-4', '--title', 'Stock API', '--depends-on', '1', '--max-attempts', '2');
      expect(await refused('epics', 'tasks', 'update', 'SHOP-4', '1', '--depends-on', '2')).toMatchObject({
        code: 'dependency_cycle',
      });
      expect(await refused('epics', 'tasks', 'add', 'SHOP-4', '--title', 'x', '--depends-on', '9')).toMatchObject({
        code: 'unknown_task',
      });
      expect(
        await ok('epics', 'tasks', 'update', 'SHOP-4', '2', '--status', 'implementing', '--heartbeat'),
      ).toMatchObject({
        status: 'implementing',
        dependencies: [1],
      });
      await ok('epics', 'tasks', 'dispatch', 'SHOP-4', '2');
      expect(await ok('epics', 'tasks', 'dispatch', 'SHOP-4', '2')).toMatchObject({ dispatch_attempts: 2 });
      expect(await refused('epics', 'tasks', 'dispatch', 'SHOP-4', '2')).toMatchObject({
        code: 'max_attempts_reached',
      });
      expect(await http('PATCH', '/v1/epics/SHOP-4/tasks/2', { status: 'shipped' })).toMatchObject({ status: 400 });

      await ok('epics', 'files', 'add', 'SHOP-4', '1', 'src/stock.ts', '--action', 'create');
      await ok('epics', 'chains', 'set', 'SHOP-4', 'wt-stock', '--queue', '1,2');
      await ok('epics', 'notes', 'add', 'SHOP-4', '1', '--body', 'table created');
      expect(await ok('epics', 'notes', 'add', 'SHOP-4', '1', '--body', 'indexed')).toMatchObject({ note_num: 2 });
      const overview = await ok<Json>('epics', 'show', 'SHOP-4');
      expect(overview).toMatchObject({
        epic: 'SHOP-4',
        files: [{ task_num: 1, file_path: 'src/stock.ts', action: 'create' }],
        chains: [{ worktree: 'wt-stock', queue: [1, 2], current_index: 0, max_attempts: 5 }],
      });
      expect(await refused('epics', 'tasks', 'list', 'SHOP-1')).toMatchObject({ code: 'not_an_epic' });
      expect(await refused('epics', 'tasks', 'add', 'SHOP-4', '--title', 'y'.repeat(41))).toMatchObject({
        code: 'title_too_long',
      });
    });
  });

  describe('records', () => {
    it('should record verdicts and caveat dispositions, unique per item/transition/attempt/caveat', async () => {
      const verdict = await ok<{ id: number }>(
        'records',
        'verdicts',
        'add',
        'SHOP-1',
        '--transition',
        'idea->planned',
        '--worker',
        'shepherd-1',
        '--verdict',
        'APPROVED',
        '--caveats',
        '1. watch fees',
      );
      expect(verdict).toMatchObject({ item: 'SHOP-1', attempt: 1 });
      const args = [
        'records',
        'caveats',
        'add',
        'shop-1',
        '--transition',
        'idea->planned',
        '--caveat-num',
        '1',
        '--caveat-text',
        'watch fees',
        '--disposition',
        'DEFERRED',
        '--verdict',
        String(verdict.id),
      ];
      expect(await ok(...args)).toMatchObject({ item: 'SHOP-1', disposition: 'DEFERRED', verdict_id: verdict.id });
      expect(await refused(...args)).toMatchObject({ code: 'disposition_exists' });
      expect(await count('caveat_dispositions')).toBe(1);
      const bad = await http('POST', '/v1/records/caveat-dispositions', {
        item: 'SHOP-1',
        transition: 't',
        caveat_num: 2,
        caveat_text: 'x',
        disposition: 'IGNORED',
      });
      expect(bad).toMatchObject({ status: 400, body: { code: 'validation_failed' } });
      expect((await ok<{ verdicts: Json[] }>('records', 'verdicts', 'list', 'SHOP-1')).verdicts).toHaveLength(1);
    });

    it('should record, list, review and archive ouroboros entries', async () => {
      const entry = await ok<{ id: number }>(
        'records',
        'ouroboros',
        'add',
        '--agent',
        'agent-1',
        '--category',
        'lesson',
        '--body',
        'Read the spec first.',
      );
      await ok('records', 'ouroboros', 'review', String(entry.id));
      const list = await ok<{ entries: Json[] }>('records', 'ouroboros', 'list', '--reviewed', '1');
      expect(list.entries).toEqual([expect.objectContaining({ agent: 'agent-1', category: 'lesson' })]);
      // the table names each entry's organization (a member of two, or a server admin, sees several)
      const table = await runSvc(['records', 'ouroboros', 'list', '--reviewed', '1'], { env: svcEnv(daemon) });
      expect(table.stdout.split('\n')[0]).toMatch(/^id\s+org\s+timestamp\s+agent\s+category\s+body/);
      expect(table.stdout).toMatch(new RegExp(`^${entry.id}\\s+default\\s+`, 'm'));
      expect((await ok('records', 'ouroboros', 'archive', String(entry.id))).archived_at).not.toBeNull();
    });
  });

  describe('HTTP refusals', () => {
    it('should answer 401 without a valid token and change nothing', async () => {
      const before = await count('items');
      expect(await http('POST', '/v1/items', { project: 'shop', title: 'x' }, null)).toMatchObject({
        status: 401,
        body: { code: 'unauthorized' },
      });
      expect(
        await http('POST', '/v1/projects', { id: 'x', name: 'x', public_item_prefix: 'X' }, 'svc_bogus'),
      ).toMatchObject({
        status: 401,
      });
      expect(await count('items')).toBe(before);
      expect(await count('projects')).toBe(2);
    });

    it('should refuse unknown keys, wrong enums and malformed JSON with 400, writing nothing', async () => {
      const before = await count('items');
      expect(await http('POST', '/v1/items', { project: 'shop', title: 'x', colour: 'red' })).toMatchObject({
        status: 400,
        body: { code: 'validation_failed' },
      });
      expect(await http('POST', '/v1/items', { project: 'shop', title: 'x', priority: 'urgent' })).toMatchObject({
        status: 400,
        body: { code: 'validation_failed', fields: [expect.objectContaining({ field: 'priority' })] },
      });
      expect(await http('POST', '/v1/items', '{"project": "shop", "title": ')).toMatchObject({
        status: 400,
        body: { code: 'invalid_request' },
      });
      expect(await http('POST', '/v1/items', { project: 'nope', title: 'x' })).toMatchObject({
        status: 404,
        body: { code: 'project_not_found' },
      });
      expect(await http('POST', '/v1/items', { project: 'shop', title: 'x', workflow: 'nope' })).toMatchObject({
        status: 404,
        body: { code: 'workflow_not_found' },
      });
      expect(await count('items')).toBe(before);
      expect((await ok('projects', 'get', 'shop')).next_sequence).toBe(5);
    });

    it('should refuse an oversized body with 413, writing nothing', async () => {
      const response = await http('PUT', '/v1/items/SHOP-1/fields/spec', { value: 'x'.repeat(300 * 1024) });
      expect(response).toMatchObject({ status: 413, body: { code: 'payload_too_large' } });
      expect((await ok('items', 'get', 'SHOP-1', 'spec')).value).toBe('Accept cards and wallets.\n');
    });

    it('should print a readable refusal without --json', async () => {
      const result = await runSvc(['items', 'status', 'SHOP-1', 'shipping'], { env: svcEnv(daemon) });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('error: stage_not_in_workflow');
    });
  });
});
