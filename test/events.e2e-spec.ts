import { DataSource } from 'typeorm';

import {
  createProject,
  createTestDatabase,
  CreatedItem,
  DaemonProcess,
  insertItems,
  parseJson,
  runSvc,
  startDaemonProcess,
  svcEnv,
  TestDatabase,
  withClient,
} from '@app/testing';

import { dataSourceOptions } from '../apps/daemon/src/database/data-source';
import { EventsRepository } from '../apps/daemon/src/events/events.repository';
import { OpenedStream, openStream as openSharedStream } from './daemon-sse';

// The shared reader, with this file's checks that the route answers an event stream.
async function openStream(url: string, token: string, query?: string): Promise<OpenedStream> {
  const stream = await openSharedStream(url, token, { query });
  expect(stream.status).toBe(200);
  expect(stream.contentType).toContain('text/event-stream');
  return stream;
}

describe('events', () => {
  let db: TestDatabase;
  let daemon: DaemonProcess;
  let replica: DaemonProcess;
  let env: Record<string, string>;
  let items: CreatedItem[];

  beforeAll(async () => {
    db = await createTestDatabase('server', 'events');
    daemon = await startDaemonProcess({ env: { SVC_DATABASE_URL: db.url } });
    env = svcEnv(daemon);
    await withClient(db.url, async (client) => {
      await createProject(client, { id: 'ev', prefix: 'EV' });
      items = await insertItems(client, 'ev', [{ status: 'planned' }, { status: 'idea' }]);
    });
  });

  afterAll(async () => {
    await replica?.stop();
    await daemon?.stop();
    await db?.drop();
  });

  describe('svc events query', () => {
    it('should list events by name, newest first, within the limit', async () => {
      for (let i = 0; i < 3; i++) {
        expect((await runSvc(['charge-frontier', '--project', 'ev', '--json'], { env })).code).toBe(0);
      }
      const result = await runSvc(['events', 'query', '--event-name', 'FrontierComputed', '--limit', '2', '--json'], {
        env,
      });
      expect(result.code).toBe(0);
      const events = parseJson<{ events: { id: string; name: string; project: string }[] }>(result).events;
      expect(events).toHaveLength(2);
      expect(events.every((e) => e.name === 'FrontierComputed' && e.project === 'ev')).toBe(true);
      expect(Number(events[0].id)).toBeGreaterThan(Number(events[1].id));
    });

    it('should filter by --since', async () => {
      const future = await runSvc(['events', 'query', '--since', '2999-01-01T00:00:00Z', '--json'], { env });
      expect(parseJson<{ events: unknown[] }>(future).events).toEqual([]);
      const recent = await runSvc(['events', 'query', '--since', '1h', '--json'], { env });
      expect(parseJson<{ events: unknown[] }>(recent).events.length).toBeGreaterThan(0);
    });

    it('should refuse a limit above 1000 and a malformed since', async () => {
      const res = await fetch(`${daemon.url}/v1/events?limit=5000`, {
        headers: { authorization: `Bearer ${daemon.token}` },
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { code: string }).code).toBe('validation_failed');
      const bad = await runSvc(['events', 'query', '--since', 'yesterday'], { env });
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain('validation_failed');
    });
  });

  describe('GET /v1/events/stream', () => {
    it('should refuse without a token', async () => {
      const res = await fetch(`${daemon.url}/v1/events/stream`);
      expect(res.status).toBe(401);
    });

    it('should deliver recorded events and item changes, from this and another replica', async () => {
      replica ??= await startDaemonProcess({ env: { SVC_DATABASE_URL: db.url } });
      // the notices a stream asks for: by name, or those of its project filter
      const here = await openStream(daemon.url, daemon.token!, 'frontier=ev');
      const there = await openStream(replica.url, daemon.token!, 'project=ev');
      try {
        // an event recorded through the first replica
        expect((await runSvc(['charge-frontier', '--project', 'ev'], { env })).code).toBe(0);
        for (const stream of [here, there]) {
          const message = await stream.waitFor((m) => m.event === 'event' && m.data.name === 'FrontierComputed');
          expect(message.data).toMatchObject({ project: 'ev' });
          expect(message.id).toMatch(/^\d+$/);
        }
        // an item change straight in the database reaches both listeners
        await withClient(db.url, (c) =>
          c.query(`UPDATE items SET status = 'refining-idea' WHERE id = $1`, [items[1].id]),
        );
        for (const stream of [here, there]) {
          const message = await stream.waitFor((m) => m.event === 'item' && m.data.item_id === 'EV-2');
          expect(message.data).toMatchObject({ op: 'UPDATE', project: 'ev', status: 'refining-idea' });
        }
        // an event recorded through the second replica reaches the first
        const viaReplica = await runSvc(['charge-frontier', '--project', 'ev', '--wip-cap', '4', '--json'], {
          env: { ...env, SVC_URL: replica.url },
        });
        expect(viaReplica.code).toBe(0);
        await here.waitFor(
          (m) =>
            m.event === 'event' &&
            m.data.name === 'FrontierComputed' &&
            here.messages.filter((x) => x.event === 'event').length >= 2,
        );
      } finally {
        await here.close();
        await there.close();
      }
    });
  });

  describe('frontier notices', () => {
    // the default answer (no wip_cap), as a client reads it: its ETag header
    const readEtag = async (url: string): Promise<string> => {
      const res = await fetch(`${url}/v1/charge/frontier?project=ev`, {
        headers: { authorization: `Bearer ${daemon.token}` },
      });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      return res.headers.get('etag')!;
    };

    it("should announce the frontier's new ETag after a change, the one a following read serves, on every replica", async () => {
      replica ??= await startDaemonProcess({ env: { SVC_DATABASE_URL: db.url } });
      // the notices a stream asks for: by name, or those of its project filter
      const here = await openStream(daemon.url, daemon.token!, 'frontier=ev');
      const there = await openStream(replica.url, daemon.token!, 'project=ev');
      try {
        const before = await readEtag(daemon.url);
        // a change straight in the database: each replica hears it and announces the answer it computes
        await withClient(db.url, (c) => c.query(`UPDATE items SET title = 'announced' WHERE id = $1`, [items[0].id]));
        const notices = await Promise.all(
          [here, there].map((stream) =>
            stream.waitFor((m) => m.event === 'frontier' && m.data.project === 'ev' && m.data.etag !== before),
          ),
        );
        const after = await readEtag(daemon.url);
        expect(after).not.toBe(before);
        for (const notice of notices) {
          expect(notice.data).toEqual({ project: 'ev', etag: after });
          expect(notice.id).toBeNull();
        }
        expect(await readEtag(replica.url)).toBe(after);
      } finally {
        await here.close();
        await there.close();
      }
    });

    it('should send the frontier notices of the projects a stream names only, none to a stream naming none', async () => {
      const eq = await withClient(db.url, async (client) => {
        await createProject(client, { id: 'eq', prefix: 'EQ' });
        return insertItems(client, 'eq', [{ status: 'planned' }]);
      });
      // an administrator sees every project: the filterless stream still follows none
      const none = await openStream(daemon.url, daemon.token!);
      const ev = await openStream(daemon.url, daemon.token!, 'frontier=ev');
      const both = await openStream(daemon.url, daemon.token!, 'frontier=ev,eq');
      const frontierOf = (s: OpenedStream, project: string) =>
        s.waitFor((m) => m.event === 'frontier' && m.data.project === project);
      try {
        await withClient(db.url, (c) => c.query(`UPDATE items SET title = 'only ev' WHERE id = $1`, [items[0].id]));
        await Promise.all([frontierOf(ev, 'ev'), frontierOf(both, 'ev')]);
        await withClient(db.url, (c) => c.query(`UPDATE items SET title = 'only eq' WHERE id = $1`, [eq[0].id]));
        await frontierOf(both, 'eq');
        // one more change, after those notices were made: whatever a stream was sent of them came before it
        await withClient(db.url, (c) => c.query(`UPDATE items SET title = 'last' WHERE id = $1`, [items[1].id]));
        for (const s of [none, ev, both]) await s.waitFor((m) => m.event === 'item' && m.data.item_id === items[1].ref);
        // the filterless stream has every item notice, and no frontier notice
        expect(none.messages.filter((m) => m.event === 'item').map((m) => m.data.item_id)).toEqual(
          expect.arrayContaining([items[0].ref, eq[0].ref, items[1].ref]),
        );
        expect(none.messages.filter((m) => m.event === 'frontier')).toEqual([]);
        expect(ev.messages.filter((m) => m.event === 'frontier' && m.data.project !== 'ev')).toEqual([]);
        expect(ev.messages.some((m) => m.event === 'item' && m.data.project === 'eq')).toBe(true);
      } finally {
        await Promise.all([none, ev, both].map((s) => s.close()));
      }
    });

    it('should take up to eight project ids in frontier, and refuse anything else with 400 naming frontier', async () => {
      const eight = await openStream(daemon.url, daemon.token!, 'frontier=ev,a,b,c,d,e,f,g');
      await eight.close();
      for (const query of ['a,,b', 'Ev', 'ev,a,b,c,d,e,f,g,h', 'ev&frontier=eq'].map((f) =>
        f.includes('&') ? f : encodeURIComponent(f),
      )) {
        const res = await fetch(`${daemon.url}/v1/events/stream?frontier=${query}`, {
          headers: { authorization: `Bearer ${daemon.token}` },
        });
        expect(res.status).toBe(400);
        const body = (await res.json()) as { code: string; fields: { field: string }[] };
        expect(body).toMatchObject({ code: 'validation_failed' });
        expect(body.fields.map((f) => f.field)).toEqual(['frontier']);
      }
    });
  });

  describe('retention', () => {
    it('should delete events older than the retention window and keep recent ones', async () => {
      await withClient(db.url, (c) =>
        c.query(`INSERT INTO events (name, kind, payload, created_at)
                 VALUES ('Old', 'telemetry', '{}', now() - interval '40 days'),
                        ('Young', 'telemetry', '{}', now() - interval '2 days')`),
      );
      const dataSource = new DataSource(dataSourceOptions(db.url, 2));
      await dataSource.initialize();
      try {
        const deleted = await new EventsRepository(dataSource).deleteOlderThan(30);
        expect(deleted).toBe(1);
      } finally {
        await dataSource.destroy();
      }
      const left = await withClient(db.url, (c) => c.query(`SELECT name FROM events WHERE name IN ('Old', 'Young')`));
      expect(left.rows).toEqual([{ name: 'Young' }]);
    });
  });
});
