import {
  createProject,
  createTestDatabase,
  DaemonProcess,
  insertItems,
  runSvc,
  startDaemonProcess,
  TestDatabase,
  withClient,
} from '@app/testing';
import { createActor, http, sql, TestActor } from '@app/testing/machine-auth';

import type { ClaimsResponse } from '@app/contracts';

import { waitFor } from '@app/testing/wait-for';

import { openStream, OpenedStream, SseMessage } from './daemon-sse';

// A notice after the ones under test (delivered in commit order): a listener that got it got the earlier ones too.
async function marker(url: string, name: string, project: string | null = null): Promise<void> {
  await sql(url, `SELECT pg_notify('svc_items', $1)`, [JSON.stringify({ type: 'marker', name, project })]);
}

describe('daemon surfaces for the TUI: claims, conditional frontier, stream replay', () => {
  let db: TestDatabase;
  let daemon: DaemonProcess;
  let base: string;
  let admin: string;
  let otto: TestActor;
  let streams: OpenedStream[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('server', 'tui_surfaces');
    daemon = await startDaemonProcess({ env: { SVC_DATABASE_URL: db.url } });
    base = daemon.url;
    admin = daemon.token!;
    await withClient(db.url, async (client) => {
      await createProject(client, { id: 'alpha', prefix: 'AL' });
      await insertItems(client, 'alpha', [
        { title: 'first', status: 'planned', priority: 'high', createdAt: '2026-01-01T00:00:00Z' },
        { title: 'second', status: 'planned', priority: 'medium', createdAt: '2026-01-02T00:00:00Z' },
        { title: 'third', status: 'planned', priority: 'low', createdAt: '2026-01-03T00:00:00Z' },
      ]);
      await createProject(client, { id: 'hid', prefix: 'HD' });
      await insertItems(client, 'hid', [{ title: 'secret', status: 'planned' }]);
    });
    // a member of the server's organization (issue 24: without a membership he would see nothing)
    otto = await createActor(db.url, { name: 'otto', org: 'default' });
    // 'hid' belongs to an organization otto is not in
    await sql(db.url, `INSERT INTO organizations (slug, name) VALUES ('hidden', 'hidden')`);
    await sql(
      db.url,
      `UPDATE projects SET organization_id = (SELECT id FROM organizations WHERE slug = 'hidden') WHERE id = 'hid'`,
    );
  });

  afterEach(async () => {
    await Promise.all(streams.map((s) => s.close()));
    streams = [];
  });

  afterAll(async () => {
    await daemon?.stop();
    await db?.drop();
  });

  const stream = async (token: string, options: { query?: string; headers?: Record<string, string> } = {}) => {
    const opened = await openStream(base, token, options);
    streams.push(opened);
    return opened;
  };

  async function session(project = 'alpha'): Promise<number> {
    const res = await http<{ session_id: number }>(base, 'POST', '/v1/sessions', {
      token: admin,
      body: { harness: 'claude-code', model: 'opus-4', project },
    });
    expect(res.status).toBe(201);
    return res.body.session_id;
  }

  const dispatch = (sessionId: number, item: string) =>
    http(base, 'POST', '/v1/charge/dispatch', { token: admin, body: { session_id: sessionId, item_id: item } });

  describe('GET /v1/charge/claims', () => {
    it('should name who holds each live claim of the project, and announce claims taken and released', async () => {
      const live = await stream(admin, { query: 'project=alpha' });
      const sessionId = await session();
      const dispatched = await dispatch(sessionId, 'AL-1');
      expect(dispatched.status).toBe(200);
      const claimed = await live.waitFor((m) => m.event === 'claim' && m.data.item_id === 'AL-1');
      expect(claimed.data).toEqual({
        type: 'claim',
        op: 'claimed',
        project: 'alpha',
        item_id: 'AL-1',
        session_id: sessionId,
      });
      const res = await http<ClaimsResponse>(base, 'GET', '/v1/charge/claims?project=alpha', { token: otto.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        project: 'alpha',
        claims: [
          {
            item_id: 'AL-1',
            project: 'alpha',
            session_id: sessionId,
            harness: 'claude-code',
            model: 'opus-4',
            lane: expect.any(String),
            actor: 'admin',
            adapter: 'conduct',
            wip_slot: expect.any(Boolean),
            claimed_at: expect.any(String),
            expires_at: expect.any(String),
          },
        ],
      });
      const [{ lane }] = await sql<{ lane: string }>(db.url, 'SELECT lane FROM executor_sessions WHERE id = $1', [
        sessionId,
      ]);
      expect(res.body.claims[0].lane).toBe(lane);
      expect(Date.parse(res.body.claims[0].expires_at)).toBeGreaterThan(Date.parse(res.body.claims[0].claimed_at));

      // a heartbeat renews without a notice; ending the session releases with one
      const beat = await http(base, 'POST', `/v1/sessions/${sessionId}/heartbeat`, { token: admin });
      expect(beat.status).toBe(200);
      const ended = await http(base, 'POST', `/v1/sessions/${sessionId}/end`, { token: admin });
      expect(ended.status).toBe(200);
      await live.waitFor((m) => m.event === 'claim' && m.data.op === 'released' && m.data.item_id === 'AL-1');
      expect(live.messages.filter((m) => m.event === 'claim').map((m) => m.data.op)).toEqual(['claimed', 'released']);
      const after = await http<ClaimsResponse>(base, 'GET', '/v1/charge/claims?project=alpha', { token: admin });
      expect(after.body.claims).toEqual([]);
    });

    it('should leave out expired claims', async () => {
      const sessionId = await session();
      expect((await dispatch(sessionId, 'AL-2')).status).toBe(200);
      const before = await http<ClaimsResponse>(base, 'GET', '/v1/charge/claims?project=alpha', { token: admin });
      expect(before.body.claims.map((c) => c.item_id)).toEqual(['AL-2']);
      await sql(db.url, `UPDATE item_claims SET expires_at = now() - interval '1 second' WHERE session_id = $1`, [
        sessionId,
      ]);
      const after = await http<ClaimsResponse>(base, 'GET', '/v1/charge/claims?project=alpha', { token: admin });
      expect(after.body.claims).toEqual([]);
    });

    it('should answer project_required, project_not_found and 401 like the frontier', async () => {
      const missing = await http(base, 'GET', '/v1/charge/claims', { token: otto.token });
      expect(missing.status).toBe(400);
      expect(missing.body).toMatchObject({ code: 'project_required' });
      for (const project of ['hid', 'nope']) {
        const hidden = await http(base, 'GET', `/v1/charge/claims?project=${project}`, { token: otto.token });
        expect(hidden.status).toBe(404);
        expect(hidden.body).toMatchObject({ code: 'project_not_found' });
      }
      expect((await http(base, 'GET', '/v1/charge/claims?project=hid', { token: admin })).status).toBe(200);
      expect((await http(base, 'GET', '/v1/charge/claims?project=alpha')).status).toBe(401);
    });

    it('should not send claim notices of a project to a listener who cannot see it', async () => {
      const ottoStream = await stream(otto.token);
      const adminStream = await stream(admin);
      const sessionId = await session('hid');
      expect((await dispatch(sessionId, 'HD-1')).status).toBe(200);
      await adminStream.waitFor((m) => m.event === 'claim' && m.data.item_id === 'HD-1');
      await marker(db.url, 'after-hidden-claim');
      await ottoStream.waitFor((m) => m.event === 'marker');
      expect(ottoStream.messages.filter((m) => m.event === 'claim')).toEqual([]);
    });
  });

  // Issue 36: the WIP cap is team policy. Project `capped` (CP) in `default` caps WIP at 1; otto is a member of
  // `default`, ada an admin of it.
  describe('the WIP cap is policy', () => {
    let ada: TestActor;

    beforeAll(async () => {
      await withClient(db.url, async (client) => {
        await createProject(client, { id: 'capped', prefix: 'CP', policy: { wip_cap: 1 } });
        await insertItems(client, 'capped', [
          { title: 'one', status: 'planned', priority: 'high', createdAt: '2026-01-01T00:00:00Z' },
          { title: 'two', status: 'planned', priority: 'medium', createdAt: '2026-01-02T00:00:00Z' },
          { title: 'three', status: 'planned', priority: 'low', createdAt: '2026-01-03T00:00:00Z' },
        ]);
      });
      ada = await createActor(db.url, { name: 'ada', org: 'default', role: 'admin' });
    });

    const sessionOf = async (token: string) => {
      const res = await http<{ session_id: number }>(base, 'POST', '/v1/sessions', {
        token,
        body: { harness: 'claude-code', model: 'opus-4', project: 'capped' },
      });
      expect(res.status).toBe(201);
      return res.body.session_id;
    };
    const dispatchAs = (token: string, sessionId: number, item: string, wipCap?: number) =>
      http(base, 'POST', '/v1/charge/dispatch', {
        token,
        body: { session_id: sessionId, item_id: item, ...(wipCap !== undefined ? { wip_cap: wipCap } : {}) },
      });
    const claimed = async () =>
      (await http<ClaimsResponse>(base, 'GET', '/v1/charge/claims?project=capped', { token: admin })).body.claims
        .map((c) => c.item_id)
        .sort();
    const policy = async () =>
      (await sql<{ policy: Record<string, unknown> }>(db.url, `SELECT policy FROM projects WHERE id = 'capped'`))[0]
        .policy;
    const forbidden = {
      code: 'wip_cap_override_forbidden',
      project: 'capped',
      policy_wip_cap: 1,
      asked_wip_cap: 1000,
      organization: 'default',
    };

    it('should refuse a member a dispatch or schedule above the policy cap with 403, changing nothing', async () => {
      const sessionId = await sessionOf(otto.token);
      const dispatched = await dispatchAs(otto.token, sessionId, 'CP-1', 1000);
      expect(dispatched.status).toBe(403);
      expect(dispatched.body).toEqual({ ...forbidden, message: expect.stringContaining('organization default') });
      expect(dispatched.body.message).toContain('the WIP cap of capped is 1 by its project policy');
      const schedule = await http(
        base,
        'GET',
        `/v1/charge/schedule?project=capped&wip_cap=1000&session_id=${sessionId}`,
        {
          token: otto.token,
        },
      );
      expect(schedule.status).toBe(403);
      expect(schedule.body).toMatchObject(forbidden);
      expect(await claimed()).toEqual([]);
      const decisions = await sql(
        db.url,
        `SELECT 1 FROM events WHERE name = 'ChargeDecisionMade' AND session_id = $1`,
        [sessionId],
      );
      expect(decisions).toEqual([]);
    });

    it('should let a member ask a lower cap, and read the frontier with any what-if cap', async () => {
      const sessionId = await sessionOf(otto.token);
      const lower = await dispatchAs(otto.token, sessionId, 'CP-1', 0);
      expect(lower.status).toBe(409);
      expect(lower.body).toMatchObject({ code: 'wip_cap_reached', wip_cap: 0 });
      const schedule = await http<{ projects: { wip_cap: number }[] }>(
        base,
        'GET',
        '/v1/charge/schedule?project=capped&wip_cap=0',
        { token: otto.token },
      );
      expect(schedule.status).toBe(200);
      expect(schedule.body.projects[0].wip_cap).toBe(0);
      for (const path of [
        '/v1/charge/frontier?project=capped&wip_cap=1000',
        '/v1/frontier/list?project=capped&wip_cap=1000',
        '/v1/frontier/explain/CP-3?wip_cap=1000',
      ]) {
        const read = await http<{ wip_cap: number }>(base, 'GET', path, { token: otto.token });
        expect([path, read.status, read.body.wip_cap]).toEqual([path, 200, 1000]);
      }
    });

    it('should hold a member to the policy cap and let an organization admin raise it for one dispatch', async () => {
      const member = await sessionOf(otto.token);
      expect((await dispatchAs(otto.token, member, 'CP-1', 1)).status).toBe(200);
      const full = await dispatchAs(otto.token, member, 'CP-2');
      expect(full.status).toBe(409);
      expect(full.body).toMatchObject({ code: 'wip_cap_reached', wip_cap: 1 });
      expect((await dispatchAs(otto.token, member, 'CP-2', 1000)).status).toBe(403);
      const orgAdmin = await sessionOf(ada.token);
      const raised = await dispatchAs(ada.token, orgAdmin, 'CP-2', 1000);
      expect(raised.status).toBe(200);
      expect(raised.body).toMatchObject({ dispatched: true, item_id: 'CP-2' });
      const serverAdmin = await session('capped');
      expect((await dispatchAs(admin, serverAdmin, 'CP-3', 1000)).status).toBe(200);
      expect(await claimed()).toEqual(['CP-1', 'CP-2', 'CP-3']);
      await http(base, 'POST', `/v1/sessions/${member}/end`, { token: otto.token });
      await http(base, 'POST', `/v1/sessions/${orgAdmin}/end`, { token: ada.token });
      await http(base, 'POST', `/v1/sessions/${serverAdmin}/end`, { token: admin });
    });

    it('should refuse a member a change of the policy’s WIP cap with 403, and let an organization admin change it', async () => {
      for (const wip_cap of [1000, 2, null]) {
        const refused = await http(base, 'PATCH', '/v1/projects/capped', {
          token: otto.token,
          body: { name: 'Capped', policy: { wip_cap } },
        });
        expect(refused.status).toBe(403);
        expect(refused.body).toMatchObject({
          code: 'wip_cap_policy_forbidden',
          project: 'capped',
          policy_wip_cap: 1,
          organization: 'default',
        });
      }
      expect(await policy()).toEqual({ wip_cap: 1 });
      // the rest of the policy stays the team's, and restating the cap changes nothing
      const other = await http(base, 'PATCH', '/v1/projects/capped', {
        token: otto.token,
        body: { policy: { wip_cap: 1, title_max_length: 120 } },
      });
      expect(other.status).toBe(200);
      const changed = await http<{ policy: Record<string, unknown> }>(base, 'PATCH', '/v1/projects/capped', {
        token: ada.token,
        body: { policy: { wip_cap: 2 } },
      });
      expect(changed.status).toBe(200);
      expect(changed.body.policy).toMatchObject({ wip_cap: 2, title_max_length: 120 });
      expect(await policy()).toEqual({ wip_cap: 2, title_max_length: 120 });
      await sql(db.url, `UPDATE projects SET policy = '{"wip_cap": 1}' WHERE id = 'capped'`);
    });

    it('should refuse a member `svc charge --wip-cap` above the policy with the code and a non-zero exit', async () => {
      const env = { SVC_URL: base, SVC_TOKEN: otto.token };
      const refused = await runSvc(['charge', '--project', 'capped', '--wip-cap', '1000', '--yes'], { env });
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain('wip_cap_override_forbidden');
      const schedule = await runSvc(['charge', 'schedule', '--project', 'capped', '--wip-cap', '1000', '--json'], {
        env,
      });
      expect(schedule.code).not.toBe(0);
      expect(schedule.stderr).toContain('wip_cap_override_forbidden');
      const whatIf = await runSvc(['frontier', 'explain', 'CP-3', '--wip-cap', '1000', '--json'], { env });
      expect(whatIf.code).toBe(0);
      expect(JSON.parse(whatIf.stdout)).toMatchObject({ item_id: 'CP-3', wip_cap: 1000 });
      expect(await claimed()).toEqual([]);
    });
  });

  describe('GET /v1/charge/frontier ETag', () => {
    const frontier = (query: string, headers: Record<string, string> = {}) =>
      fetch(`${base}/v1/charge/frontier?${query}`, { headers: { authorization: `Bearer ${admin}`, ...headers } });

    it('should answer 304 without a body while the result is unchanged, and 200 with a new ETag once it changes', async () => {
      const first = await frontier('project=alpha');
      expect(first.status).toBe(200);
      const etag = first.headers.get('etag')!;
      expect(etag).toMatch(/^"[A-Za-z0-9_-]{16,}"$/);
      expect(first.headers.get('cache-control')).toBe('no-cache');
      const body = await first.text();

      for (const tag of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
        const again = await frontier('project=alpha', { 'if-none-match': tag });
        expect(again.status).toBe(304);
        expect(again.headers.get('etag')).toBe(etag);
        expect(await again.text()).toBe('');
      }
      const other = await frontier('project=alpha', { 'if-none-match': '"stale"' });
      expect(other.status).toBe(200);
      expect(await other.text()).toBe(body);

      // another wip_cap is another result
      const capped = await frontier('project=alpha&wip_cap=0');
      expect(capped.status).toBe(200);
      expect(capped.headers.get('etag')).not.toBe(etag);
      await capped.text();

      // a direct SQL write changes the result: never a stale 304
      await withClient(db.url, (client) =>
        insertItems(client, 'alpha', [{ title: 'late arrival', status: 'planned' }]),
      );
      const changed = await frontier('project=alpha', { 'if-none-match': etag });
      expect(changed.status).toBe(200);
      expect(changed.headers.get('etag')).not.toBe(etag);
      expect(await changed.text()).toContain('late arrival');
    });
  });

  describe('Last-Event-ID on GET /v1/events/stream', () => {
    const record = async (project: string | null, name = 'TuiTestEvent') => {
      const [row] = await sql<{ id: string }>(
        db.url,
        `INSERT INTO events (name, kind, project, payload) VALUES ($1, 'telemetry', $2, '{}') RETURNING id::text AS id`,
        [name, project],
      );
      return row.id;
    };
    // `record` inserts bare rows, without the notice the daemon writes with an event: only the replay carries them.
    // A replay reads below the horizon of the whole server (docs/frontier-read-path.md), which another test file's
    // transaction holds back: wait until every transaction begun so far has ended, so what a test recorded is below it.
    const settled = async () => {
      const [{ next }] = await sql<{ next: string }>(
        db.url,
        `SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS next`,
      );
      await waitFor(
        async () => {
          const [{ passed }] = await sql<{ passed: boolean }>(
            db.url,
            `SELECT pg_snapshot_xmin(pg_current_snapshot()) >= $1::xid8 AS passed`,
            [next],
          );
          return passed;
        },
        { timeout: 50_000, interval: 50, what: 'the horizon to pass what the test recorded' },
      );
    };
    const events = (s: OpenedStream) => s.messages.filter((m) => m.event === 'event');
    const ids = (messages: SseMessage[]) => messages.map((m) => m.id);

    it('should replay the visible events after the given id, in order, before the live ones', async () => {
      const last = await record('alpha');
      const missed = [await record('alpha'), await record(null), await record('hid'), await record('alpha', 'Other')];
      await settled();
      const resumed = await stream(otto.token, { headers: { 'last-event-id': last } });
      expect(resumed.status).toBe(200);
      // patient: a replay and a notice wait for the oldest writing transaction on the whole PostgreSQL server (the
      // horizon, docs/frontier-read-path.md), and in CI every test file's database shares one server
      await resumed.waitFor((m) => m.id === missed[3], 50_000);
      const replayed = events(resumed);
      expect(ids(replayed)).toEqual([missed[0], missed[1], missed[3]]);
      expect(replayed[0].data).toEqual({
        type: 'event',
        id: Number(missed[0]),
        name: 'TuiTestEvent',
        project: 'alpha',
        item_ref: null,
      });

      // then live: an event recorded through the daemon arrives once
      const charged = await http<{ event_id: string }>(base, 'POST', '/v1/charge/decisions', {
        token: otto.token,
        body: { reason: 'no_runnable_items', project: 'alpha' },
      });
      expect(charged.status).toBe(201);
      await resumed.waitFor((m) => m.id === String(charged.body.event_id), 40_000);
      expect(ids(events(resumed)).filter((id) => id === String(charged.body.event_id))).toHaveLength(1);
    }, 90_000);

    it('should take the id from ?last_event_id= and filter the replay like the live stream', async () => {
      const last = await record('alpha');
      const wanted = await record('alpha', 'Wanted');
      await record('alpha', 'Unwanted');
      const other = await record('hid', 'Wanted');
      await settled();
      const resumed = await stream(admin, { query: `last_event_id=${last}&event_name=Wanted&project=alpha` });
      // patient, as above: the replay and the marker wait for the horizon of the shared server
      await resumed.waitFor((m) => m.id === wanted, 40_000);
      await marker(db.url, 'after-filtered-replay', 'alpha');
      await resumed.waitFor((m) => m.event === 'marker', 40_000);
      expect(ids(events(resumed))).toEqual([wanted]);
      expect(other).not.toBe(wanted);
    }, 90_000);

    it('should replay at most 500, newest, and say that older ones were left out', async () => {
      const last = await record('alpha');
      const [{ first, newest }] = await sql<{ first: string; newest: string }>(
        db.url,
        `WITH ins AS (
           INSERT INTO events (name, kind, project, payload)
           SELECT 'Bulk', 'telemetry', 'alpha', jsonb_build_object('n', n) FROM generate_series(1, 620) n
           RETURNING id)
         SELECT min(id)::text AS first, max(id)::text AS newest FROM ins`,
      );
      await settled();
      const resumed = await stream(admin, { headers: { 'last-event-id': last } });
      await resumed.waitFor((m) => m.id === newest);
      expect(resumed.messages[0]).toEqual({
        event: 'replay_truncated',
        id: null,
        data: { type: 'replay_truncated', last_event_id: last, replayed: 500 },
      });
      const replayed = events(resumed);
      expect(replayed).toHaveLength(500);
      expect(replayed[499].id).toBe(newest);
      expect(replayed.map((m) => m.id)).not.toContain(first);
      const numeric = replayed.map((m) => Number(m.id));
      expect(numeric).toEqual([...numeric].sort((a, b) => a - b));
    }, 90_000);

    it('should refuse an id that is not an event id with 400 before streaming', async () => {
      for (const options of [{ headers: { 'last-event-id': 'abc' } }, { query: 'last_event_id=-1' }]) {
        const refused = await stream(admin, options);
        expect(refused.status).toBe(400);
      }
    });
  });
});
