import type { FrontierResultWire, FrontierWindowWire } from '@app/contracts';
import {
  createProject,
  createTestDatabase,
  CreatedItem,
  DaemonProcess,
  insertEdges,
  insertItems,
  startDaemonProcess,
  TestDatabase,
  withClient,
} from '@app/testing';
import { createActor, http, sql, TestActor } from '@app/testing/machine-auth';

// GET /v1/charge/frontier/window: one list of the answer, filtered and sorted by the TUI's list query, a window of it
// (what a TUI on a project too large to hold reads). Each window is checked against the whole answer.

const PRIORITIES = ['high', 'medium', 'low'] as const;

describe('GET /v1/charge/frontier/window', () => {
  let db: TestDatabase;
  let daemon: DaemonProcess;
  let admin: string;
  let otto: TestActor;
  let items: CreatedItem[];

  beforeAll(async () => {
    db = await createTestDatabase('server', 'frontier_window');
    daemon = await startDaemonProcess({ env: { SVC_DATABASE_URL: db.url } });
    admin = daemon.token!;
    await withClient(db.url, async (client) => {
      await createProject(client, { id: 'win', prefix: 'WN', policy: { wip_cap: 2 } });
      await createProject(client, { id: 'hid', prefix: 'HD' });
      items = await insertItems(
        client,
        'win',
        Array.from({ length: 40 }, (_, i) => ({
          title: i % 5 === 0 ? `Payment retry ${i}` : `Ledger task ${i}`,
          status: i % 4 === 0 ? 'idea' : 'planned',
          priority: PRIORITIES[i % 3],
          frozen: i >= 36,
          createdAt: new Date(Date.UTC(2026, 0, 1) + ((i * 7) % 40) * 3_600_000).toISOString(),
        })),
      );
      // items 30..35 wait for item 29
      await insertEdges(
        client,
        items.slice(30, 36).map((d) => ({ blocker: items[29].id, dependent: d.id })),
      );
    });
    otto = await createActor(db.url, { name: 'otto', org: 'default' });
    // 'hid' belongs to an organization otto is not in
    await sql(db.url, `INSERT INTO organizations (slug, name) VALUES ('hidden', 'hidden')`);
    await sql(
      db.url,
      `UPDATE projects SET organization_id = (SELECT id FROM organizations WHERE slug = 'hidden') WHERE id = 'hid'`,
    );
  });

  afterAll(async () => {
    await daemon?.stop();
    await db?.drop();
  });

  const get = <T>(query: string, token = admin) =>
    http<T>(daemon.url, 'GET', `/v1/charge/frontier/window?${query}`, { token });
  const whole = async () =>
    (await http<FrontierResultWire>(daemon.url, 'GET', '/v1/charge/frontier?project=win', { token: admin })).body;

  it('should cut a window of a list in the frontier order, with every list length and the answer it came from', async () => {
    const answer = await whole();
    const etag = (
      await fetch(`${daemon.url}/v1/charge/frontier?project=win`, {
        headers: { authorization: `Bearer ${admin}` },
      })
    ).headers.get('etag');
    const res = await get<FrontierWindowWire>('project=win&list=runnable&offset=3&limit=5');
    expect(res.status).toBe(200);
    const w = res.body;
    expect(w.runnable).toEqual(answer.runnable.slice(3, 8));
    expect(w.blocked).toEqual([]);
    expect(w.frozen).toEqual([]);
    // the eligible rows among the window's (the answer's may be most of the runnable list)
    const eligible = new Set(answer.conduct_eligible.map((r) => r.item_id));
    expect(w.conduct_eligible).toEqual(w.runnable.filter((r) => eligible.has(r.item_id)));
    const all = await get<FrontierWindowWire>('project=win&list=runnable&limit=100');
    const ids = (rows: { item_id: string }[]) => rows.map((r) => r.item_id).sort();
    expect(ids(all.body.conduct_eligible)).toEqual(ids(answer.conduct_eligible));
    expect(answer.conduct_eligible.length).toBeGreaterThan(0);
    expect(w.wip_cap).toBe(2);
    expect(w.window).toEqual({
      list: 'runnable',
      offset: 3,
      total: answer.runnable.length,
      totals: { runnable: answer.runnable.length, blocked: answer.blocked.length, frozen: answer.frozen.length },
      ranks: [3, 4, 5, 6, 7],
      wip_suppressed:
        answer.runnable.filter((r) => r.adapter === 'conduct').length -
        answer.conduct_eligible.filter((r) => r.adapter === 'conduct').length,
      filter: '',
      sort: 'rank',
      desc: false,
      etag,
    });
    expect(answer.blocked.length).toBe(6);
    expect(answer.frozen.length).toBe(4);
    const blocked = await get<FrontierWindowWire>('project=win&list=blocked&limit=100');
    expect(blocked.body.blocked).toEqual(answer.blocked);
    // past the end: no rows, the offset where the rows end
    const past = await get<FrontierWindowWire>('project=win&list=frozen&offset=50&limit=10');
    expect(past.body.frozen).toEqual([]);
    expect(past.body.window).toMatchObject({ offset: 4, total: 4 });
  });

  it('should filter and sort as the TUI does, and keep each row’s frontier rank', async () => {
    const answer = await whole();
    const res = await get<FrontierWindowWire>(
      `project=win&list=runnable&filter=${encodeURIComponent('payment pri:high')}&sort=age&desc=true&limit=100`,
    );
    expect(res.status).toBe(200);
    const expected = answer.runnable
      .map((row, rank) => ({ row, rank }))
      .filter(({ row }) => row.title.toLowerCase().includes('payment') && row.priority === 'high')
      .sort((a, b) =>
        a.row.created_at < b.row.created_at ? 1 : a.row.created_at > b.row.created_at ? -1 : b.rank - a.rank,
      );
    expect(expected.length).toBeGreaterThan(1);
    expect(res.body.runnable.map((r) => r.item_id)).toEqual(expected.map((e) => e.row.item_id));
    expect(res.body.window.ranks).toEqual(expected.map((e) => e.rank));
    expect(res.body.window).toMatchObject({
      total: expected.length,
      filter: 'payment pri:high',
      sort: 'age',
      desc: true,
    });
    // a ref matches too; status: narrows by stage
    const byRef = await get<FrontierWindowWire>(`project=win&list=runnable&filter=${encodeURIComponent(items[7].ref)}`);
    expect(byRef.body.runnable.map((r) => r.item_id)).toEqual([items[7].ref]);
    const ideas = await get<FrontierWindowWire>('project=win&list=runnable&filter=status:idea&limit=100');
    expect(ideas.body.runnable.length).toBe(answer.runnable.filter((r) => r.status === 'idea').length);
    expect(ideas.body.runnable.every((r) => r.status === 'idea')).toBe(true);
  });

  it('should read @me as the items the caller’s own sessions hold claims on', async () => {
    const session = await http<{ session_id: number }>(daemon.url, 'POST', '/v1/sessions', {
      token: otto.token,
      body: { harness: 'claude-code', model: 'opus-4', project: 'win' },
    });
    expect(session.status).toBe(201);
    const top = (await whole()).runnable[0].item_id;
    const dispatched = await http(daemon.url, 'POST', '/v1/charge/dispatch', {
      token: otto.token,
      body: { session_id: session.body.session_id, item_id: top },
    });
    expect(dispatched.status).toBe(200);
    const mine = await get<FrontierWindowWire>('project=win&list=runnable&filter=%40me', otto.token);
    expect(mine.body.runnable.map((r) => r.item_id)).toEqual([top]);
    const notAdmins = await get<FrontierWindowWire>('project=win&list=runnable&filter=%40me');
    expect(notAdmins.body.runnable).toEqual([]);
    expect(notAdmins.body.window.total).toBe(0);
  });

  it('should refuse a bad query with validation_failed and a project the caller cannot see with project_not_found', async () => {
    for (const query of [
      'project=win&list=edges',
      'project=win&limit=0',
      'project=win&limit=1001',
      'project=win&offset=-1',
      'project=win&sort=colour',
      `project=win&filter=${'x'.repeat(201)}`,
    ]) {
      const res = await get<{ code: string }>(query);
      expect([query, res.status, res.body.code]).toEqual([query, 400, 'validation_failed']);
    }
    expect((await get<{ code: string }>('list=runnable')).body.code).toBe('project_required');
    const unknown = await get<{ code: string }>('project=nope');
    expect([unknown.status, unknown.body.code]).toEqual([404, 'project_not_found']);
    const hidden = await get<{ code: string }>('project=hid', otto.token);
    expect([hidden.status, hidden.body.code]).toEqual([404, 'project_not_found']);
  });
});
