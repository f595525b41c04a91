import { applyFrontierDelta, FRONTIER_DELTA_MEDIA_TYPE, FrontierDeltaWire, FrontierResultWire } from '@app/contracts';
import {
  createProject,
  createTestDatabase,
  CreatedItem,
  DaemonProcess,
  insertEdges,
  insertItems,
  parseJson,
  runSvc,
  startDaemonProcess,
  svcEnv,
  TestDatabase,
  withClient,
} from '@app/testing';

interface Edge {
  blocker: string | null;
  dependent: string;
  gate_point: string;
  satisfaction: string;
  rationale: string;
  blocker_stage: string | null;
  blocker_title: string | null;
  blocking_terminal: boolean;
  blocking_abandoned: boolean;
  environment: { name: string; delivery_state: string; in_delivery_flow: boolean } | null;
}

interface List {
  ready_rows: { item_id: string; adapter: string }[];
  blocked_rows: { item_id: string; blocked_reasons: string[] }[];
  frozen_rows: unknown[];
  dependency_edges: Edge[];
}

describe('frontier list and explain', () => {
  let db: TestDatabase;
  let daemon: DaemonProcess;
  let env: Record<string, string>;
  let fl: CreatedItem[];

  beforeAll(async () => {
    db = await createTestDatabase('server', 'frontier');
    daemon = await startDaemonProcess({ env: { SVC_DATABASE_URL: db.url } });
    env = svcEnv(daemon);
    await withClient(db.url, async (client) => {
      await createProject(client, { id: 'fl', prefix: 'FL' });
      await createProject(client, { id: 'ot', prefix: 'OT' });
      fl = await insertItems(client, 'fl', [
        { title: 'root', status: 'planned', priority: 'high', createdAt: '2026-01-01T00:00:00Z' },
        { title: 'needs root done', status: 'planned' },
        { title: 'merges after root', status: 'planned' },
        { title: 'needs OT-1 in prod', status: 'planned' },
        { title: 'needs abandoned', status: 'planned' },
        { title: 'abandoned', status: 'cancelled' },
        { title: 'needs a deleted item', status: 'planned' },
        { title: 'operator blocked', status: 'planned', blocked: true, blockedReason: 'waiting for legal' },
        { title: 'two levels down', status: 'idea' },
        { title: 'second root', status: 'planned', priority: 'high', createdAt: '2026-01-02T00:00:00Z' },
      ]);
      const ot = await insertItems(client, 'ot', [{ title: 'service', status: 'implemented' }]);
      await client.query(`INSERT INTO deployment_flows (id, project, name, stages, active)
                          VALUES ('ot-flow', 'ot', 'main', '["staging", "prod"]', true)`);
      await client.query(`INSERT INTO environments (project, name, flow_id) VALUES ('ot', 'prod', 'ot-flow')`);
      await client.query(
        `INSERT INTO deployment_runs (project, environment, status, carried_work)
         VALUES ('ot', 'prod', 'running', jsonb_build_object('items', jsonb_build_array($1::int)))`,
        [ot[0].id],
      );
      await insertEdges(client, [
        { blocker: fl[0].id, dependent: fl[1].id, rationale: 'uses the root API' },
        { blocker: fl[0].id, dependent: fl[2].id, gatePoint: 'integration', satisfaction: 'status:implemented' },
        { blocker: ot[0].id, dependent: fl[3].id, gatePoint: 'closure', satisfaction: 'fact:deployed:prod' },
        { blocker: ot[0].id, dependent: fl[3].id, satisfaction: 'fact:deployed:prod' },
        { blocker: fl[5].id, dependent: fl[4].id },
        { blocker: 99_999_999, dependent: fl[6].id },
        { blocker: fl[1].id, dependent: fl[8].id },
      ]);
    });
  });

  afterAll(async () => {
    await daemon?.stop();
    await db?.drop();
  });

  const list = async (args: string[] = []) => {
    const result = await runSvc(['frontier', 'list', '--project', 'fl', '--json', ...args], { env });
    expect(result.code).toBe(0);
    return parseJson<List>(result);
  };

  it('should return ready rows, blocked rows and every unsatisfied edge with its details', async () => {
    const body = await list();
    expect(body.ready_rows.map((r) => r.item_id)).toEqual(['FL-1', 'FL-10', 'FL-3']);
    expect(body.blocked_rows.map((r) => r.item_id).sort()).toEqual(['FL-2', 'FL-4', 'FL-5', 'FL-7', 'FL-8', 'FL-9']);
    const edge = (dependent: string, gate: string) =>
      body.dependency_edges.find((e) => e.dependent === dependent && e.gate_point === gate);
    expect(edge('FL-2', 'activation')).toEqual(
      expect.objectContaining({
        blocker: 'FL-1',
        satisfaction: 'status:done',
        rationale: 'uses the root API',
        blocker_stage: 'planned',
        blocker_title: 'root',
        blocking_terminal: false,
        blocking_abandoned: false,
        environment: null,
      }),
    );
    expect(edge('FL-3', 'integration')).toMatchObject({ blocker: 'FL-1', satisfaction: 'status:implemented' });
    expect(edge('FL-4', 'closure')).toMatchObject({
      blocker: 'OT-1',
      environment: { name: 'prod', delivery_state: 'deploying', in_delivery_flow: true },
    });
    expect(edge('FL-5', 'activation')).toMatchObject({
      blocker: 'FL-6',
      blocker_stage: 'cancelled',
      blocking_terminal: true,
      blocking_abandoned: true,
    });
    expect(edge('FL-7', 'activation')).toMatchObject({ blocker: null, blocker_stage: null, blocker_title: null });
  });

  it('should filter by gate point, blocker and abandonment', async () => {
    const closure = await list(['--gate-point', 'closure', '--only', 'edges']);
    expect(closure.dependency_edges.map((e) => e.dependent)).toEqual(['FL-4']);
    expect(closure.ready_rows).toEqual([]);
    const byBlocker = await list(['--blocker', 'FL-1', '--only', 'edges']);
    expect(byBlocker.dependency_edges.map((e) => `${e.dependent}/${e.gate_point}`).sort()).toEqual([
      'FL-2/activation',
      'FL-3/integration',
    ]);
    const abandoned = await list(['--abandoned', '--only', 'edges']);
    expect(abandoned.dependency_edges.map((e) => e.dependent)).toEqual(['FL-5']);
    const help = await runSvc(['frontier', 'list', '--help']);
    expect(help.stdout).toContain('--gate-point');
    expect(help.stdout).toContain('--abandoned');
  });

  it('should explain a blocked item down to the fact, with the critical path to runnable work', async () => {
    const result = await runSvc(['frontier', 'explain', 'FL-9', '--json'], { env });
    expect(result.code).toBe(0);
    const body = parseJson<{
      bucket: string;
      unsatisfied: { blocker: string; satisfaction: string; state: string; need: string }[];
      critical_path: string[];
      unblock_roots: string[];
    }>(result);
    expect(body.bucket).toBe('blocked');
    expect(body.unsatisfied).toEqual([
      expect.objectContaining({ blocker: 'FL-2', satisfaction: 'status:done', state: 'planned' }),
    ]);
    expect(body.unsatisfied[0].need).toContain('FL-2');
    expect(body.critical_path).toEqual(['FL-9', 'FL-2', 'FL-1']);
    expect(body.unblock_roots).toEqual(['FL-1']);
    const text = await runSvc(['frontier', 'explain', 'FL-9'], { env });
    expect(text.stdout).toContain('runnable now to unblock it: FL-1');
  });

  it('should explain an operator block and a frozen or terminal item', async () => {
    const blocked = parseJson<{ bucket: string; operator_block: string }>(
      await runSvc(['frontier', 'explain', 'FL-8', '--json'], { env }),
    );
    expect(blocked).toMatchObject({ bucket: 'blocked' });
    expect(blocked.operator_block).toContain('waiting for legal');
    const terminal = parseJson<{ bucket: string; status: string }>(
      await runSvc(['frontier', 'explain', 'FL-6', '--json'], { env }),
    );
    expect(terminal).toMatchObject({ bucket: 'not_candidate', status: 'cancelled' });
  });

  it('should name the ranking key that places a runnable item', async () => {
    const body = parseJson<{
      bucket: string;
      position: number;
      ranking: { keys: { priority: string }; below: { item_id: string; deciding_key: string } };
    }>(await runSvc(['frontier', 'explain', 'FL-1', '--json'], { env }));
    expect(body).toMatchObject({ bucket: 'runnable', position: 1 });
    expect(body.ranking.keys.priority).toBe('high');
    // FL-1 and FL-10 tie on priority, depth (FL-1 has dependents) decides
    expect(body.ranking.below).toMatchObject({ item_id: 'FL-10', deciding_key: 'downstream_depth' });
  });

  it('should answer item_not_found for an unknown ref', async () => {
    const result = await runSvc(['frontier', 'explain', 'FL-4040'], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('item_not_found');
  });

  describe('repeated reads', () => {
    const read = async () => {
      const res = await fetch(`${daemon.url}/v1/charge/frontier?project=fl`, {
        headers: { authorization: `Bearer ${daemon.token}` },
      });
      expect(res.status).toBe(200);
      return (await res.json()) as { runnable: { item_id: string }[]; blocked: { item_id: string }[] };
    };
    const runnableRefs = async () => (await read()).runnable.map((i) => i.item_id);

    it('should reflect a change written through the API when the backlog was read just before', async () => {
      expect(await runnableRefs()).toContain('FL-10');
      expect((await runSvc(['items', 'block', 'FL-10', '--reason', 'cache check'], { env })).code).toBe(0);
      const after = await read();
      expect(after.runnable.map((i) => i.item_id)).not.toContain('FL-10');
      expect(after.blocked.map((i) => i.item_id)).toContain('FL-10');
      expect((await runSvc(['items', 'unblock', 'FL-10'], { env })).code).toBe(0);
      expect(await runnableRefs()).toContain('FL-10');
    });

    it('should reflect a change another process wrote straight to the database', async () => {
      expect(await runnableRefs()).toContain('FL-10');
      await withClient(db.url, (client) => client.query(`UPDATE items SET frozen = 1 WHERE id = $1`, [fl[9].id]));
      expect(await runnableRefs()).not.toContain('FL-10');
      await withClient(db.url, (client) => client.query(`UPDATE items SET frozen = 0 WHERE id = $1`, [fl[9].id]));
      expect(await runnableRefs()).toContain('FL-10');
    });

    it('should reflect a new dependency edge and its removal', async () => {
      const edge = await withClient(db.url, (client) =>
        client.query(
          `INSERT INTO item_dependencies (dependent_item_id, blocking_item_id, source) VALUES ($1, $2, 'operator')
           RETURNING id`,
          [fl[9].id, fl[4].id],
        ),
      );
      expect(await runnableRefs()).not.toContain('FL-10');
      await withClient(db.url, (client) =>
        client.query('DELETE FROM item_dependencies WHERE id = $1', [edge.rows[0].id]),
      );
      expect(await runnableRefs()).toContain('FL-10');
    });

    it('should answer 304 to the ETag of an unchanged backlog, and a new body with a new tag after a write', async () => {
      const url = `${daemon.url}/v1/charge/frontier?project=fl`;
      const headers = { authorization: `Bearer ${daemon.token}` };
      const first = await fetch(url, { headers });
      const body = await first.text();
      const etag = first.headers.get('etag')!;
      expect(first.status).toBe(200);
      expect(first.headers.get('content-type')).toMatch(/^application\/json/);
      expect(etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
      expect(first.headers.get('content-length')).toBe(String(Buffer.byteLength(body)));
      expect((JSON.parse(body) as { runnable: unknown[] }).runnable.length).toBeGreaterThan(0);

      const unchanged = await fetch(url, { headers: { ...headers, 'if-none-match': etag } });
      expect(unchanged.status).toBe(304);
      expect(await unchanged.text()).toBe('');

      await withClient(db.url, (client) =>
        client.query(`UPDATE items SET title = 'root, renamed' WHERE id = $1`, [fl[0].id]),
      );
      const changed = await fetch(url, { headers: { ...headers, 'if-none-match': etag } });
      const changedBody = await changed.text();
      expect(changed.status).toBe(200);
      expect(changed.headers.get('etag')).not.toBe(etag);
      expect(changedBody).toContain('"title":"root, renamed"');
      // every other item's JSON is unchanged, byte for byte
      expect(changedBody.split('"title":"root, renamed"').join('"title":"root"')).toBe(body);
      await withClient(db.url, (client) => client.query(`UPDATE items SET title = 'root' WHERE id = $1`, [fl[0].id]));
    });

    it('should answer ?since= with a delta that leads to the full answer, 304 at the current ETag, and in full for an unknown base', async () => {
      const url = `${daemon.url}/v1/charge/frontier?project=fl`;
      const headers = { authorization: `Bearer ${daemon.token}` };
      const first = await fetch(url, { headers });
      const base = (await first.json()) as FrontierResultWire;
      const etag = first.headers.get('etag')!;
      expect((await fetch(`${url}&since=${encodeURIComponent(etag)}`, { headers })).status).toBe(304);

      await withClient(db.url, (client) => client.query(`UPDATE items SET priority = 'low' WHERE id = $1`, [fl[0].id]));
      const delta = await fetch(`${url}&since=${encodeURIComponent(etag)}`, { headers });
      expect(delta.status).toBe(200);
      expect(delta.headers.get('content-type')).toBe(FRONTIER_DELTA_MEDIA_TYPE);
      const body = (await delta.json()) as FrontierDeltaWire;
      expect(body.base).toBe(etag);
      expect(delta.headers.get('etag')).toBe(body.etag);
      const full = await fetch(url, { headers });
      expect(full.headers.get('etag')).toBe(body.etag);
      expect(JSON.stringify(applyFrontierDelta(base, body))).toBe(await full.text());
      // the unquoted form names the same answer
      expect((await fetch(`${url}&since=${body.etag.slice(1, -1)}`, { headers })).status).toBe(304);

      const unknown = await fetch(`${url}&since=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`, { headers });
      expect(unknown.status).toBe(200);
      expect(unknown.headers.get('x-frontier-full-reason')).toBe('unknown_base');
      expect(unknown.headers.get('etag')).toBe(body.etag);
      const bad = await fetch(`${url}&since=${encodeURIComponent('"x y"')}`, { headers });
      expect(bad.status).toBe(400);

      const page = await fetch(`${url}&limit=1`, { headers });
      expect(page.headers.get('etag')).toBeNull();
      const firstItems = (await page.json()) as FrontierResultWire;
      const whole = JSON.parse(await (await fetch(url, { headers })).text()) as FrontierResultWire;
      expect(firstItems.runnable).toEqual(whole.runnable.slice(0, 1));
      expect(firstItems.blocked).toEqual(whole.blocked.slice(0, 1));
      await withClient(db.url, (client) =>
        client.query(`UPDATE items SET priority = 'high' WHERE id = $1`, [fl[0].id]),
      );
    });
  });
});
