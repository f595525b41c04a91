import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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
  workflowVersionId,
} from '@app/testing';

interface Decision {
  item_id: string | null;
  adapter: string | null;
  dispatched: boolean;
  reason: string;
  project: string | null;
  target_bucket?: string;
}

interface EventWire {
  id: string;
  name: string;
  item_id: string | null;
  project: string | null;
  session_id: number | null;
  payload: { detail?: Decision } & Record<string, unknown>;
}

const stagesWith = (planned: { adapter: string; entrypoint: string | null }) => ({
  id: 'custom',
  name: 'custom',
  initial_stage: 'idea',
  stages: [
    { id: 'idea', adapter: 'refine', entrypoint: '/svc refine {ref}', gates: [], terminal: false },
    { id: 'planned', ...planned, gates: [], terminal: false },
    { id: 'done', adapter: 'skip', entrypoint: null, gates: [], terminal: true },
  ],
});

describe('svc charge', () => {
  let db: TestDatabase;
  let daemon: DaemonProcess;
  let env: Record<string, string>;
  let alpha: CreatedItem[];
  let race: CreatedItem[];
  let lazy: CreatedItem[];

  const http = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${daemon.url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json', ...(init.headers ?? {}) },
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  };

  const decisions = async (): Promise<EventWire[]> => {
    const result = await runSvc(
      ['events', 'query', '--event-name', 'ChargeDecisionMade', '--limit', '1000', '--json'],
      {
        env,
      },
    );
    expect(result.code).toBe(0);
    return parseJson<{ events: EventWire[] }>(result).events;
  };

  const charge = (args: string[], options: { input?: string; cwd?: string; extraEnv?: Record<string, string> } = {}) =>
    runSvc(['charge', ...args], {
      env: { ...env, ...(options.extraEnv ?? {}) },
      input: options.input,
      cwd: options.cwd,
    });

  beforeAll(async () => {
    db = await createTestDatabase('server', 'charge');
    daemon = await startDaemonProcess({ env: { SVC_DATABASE_URL: db.url } });
    env = svcEnv(daemon);
    await withClient(db.url, async (client) => {
      await createProject(client, { id: 'alpha', prefix: 'AL' });
      alpha = await insertItems(client, 'alpha', [
        { title: 'top', status: 'planned', priority: 'high', createdAt: '2026-01-01T00:00:00Z' },
        { title: 'waits on 5', status: 'planned', priority: 'high', createdAt: '2026-01-02T00:00:00Z' },
        { title: 'frozen', status: 'planned', frozen: true },
        { title: 'finished', status: 'done' },
        { title: 'blocker', status: 'idea', priority: 'low', createdAt: '2026-01-03T00:00:00Z' },
      ]);
      await insertEdges(client, [{ blocker: alpha[4].id, dependent: alpha[1].id }]);
      await createProject(client, { id: 'empty', prefix: 'EM' });
      await insertItems(client, 'empty', [{ status: 'done' }]);
      await createProject(client, { id: 'race', prefix: 'RC' });
      race = await insertItems(
        client,
        'race',
        Array.from({ length: 10 }, (_v, i) => ({ title: `race ${i}`, status: 'planned' as const })),
      );
      await createProject(client, { id: 'capped', prefix: 'CP', policy: { wip_cap: 3 } });
      await insertItems(client, 'capped', [
        { status: 'implementing' },
        ...Array.from({ length: 6 }, () => ({ status: 'planned' as const })),
      ]);
      const waitVersion = await workflowVersionId(
        client,
        'waitflow',
        stagesWith({ adapter: 'wait', entrypoint: null }),
      );
      const noEntryVersion = await workflowVersionId(
        client,
        'noentry',
        stagesWith({ adapter: 'conduct', entrypoint: null }),
      );
      expect(waitVersion).toBeGreaterThan(0);
      expect(noEntryVersion).toBeGreaterThan(0);
      await createProject(client, { id: 'waity', prefix: 'WT' });
      await insertItems(client, 'waity', [{ status: 'planned', workflow: 'waitflow' }]);
      await createProject(client, { id: 'noentry', prefix: 'NE' });
      await insertItems(client, 'noentry', [{ status: 'planned', workflow: 'noentry' }]);
      await createProject(client, {
        id: 'laned',
        prefix: 'LN',
        policy: {
          session_routing: {
            lane_rules: [{ harness: 'claude*', model: 'opus*', lane: 'deep' }],
            'executor_default_lane_codex*': 'fast',
            executor_default_lane_unknown: 'slow',
            adapter_lanes: { conduct: 'deep', refine: 'slow' },
          },
        },
      });
      await insertItems(client, 'laned', [{ status: 'planned' }, { status: 'idea' }]);
      await createProject(client, { id: 'lazy', prefix: 'LZ' });
      lazy = await insertItems(client, 'lazy', [{ status: 'planned' }, { status: 'planned' }, { status: 'planned' }]);
    });
  });

  afterAll(async () => {
    await daemon?.stop();
    await db?.drop();
  });

  describe('GET /v1/charge/frontier', () => {
    it('should refuse as project_required and list the accessible projects when the project is missing', async () => {
      const res = await http('/v1/charge/frontier');
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('project_required');
      expect(res.body.projects).toEqual(
        expect.arrayContaining([{ id: 'alpha', name: 'alpha', public_item_prefix: 'AL' }]),
      );
    });

    it('should answer project_not_found when the project does not exist', async () => {
      const res = await http('/v1/charge/frontier?project=nope');
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('project_not_found');
    });

    it('should refuse an invalid wip_cap', async () => {
      const res = await http('/v1/charge/frontier?project=alpha&wip_cap=lots');
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
    });

    it('should return the FrontierResult with public refs when the project is given', async () => {
      const res = await http('/v1/charge/frontier?project=alpha');
      expect(res.status).toBe(200);
      const body = res.body as {
        runnable: { item_id: string; adapter: string; created_at: string; unblocks_count: number }[];
        blocked: { item_id: string; blocked_by: string[]; blocked_reasons: string[]; adapter: string }[];
        frozen: { item_id: string }[];
        wip_cap: number;
        wip_active: number;
        conduct_eligible: { item_id: string }[];
      };
      expect(body.runnable.map((i) => i.item_id)).toEqual(['AL-1', 'AL-5']);
      expect(body.runnable[0]).toMatchObject({ adapter: 'conduct', created_at: '2026-01-01T00:00:00.000' });
      expect(body.runnable[1]).toMatchObject({ adapter: 'refine', unblocks_count: 1 });
      expect(body.blocked).toEqual([
        expect.objectContaining({ item_id: 'AL-2', blocked_by: ['AL-5'], adapter: 'wait' }),
      ]);
      expect(body.blocked[0].blocked_reasons[0]).toContain('AL-5');
      expect(body.frozen.map((i) => i.item_id)).toEqual(['AL-3']);
      expect(body.wip_cap).toBe(30);
      expect(body.wip_active).toBe(0);
      expect(body.conduct_eligible.map((i) => i.item_id)).toEqual(['AL-1']);
    });

    it('should take the wip_cap from the project policy, and a query override before it', async () => {
      const stored = await http('/v1/charge/frontier?project=capped');
      expect(stored.body).toMatchObject({ wip_cap: 3, wip_active: 1 });
      // the implementing issue is re-entry: eligible without a slot; two starts fill the remaining capacity
      expect((stored.body.conduct_eligible as unknown[]).length).toBe(3);
      const override = await http('/v1/charge/frontier?project=capped&wip_cap=5');
      expect(override.body).toMatchObject({ wip_cap: 5 });
      expect((override.body.conduct_eligible as unknown[]).length).toBe(5);
    });

    it('should print the same JSON from svc charge-frontier', async () => {
      const cli = await runSvc(['charge-frontier', '--project', 'alpha', '--wip-cap', '7', '--json'], { env });
      expect(cli.code).toBe(0);
      const res = await http('/v1/charge/frontier?project=alpha&wip_cap=7');
      expect(parseJson(cli)).toEqual(res.body);
      const missing = await runSvc(['charge-frontier'], { env });
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain('project_required');
    });

    it('should record FrontierComputed with a compact payload on every compute', async () => {
      const result = await runSvc(
        ['events', 'query', '--event-name', 'FrontierComputed', '--project', 'alpha', '--json'],
        {
          env,
        },
      );
      const events = parseJson<{ events: EventWire[] }>(result).events;
      expect(events.length).toBeGreaterThanOrEqual(2);
      expect(events[0].payload).toMatchObject({
        project: 'alpha',
        counts: { runnable: 2, blocked: 1, frozen: 1, conduct_eligible: 1 },
        wip_active: 0,
      });
      expect(typeof events[0].payload.duration_ms).toBe('number');
    });
  });

  describe('sessions and lanes', () => {
    it.each([
      ['claude-code', 'opus-4', 'deep', 'lane_rule'],
      ['codex-cli', 'gpt', 'fast', 'harness_prefix'],
      ['other', 'x', 'slow', 'harness_unknown'],
    ])('should resolve %s/%s to lane %s', async (harness, model, lane, source) => {
      const res = await http('/v1/sessions', {
        method: 'POST',
        body: JSON.stringify({ harness, model, project: 'laned' }),
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ lane, lane_source: source, project: 'laned' });
    });

    it('should filter the schedule by the session lane', async () => {
      const deep = await http('/v1/sessions', {
        method: 'POST',
        body: JSON.stringify({ harness: 'claude-code', model: 'opus-4', project: 'laned' }),
      });
      const schedule = await http(`/v1/charge/schedule?project=laned&session_id=${String(deep.body.session_id)}`);
      expect((schedule.body.steps as { item_id: string }[]).map((s) => s.item_id)).toEqual(['LN-1']);
      const primary = await http('/v1/sessions', {
        method: 'POST',
        body: JSON.stringify({ harness: 'other', model: 'x', project: 'laned' }),
      });
      const other = await http(`/v1/charge/schedule?project=laned&session_id=${String(primary.body.session_id)}`);
      expect((other.body.steps as { item_id: string }[]).map((s) => s.item_id)).toEqual(['LN-2']);
    });

    it('should renew claims on heartbeat and let them expire when not renewed', async () => {
      const register = await runSvc(['sessions', 'register', '--project', 'alpha', '--json'], { env });
      const session = parseJson<{ session_id: number }>(register).session_id;
      const dispatched = await http('/v1/charge/dispatch', {
        method: 'POST',
        body: JSON.stringify({ session_id: session, item_id: 'AL-5' }),
      });
      expect(dispatched.status).toBe(200);
      const beat = await runSvc(['sessions', 'heartbeat', String(session), '--json'], { env });
      expect(parseJson<{ renewed: { item_id: string }[] }>(beat).renewed.map((c) => c.item_id)).toEqual(['AL-5']);
      const otherSession = await http('/v1/sessions', {
        method: 'POST',
        body: JSON.stringify({ harness: 'h', model: 'm' }),
      });
      const taken = await http('/v1/charge/dispatch', {
        method: 'POST',
        body: JSON.stringify({ session_id: otherSession.body.session_id, item_id: 'AL-5' }),
      });
      expect(taken.status).toBe(409);
      expect(taken.body.code).toBe('item_already_claimed');
      await withClient(db.url, (c) =>
        c.query(`UPDATE item_claims SET expires_at = now() - interval '1 second' WHERE session_id = $1`, [session]),
      );
      const afterExpiry = await http('/v1/charge/dispatch', {
        method: 'POST',
        body: JSON.stringify({ session_id: otherSession.body.session_id, item_id: 'AL-5' }),
      });
      expect(afterExpiry.status).toBe(200);
      await http(`/v1/sessions/${String(otherSession.body.session_id)}/end`, { method: 'POST' });
    });
  });

  describe('ChargeDecisionMade reasons', () => {
    it('should stop at dry_run and show the table', async () => {
      const result = await charge(['--dry-run', '--project', 'alpha']);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('AL-1');
      expect(result.stdout).toContain('conduct');
      const [last] = await decisions();
      expect(last.payload.detail).toEqual({
        item_id: 'AL-1',
        adapter: 'conduct',
        dispatched: false,
        reason: 'dry_run',
        project: 'alpha',
      });
    });

    it('should record operator_cancelled when the operator answers n', async () => {
      const result = await charge(['--project', 'alpha'], { input: 'n\n' });
      expect(result.code).toBe(130);
      expect(result.stderr).toContain('Dispatch AL-1 (conduct');
      const [last] = await decisions();
      expect(last.payload.detail).toMatchObject({ reason: 'operator_cancelled', item_id: 'AL-1', dispatched: false });
      expect(
        await withClient(db.url, (c) => c.query('SELECT 1 FROM item_claims WHERE item_id = $1', [alpha[0].id])),
      ).toMatchObject({ rowCount: 0 });
    });

    it.each([
      ['AL-2', 'blocked'],
      ['AL-3', 'frozen'],
      ['AL-4', 'not_found'],
      ['AL-999', 'not_found'],
    ])('should record requested_item_unavailable when --item %s is %s', async (ref, bucket) => {
      const result = await charge(['--item', ref, '--json']);
      expect(result.code).toBe(1);
      expect(parseJson<Decision>(result)).toMatchObject({
        reason: 'requested_item_unavailable',
        target_bucket: bucket,
      });
      const [last] = await decisions();
      expect(last.payload.detail).toMatchObject({
        item_id: ref,
        reason: 'requested_item_unavailable',
        target_bucket: bucket,
        dispatched: false,
      });
    });

    it('should record no_runnable_items and name the projects with runnable work', async () => {
      const result = await charge(['--project', 'empty', '--json']);
      expect(result.code).toBe(1);
      const body = parseJson<Decision & { runnable_elsewhere: { project: string }[] }>(result);
      expect(body.reason).toBe('no_runnable_items');
      expect(body.runnable_elsewhere.map((r) => r.project)).toEqual(expect.arrayContaining(['alpha', 'race']));
      const [last] = await decisions();
      expect(last.payload.detail).toEqual({
        item_id: null,
        adapter: null,
        dispatched: false,
        reason: 'no_runnable_items',
        project: 'empty',
      });
    });

    it('should record wait_adapter_encountered and not dispatch', async () => {
      const result = await charge(['--project', 'waity', '--yes']);
      expect(result.code).toBe(1);
      const [last] = await decisions();
      expect(last.payload.detail).toMatchObject({
        reason: 'wait_adapter_encountered',
        item_id: 'WT-1',
        adapter: 'wait',
      });
    });

    it('should surface entrypoint_unavailable with its recovery text in the schedule and refuse to dispatch', async () => {
      const schedule = await runSvc(['charge', 'schedule', '--project', 'noentry', '--json'], { env });
      const step = parseJson<{
        steps: { item_id: string; entrypoint: string | null; error?: { code: string; recovery: string } }[];
      }>(schedule).steps[0];
      expect(step).toMatchObject({ item_id: 'NE-1', entrypoint: null, error: { code: 'entrypoint_unavailable' } });
      expect(step.error!.recovery).toContain("inspect the item's pin and workflow version");
      const session = await http('/v1/sessions', {
        method: 'POST',
        body: JSON.stringify({ harness: 'h', model: 'm' }),
      });
      const dispatch = await http('/v1/charge/dispatch', {
        method: 'POST',
        body: JSON.stringify({ session_id: session.body.session_id, item_id: 'NE-1' }),
      });
      expect(dispatch.status).toBe(409);
      expect(dispatch.body.code).toBe('entrypoint_unavailable');
      const result = await charge(['--project', 'noentry', '--yes']);
      expect(result.code).toBe(1);
    });

    it('should dispatch the top item, claim it and run the configured dispatcher', async () => {
      const out = join(mkdtempSync(join(tmpdir(), 'svc-dispatch-')), 'out.txt');
      const result = await charge(['--project', 'alpha', '--yes', '--json'], {
        extraEnv: { SVC_DISPATCH_COMMAND: `printf '%s|%s|%s' {entrypoint} {ref} {adapter} > ${out}` },
      });
      expect(result.code).toBe(0);
      expect(parseJson<Decision>(result)).toMatchObject({ reason: 'dispatched', item_id: 'AL-1', dispatched: true });
      expect(readFileSync(out, 'utf8')).toBe('/svc conduct AL-1|AL-1|conduct');
      const [last] = await decisions();
      expect(last.payload.detail).toEqual({
        item_id: 'AL-1',
        adapter: 'conduct',
        dispatched: true,
        reason: 'dispatched',
        project: 'alpha',
      });
      const claims = await withClient(db.url, (c) =>
        c.query('SELECT entrypoint, adapter FROM item_claims WHERE item_id = $1', [alpha[0].id]),
      );
      expect(claims.rows).toEqual([{ entrypoint: '/svc conduct AL-1', adapter: 'conduct' }]);
    });

    it('should print the entrypoint by default and keep only the checkout project', async () => {
      const checkout = mkdtempSync(join(tmpdir(), 'svc-checkout-'));
      writeFileSync(join(checkout, '.svc.json'), JSON.stringify({ project: 'race' }));
      const result = await charge(['--yes'], { cwd: checkout });
      expect(result.code).toBe(0);
      // with --yes only the dispatch outcome: no schedule table before it (issue 26), and how to run it (issue 37)
      expect(result.stdout).toMatch(
        /^dispatch: \/svc conduct RC-\d+\nrun it in an MCP client [^\n]*conduct with ref RC-\d+\n {2}Claude Code {2}\/mcp__svc__conduct RC-\d+\n( {2}.*\n){3}$/,
      );
      expect(result.stdout).not.toContain('AL-');
    });
  });

  describe('charge scope and lazy sessions (issues 11 and 14)', () => {
    const sessionCount = async () =>
      Number(
        (await withClient(db.url, (c) => c.query<{ n: string }>('SELECT count(*) AS n FROM executor_sessions'))).rows[0]
          .n,
      );

    it('should refuse --item of another project than --project and record the named project', async () => {
      const before = await sessionCount();
      const result = await charge(['--project', 'alpha', '--item', 'RC-2', '--yes', '--json']);
      expect(result.code).toBe(1);
      expect(parseJson<Decision>(result)).toMatchObject({
        reason: 'requested_item_unavailable',
        target_bucket: 'not_found',
        project: 'alpha',
        item_id: 'RC-2',
      });
      expect(result.stderr).toContain('RC-2 belongs to project race, not alpha');
      const [last] = await decisions();
      expect(last.payload.detail).toEqual({
        item_id: 'RC-2',
        adapter: null,
        dispatched: false,
        reason: 'requested_item_unavailable',
        project: 'alpha',
        target_bucket: 'not_found',
      });
      expect(
        await withClient(db.url, (c) => c.query('SELECT 1 FROM item_claims WHERE item_id = $1', [race[1].id])),
      ).toMatchObject({ rowCount: 0 });
      expect(await sessionCount()).toBe(before);
    });

    it('should record the named project for --item of a missing item, and the prefix project without one', async () => {
      const named = await charge(['--project', 'alpha', '--item', 'AL-999', '--json']);
      expect(named.code).toBe(1);
      let [last] = await decisions();
      expect(last.payload.detail).toMatchObject({ item_id: 'AL-999', project: 'alpha', target_bucket: 'not_found' });
      const bare = await charge(['--item', 'RC-999', '--json']);
      expect(bare.code).toBe(1);
      [last] = await decisions();
      expect(last.payload.detail).toMatchObject({ item_id: 'RC-999', project: 'race', target_bucket: 'not_found' });
    });

    it('should register no executor session for a dry run or a cancelled charge', async () => {
      const before = await sessionCount();
      expect((await charge(['--dry-run', '--project', 'lazy'])).code).toBe(0);
      expect((await charge(['--project', 'lazy'], { input: 'n\n' })).code).toBe(130);
      expect(await sessionCount()).toBe(before);
      const [cancelled, dry] = await decisions();
      expect(cancelled.payload.detail).toMatchObject({ reason: 'operator_cancelled', project: 'lazy' });
      expect(cancelled.session_id).toBeNull();
      expect(dry.payload.detail).toMatchObject({ reason: 'dry_run', project: 'lazy' });
    });

    it('should exit 64 without --yes when stdin gives no answer, recording nothing', async () => {
      const before = await decisions();
      const sessions = await sessionCount();
      const result = await charge(['--project', 'lazy']);
      expect(result.code).toBe(64);
      expect(result.stderr).toContain('confirmation_required');
      expect(result.stderr).toContain('--yes');
      expect((await decisions()).length).toBe(before.length);
      expect(await sessionCount()).toBe(sessions);
      const help = await runSvc(['charge', '--help'], { env });
      expect(help.stdout).toContain('64 no confirmation');
    });

    it('should register the session of a confirmed charge and record the project it was scoped to', async () => {
      const before = await sessionCount();
      const result = await charge(['--project', 'lazy', '--item', 'LZ-2', '--json'], { input: 'y\n' });
      expect(result.code).toBe(0);
      const body = parseJson<Decision & { session_id: number }>(result);
      expect(body).toMatchObject({ item_id: 'LZ-2', dispatched: true, project: 'lazy' });
      expect(await sessionCount()).toBe(before + 1);
      const [last] = await decisions();
      expect(last.session_id).toBe(body.session_id);
      expect(last.payload.detail).toMatchObject({ project: 'lazy', reason: 'dispatched' });
      await withClient(db.url, (c) => c.query('DELETE FROM item_claims WHERE item_id = $1', [lazy[1].id]));
    });
  });

  describe('concurrent dispatch', () => {
    it('should dispatch eight different items to eight concurrent sessions', async () => {
      await withClient(db.url, (c) => c.query(`DELETE FROM item_claims WHERE project = 'race'`));
      const results = await Promise.all(
        Array.from({ length: 8 }, (_v, i) =>
          charge(['--yes', '--project', 'race', '--json'], { extraEnv: { SVC_HARNESS: `agent-${i}` } }),
        ),
      );
      for (const r of results)
        expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
      const refs = results.map((r) => parseJson<Decision>(r).item_id);
      expect(new Set(refs).size).toBe(8);
      const claims = await withClient(db.url, (c) =>
        c.query<{ item_id: number; session_id: number }>(
          `SELECT item_id, session_id FROM item_claims WHERE project = 'race'`,
        ),
      );
      expect(claims.rowCount).toBe(8);
      expect(new Set(claims.rows.map((r) => r.session_id)).size).toBe(8);
      expect(claims.rows.map((r) => r.item_id).sort()).toEqual(
        race
          .filter((i) => refs.includes(i.ref))
          .map((i) => i.id)
          .sort(),
      );
    });

    it('should hold the WIP cap when sessions race for the last slots', async () => {
      const results = await Promise.all(
        Array.from({ length: 6 }, () => charge(['--yes', '--project', 'capped', '--json'])),
      );
      // a failure other than the refusal shows its stderr
      for (const r of results) expect([0, 1]).toContain(r.code);
      for (const r of results.filter((x) => x.code !== 0)) expect(r.stdout).toContain('no_runnable_items');
      const dispatched = results.filter((r) => r.code === 0).map((r) => parseJson<Decision>(r).item_id);
      // cap 3 with one item implementing: two fresh starts, plus the implementing item's re-entry (no slot)
      expect(dispatched.length).toBe(3);
      expect(new Set(dispatched).size).toBe(3);
      expect(dispatched).toContain('CP-1');
      for (const r of results.filter((x) => x.code !== 0)) {
        expect(parseJson<Decision>(r).reason).toBe('no_runnable_items');
      }
      const slots = await withClient(db.url, (c) =>
        c.query(`SELECT 1 FROM item_claims WHERE project = 'capped' AND wip_slot`),
      );
      expect(slots.rowCount).toBe(2);
    });
  });
});
