import { createHash, randomBytes } from 'node:crypto';
import { connect } from 'node:net';

import { DataSource } from 'typeorm';

import {
  createProject,
  createTestDatabase,
  DaemonProcess,
  insertItems,
  startDaemonProcess,
  TestDatabase,
  withClient,
  waitFor,
} from '@app/testing';
import { createActor, freshClientIp, http, sql, startMachineAuthorization, TestActor } from '@app/testing/machine-auth';

import { dataSourceOptions } from '../apps/daemon/src/database/data-source';
import { RevocationReachesEverything1764310000001 } from '../apps/daemon/src/database/migrations/1764310000001-RevocationReachesEverything';
import { OuroborosOrganizations1764436000000 } from '../apps/daemon/src/database/migrations/1764436000000-OuroborosOrganizations';
import { OpenedStream, openStream } from './daemon-sse';

// Issue 24, deliverable 2: revocation is immediate everywhere, acting in an organization needs an active
// membership, nothing is created without an organization, a machine credential acts only in its organization;
// and (deliverable 6) a cap on concurrent event streams.

async function machineCredential(url: string, actorId: number, org: string, machineId: string): Promise<string> {
  const token = `svcm_${randomBytes(32).toString('base64url')}`;
  const hash = createHash('sha256').update(token, 'utf8').digest();
  await sql(
    url,
    `INSERT INTO machine_credentials (machine_id, machine_name, actor_id, organization_id, token_hash, token_prefix)
     SELECT $1, $1, $2, id, $3, 'svcm_x' FROM organizations WHERE slug = $4`,
    [machineId, actorId, hash, org],
  );
  return token;
}

async function until(predicate: () => boolean, timeoutMs = 20_000): Promise<void> {
  await waitFor(predicate, { timeout: timeoutMs, interval: 25 });
}

describe('trust boundaries: revocation and membership (self-host)', () => {
  let db: TestDatabase;
  let daemon: DaemonProcess;
  let base: string;
  const admin = () => daemon.token!;

  beforeAll(async () => {
    db = await createTestDatabase('server', 'trust_revocation');
    daemon = await startDaemonProcess({ env: { SVC_DATABASE_URL: db.url, SVC_API_TRUSTED_PROXIES: '127.0.0.1' } });
    base = daemon.url;
    await withClient(db.url, (client) => createProject(client, { id: 'rv', prefix: 'RV' }));
  });

  afterAll(async () => {
    await daemon?.stop();
    await db?.drop();
  });

  // Any item change in `rv` reaches every stream (a database trigger announces it).
  const touch = () => withClient(db.url, (client) => insertItems(client, 'rv', [{ status: 'idea' }]));

  async function member(name: string): Promise<TestActor> {
    return createActor(db.url, { name, org: 'default', role: 'member' });
  }

  async function opened(token: string, query?: string): Promise<OpenedStream> {
    const stream = await openStream(base, token, { query });
    expect(stream.status).toBe(200);
    // the stream is live: an item change is delivered, then the frontier's new ETag if it asked for rv's
    await touch();
    await stream.waitFor((m) => m.event === 'item');
    if (query?.includes('rv')) await stream.waitFor((m) => m.event === 'frontier' && m.data.project === 'rv');
    return stream;
  }

  // After `revoke`, the next item change must close the stream with `closed` {code} and deliver nothing else.
  async function expectClosedBy(stream: OpenedStream, revoke: () => Promise<unknown>, code: string) {
    const before = stream.messages.length;
    await revoke();
    await touch();
    const closed = await stream.waitFor((m) => m.event === 'closed');
    expect(closed.data).toMatchObject({ code });
    expect(typeof closed.data.message).toBe('string');
    await until(() => stream.ended);
    expect(stream.messages.slice(before).map((m) => m.event)).toEqual(['closed']);
  }

  describe('open event streams', () => {
    it('should close a stream when its API token is revoked, delivering no notice after it', async () => {
      const rita = await member('rita');
      const stream = await opened(rita.token);
      const [token] = await sql<{ id: number }>(db.url, 'SELECT id FROM api_tokens WHERE actor_id = $1', [rita.id]);
      await expectClosedBy(
        stream,
        async () =>
          expect((await http(base, 'POST', `/v1/tokens/${token.id}/revoke`, { token: admin() })).status).toBe(200),
        'token_revoked',
      );
    });

    it('should close a stream when its API token expires', async () => {
      const ed = await member('ed');
      const stream = await opened(ed.token);
      await expectClosedBy(
        stream,
        () =>
          sql(db.url, `UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE actor_id = $1`, [ed.id]),
        'token_expired',
      );
    });

    it('should close a stream when its actor is disabled', async () => {
      const dora = await member('dora');
      const stream = await opened(dora.token);
      await expectClosedBy(
        stream,
        async () => expect((await http(base, 'POST', '/v1/actors/dora/disable', { token: admin() })).status).toBe(200),
        'actor_disabled',
      );
    });

    it('should close a stream when its membership is removed', async () => {
      const max = await member('max');
      const stream = await opened(max.token);
      await expectClosedBy(
        stream,
        async () =>
          expect(
            (await http(base, 'POST', '/v1/members/remove', { body: { actor: 'max' }, token: admin() })).status,
          ).toBe(200),
        'membership_removed',
      );
    });

    it("should close a machine's stream when its credential is revoked", async () => {
      const mia = await member('mia');
      const credential = await machineCredential(db.url, mia.id, 'default', 'mia-box');
      const stream = await opened(credential);
      await expectClosedBy(
        stream,
        () => sql(db.url, `UPDATE machine_credentials SET revoked_at = now() WHERE machine_id = 'mia-box'`),
        'machine_credential_revoked',
      );
    });

    describe('membership of one of two organizations removed', () => {
      let vera: TestActor;
      let olaf: TestActor;
      const touchOther = () => withClient(db.url, (client) => insertItems(client, 'ot', [{ status: 'idea' }]));

      beforeAll(async () => {
        vera = await member('vera');
        olaf = await createActor(db.url, { name: 'olaf', org: 'second', role: 'admin' });
        await sql(
          db.url,
          `INSERT INTO memberships (organization_id, actor_id) SELECT id, $1 FROM organizations WHERE slug = 'second'`,
          [vera.id],
        );
        await sql(
          db.url,
          `INSERT INTO projects (id, name, public_item_prefix, organization_id)
           SELECT 'ot', 'ot', 'OT', id FROM organizations WHERE slug = 'second'`,
        );
      });

      it("should stop that organization's items and frontier notices at once and keep the stream for the others", async () => {
        const stream = await opened(vera.token, 'frontier=rv,ot');
        // olaf sees `second` only: his stream has `ot`'s frontier announced, never anything of `rv` (which it names)
        const other = await openStream(base, olaf.token, { query: 'frontier=ot,rv' });
        expect(other.status).toBe(200);
        const frontierOf = (s: OpenedStream, project: string, from = 0) =>
          s.waitFor((m) => s.messages.indexOf(m) >= from && m.event === 'frontier' && m.data.project === project);
        await touchOther();
        await stream.waitFor((m) => m.event === 'item' && m.data.project === 'ot');
        await frontierOf(stream, 'ot');
        await frontierOf(other, 'ot');
        await sql(
          db.url,
          `DELETE FROM memberships WHERE actor_id = $1
              AND organization_id = (SELECT id FROM organizations WHERE slug = 'second')`,
          [vera.id],
        );
        const before = stream.messages.length;
        const otherBefore = other.messages.length;
        await touchOther();
        // `ot`'s new ETag is announced (olaf's stream receives it) but not to vera any more
        await frontierOf(other, 'ot', otherBefore);
        await touch();
        await stream.waitFor((m, i = stream.messages.indexOf(m)) => i >= before && m.data.project === 'rv');
        await frontierOf(stream, 'rv', before);
        expect(stream.messages.slice(before).filter((m) => m.data.project !== 'rv')).toEqual([]);
        expect(stream.ended).toBe(false);
        // one more change of `ot`, so every notice about `rv` has been through olaf's stream before it is read
        const last = other.messages.length;
        await touchOther();
        await frontierOf(other, 'ot', last);
        expect(other.messages.filter((m) => m.data.project === 'rv')).toEqual([]);
        await stream.close();
        await other.close();
      });

      it('should close a stream that follows a project no longer visible', async () => {
        await sql(
          db.url,
          `INSERT INTO memberships (organization_id, actor_id) SELECT id, $1 FROM organizations WHERE slug = 'second'`,
          [vera.id],
        );
        const stream = await openStream(base, vera.token, { query: 'project=ot' });
        expect(stream.status).toBe(200);
        await touchOther();
        await stream.waitFor((m) => m.event === 'item' && m.data.project === 'ot');
        await sql(
          db.url,
          `DELETE FROM memberships WHERE actor_id = $1
              AND organization_id = (SELECT id FROM organizations WHERE slug = 'second')`,
          [vera.id],
        );
        await touchOther();
        const closed = await stream.waitFor((m) => m.event === 'closed');
        expect(closed.data).toMatchObject({ code: 'project_not_visible' });
        await until(() => stream.ended);
        expect(stream.messages.filter((m) => m.event === 'item')).toHaveLength(1);
      });
    });

    it('should refuse the 17th concurrent stream of one actor with 429 and Retry-After', async () => {
      const sam = await member('sam');
      const streams: OpenedStream[] = [];
      try {
        for (let i = 0; i < 16; i += 1) {
          const s = await openStream(base, sam.token, { headers: { 'x-forwarded-for': freshClientIp() } });
          streams.push(s);
          expect(s.status).toBe(200);
        }
        const res = await http(base, 'GET', '/v1/events/stream', {
          token: sam.token,
          clientIp: freshClientIp(),
        });
        expect(res.status).toBe(429);
        expect(res.body).toMatchObject({ code: 'event_stream_limit_reached' });
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        // a slot frees when a stream ends
        await streams.pop()!.close();
        const again: OpenedStream = await waitFor(
          async () => {
            const s = await openStream(base, sam.token, { headers: { 'x-forwarded-for': freshClientIp() } });
            if (s.status === 200) return s;
            await s.close();
            return null;
          },
          { timeout: 10_000, interval: 50, what: 'a freed stream slot' },
        );
        streams.push(again);
      } finally {
        await Promise.all(streams.map((s) => s.close()));
      }
    });
  });

  it('should give back the slots of clients that hung up while their streams were being set up', async () => {
    const tess = await member('tess-hangs-up');
    // as many clients as the actor's cap send the request and hang up at once: the daemon is still checking each
    const { hostname, port } = new URL(base);
    await Promise.all(
      Array.from(
        { length: 16 },
        () =>
          new Promise<void>((resolve) => {
            const socket = connect(Number(port), hostname, () => {
              const request = [
                'GET /v1/events/stream HTTP/1.1',
                `host: ${hostname}:${port}`,
                `authorization: Bearer ${tess.token}`,
                'accept: text/event-stream',
                `x-forwarded-for: ${freshClientIp()}`,
              ];
              socket.write(`${request.join('\r\n')}\r\n\r\n`, () => socket.destroy());
            });
            // a reset is as good as a hang-up: 'close' follows any error
            socket.on('error', () => undefined);
            socket.once('close', () => resolve());
          }),
      ),
    );
    // each slot comes back: the whole cap opens again
    const streams: OpenedStream[] = [];
    try {
      await waitFor(
        async () => {
          const s = await openStream(base, tess.token, { headers: { 'x-forwarded-for': freshClientIp() } });
          if (s.status === 200) streams.push(s);
          else await s.close();
          return streams.length === 16 ? true : null;
        },
        { timeout: 10_000, interval: 50, what: 'the cap of streams open again after the hung-up clients' },
      );
    } finally {
      await Promise.all(streams.map((s) => s.close()));
    }
  });

  it('should refuse the 33rd concurrent stream of one client address whoever opens it, and serve other addresses', async () => {
    const ip = freshClientIp();
    const [ada, bo, cy] = [await member('ada-streams'), await member('bo-streams'), await member('cy-streams')];
    const streams: OpenedStream[] = [];
    try {
      // two actors fill the address's 32 streams (16 each, their own cap)
      for (const who of [ada, bo]) {
        const opened = await Promise.all(
          Array.from({ length: 16 }, () => openStream(base, who.token, { headers: { 'x-forwarded-for': ip } })),
        );
        streams.push(...opened);
        expect(opened.map((s) => s.status)).toEqual(Array<number>(16).fill(200));
      }
      // (a stream first: a served one would not end, so its status is read before any body)
      const stream = await openStream(base, cy.token, { headers: { 'x-forwarded-for': ip } });
      streams.push(stream);
      expect(stream.status).toBe(429);
      const refused = await http<{ code: string; message: string; limit: number }>(base, 'GET', '/v1/events/stream', {
        token: cy.token,
        clientIp: ip,
      });
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ code: 'event_stream_limit_reached', limit: 32 });
      expect(refused.body.message).toContain('client address');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      // the same actor from another address is served
      const elsewhere = await openStream(base, cy.token, { headers: { 'x-forwarded-for': freshClientIp() } });
      streams.push(elsewhere);
      expect(elsewhere.status).toBe(200);
    } finally {
      await Promise.all(streams.map((s) => s.close()));
    }
  });

  describe('approval page', () => {
    const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
    const formHeaders = (extra: Record<string, string> = {}) => ({
      'content-type': 'application/x-www-form-urlencoded',
      origin: base,
      ...extra,
    });

    it('should end a session signed in with a token once the token is revoked: the code cannot be approved', async () => {
      const paula = await member('paula');
      const started = (await startMachineAuthorization(base, { id: 'm-paula', name: 'box' }, freshClientIp())).body;
      const signIn = await http(base, 'POST', '/machine-approval/session', {
        raw: form({ token: paula.token, code: started.user_code }),
        headers: formHeaders(),
      });
      expect(signIn.status).toBe(303);
      const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0];
      const page = await http(base, 'GET', `/machine-approval/${started.user_code}`, { headers: { cookie } });
      expect(page.status).toBe(200);
      const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)![1];

      const [token] = await sql<{ id: number }>(db.url, 'SELECT id FROM api_tokens WHERE actor_id = $1', [paula.id]);
      expect((await http(base, 'POST', `/v1/tokens/${token.id}/revoke`, { token: admin() })).status).toBe(200);

      const decided = await http(base, 'POST', `/machine-approval/${started.user_code}/decision`, {
        raw: form({ action: 'approve', csrf }),
        headers: formHeaders({ cookie }),
      });
      expect(decided.status).toBe(401);
      const [row] = await sql<{ status: string }>(
        db.url,
        `SELECT status FROM machine_authorizations WHERE machine_id = 'm-paula'`,
      );
      expect(row.status).toBe('pending');
      // the page no longer knows the session
      const after = await http(base, 'GET', `/machine-approval/${started.user_code}`, { headers: { cookie } });
      expect(after.text).toContain('API token');
      expect(after.text).not.toContain('name="csrf"');
    });

    it('should end a session once its actor is removed from the organization', async () => {
      const rex = await member('rex');
      const started = (await startMachineAuthorization(base, { id: 'm-rex', name: 'box' }, freshClientIp())).body;
      const signIn = await http(base, 'POST', '/machine-approval/session', {
        raw: form({ token: rex.token, code: started.user_code }),
        headers: formHeaders(),
      });
      const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0];
      const page = await http(base, 'GET', `/machine-approval/${started.user_code}`, { headers: { cookie } });
      const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)![1];
      // the token stays valid: only the membership goes
      await sql(db.url, `DELETE FROM memberships WHERE actor_id = $1`, [rex.id]);
      const decided = await http(base, 'POST', `/machine-approval/${started.user_code}/decision`, {
        raw: form({ action: 'approve', csrf }),
        headers: formHeaders({ cookie }),
      });
      expect(decided.status).toBe(401);
      const [row] = await sql<{ status: string }>(
        db.url,
        `SELECT status FROM machine_authorizations WHERE machine_id = 'm-rex'`,
      );
      expect(row.status).toBe('pending');
    });
  });

  describe('membership is required to act', () => {
    const newProject = (id: string, prefix: string) => ({ id, name: id, public_item_prefix: prefix });

    it("should refuse a removed member's machine credential: no project created, none listed", async () => {
      const mo = await member('mo');
      const credential = await machineCredential(db.url, mo.id, 'default', 'mo-box');
      const before = await http<{ projects: { id: string }[] }>(base, 'GET', '/v1/projects', { token: credential });
      expect(before.body.projects.map((p) => p.id)).toContain('rv');
      expect((await http(base, 'POST', '/v1/members/remove', { body: { actor: 'mo' }, token: admin() })).status).toBe(
        200,
      );

      const created = await http(base, 'POST', '/v1/projects', {
        body: newProject('mo-new', 'MONEW'),
        token: credential,
      });
      expect(created.status).toBe(403);
      expect(created.body).toMatchObject({ code: 'organization_membership_required' });
      const listed = await http<{ projects: { id: string }[] }>(base, 'GET', '/v1/projects', { token: credential });
      expect(listed.status).toBe(200);
      expect(listed.body.projects).toEqual([]);
      expect((await http(base, 'GET', '/v1/projects/rv', { token: credential })).status).toBe(404);
      expect(await sql(db.url, `SELECT 1 FROM projects WHERE id = 'mo-new'`)).toEqual([]);
    });

    it('should refuse project creation and import to a token with no membership', async () => {
      const nomad = await createActor(db.url, { name: 'nomad', membership: null });
      const created = await http(base, 'POST', '/v1/projects', {
        body: newProject('nomad-p', 'NOMAD'),
        token: nomad.token,
      });
      expect(created.status).toBe(403);
      expect(created.body).toMatchObject({ code: 'organization_membership_required' });
      expect(await sql(db.url, `SELECT 1 FROM projects WHERE id = 'nomad-p'`)).toEqual([]);

      await withClient(db.url, (client) => createProject(client, { id: 'empty', prefix: 'EMPTY' }));
      const exported = await http<{ project: Record<string, unknown> }>(base, 'GET', '/v1/export?project=empty', {
        token: admin(),
      });
      expect(exported.status).toBe(200);
      const doc = {
        ...exported.body,
        project: { ...exported.body.project, id: 'nomad-i', public_item_prefix: 'NOMADI' },
      };
      const imported = await http(base, 'POST', '/v1/import', { body: doc, token: nomad.token });
      expect(imported.status).toBe(403);
      expect(imported.body).toMatchObject({ code: 'organization_membership_required' });
      expect(await sql(db.url, `SELECT 1 FROM projects WHERE id = 'nomad-i'`)).toEqual([]);
    });

    it("should create a member's project in the member's organization", async () => {
      const olga = await member('olga');
      const created = await http(base, 'POST', '/v1/projects', {
        body: newProject('olga-p', 'OLGA'),
        token: olga.token,
      });
      expect(created.status).toBe(201);
      const [row] = await sql<{ slug: string }>(
        db.url,
        `SELECT o.slug FROM projects p JOIN organizations o ON o.id = p.organization_id WHERE p.id = 'olga-p'`,
      );
      expect(row.slug).toBe('default');
    });

    it('should show a project with no organization to nobody but server admins', async () => {
      await sql(db.url, `INSERT INTO projects (id, name, public_item_prefix) VALUES ('orphan', 'orphan', 'ORPH')`);
      const otis = await createActor(db.url, { name: 'otis', org: 'other', role: 'admin' });
      const local = await member('lena');
      for (const token of [otis.token, local.token]) {
        const listed = await http<{ projects: { id: string }[] }>(base, 'GET', '/v1/projects', { token });
        expect(listed.body.projects.map((p) => p.id)).not.toContain('orphan');
        expect((await http(base, 'GET', '/v1/projects/orphan', { token })).status).toBe(404);
      }
      const byAdmin = await http<{ projects: { id: string }[] }>(base, 'GET', '/v1/projects', { token: admin() });
      expect(byAdmin.body.projects.map((p) => p.id)).toContain('orphan');
    });
  });
});

describe('trust boundaries: the migration gives every project an organization', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase('server', 'trust_migration');
  });

  afterAll(async () => {
    await db?.drop();
  });

  it("should assign projects with no organization to the server's organization", async () => {
    const dataSource = new DataSource({ ...dataSourceOptions(db.url), migrationsRun: false });
    await dataSource.initialize();
    try {
      await dataSource.runMigrations();
      const runner = dataSource.createQueryRunner();
      const migration = new RevocationReachesEverything1764310000001();
      await migration.down(runner);
      await runner.query(`INSERT INTO organizations (slug, name) VALUES ('other', 'other'), ('default', 'default')`);
      await runner.query(`INSERT INTO projects (id, name, public_item_prefix) VALUES ('old', 'old', 'OLD')`);
      await migration.up(runner);
      const [row] = (await runner.query(
        `SELECT o.slug FROM projects p JOIN organizations o ON o.id = p.organization_id WHERE p.id = 'old'`,
      )) as { slug: string }[];
      expect(row.slug).toBe('default');
      await runner.release();
    } finally {
      await dataSource.destroy();
    }
  });

  // Entries of the server-wide days record nothing tying them to an organization: they go to the server's.
  it("should assign existing ouroboros entries to the server's organization", async () => {
    const dataSource = new DataSource({ ...dataSourceOptions(db.url), migrationsRun: false });
    await dataSource.initialize();
    try {
      await dataSource.runMigrations();
      const runner = dataSource.createQueryRunner();
      const migration = new OuroborosOrganizations1764436000000();
      await migration.down(runner);
      await runner.query(`INSERT INTO organizations (slug, name) VALUES ('other', 'other'), ('default', 'default')
                          ON CONFLICT (slug) DO NOTHING`);
      await runner.query(`INSERT INTO ouroboros_entries ("timestamp", agent, context, category, body, created_at)
                          VALUES (now(), 'a', 'BET-1', 'note', 'old', now())`);
      await migration.up(runner);
      const rows = (await runner.query(
        `SELECT o.slug FROM ouroboros_entries e JOIN organizations o ON o.id = e.organization_id`,
      )) as { slug: string }[];
      expect(rows).toEqual([{ slug: 'default' }]);
      await runner.release();
    } finally {
      await dataSource.destroy();
    }
  });
});

describe('trust boundaries: hosted organization paths', () => {
  let db: TestDatabase;
  let daemon: DaemonProcess;
  let base: string;
  let ann: TestActor;
  let credential: string;

  beforeAll(async () => {
    db = await createTestDatabase('server', 'trust_hosted');
    daemon = await startDaemonProcess({
      env: {
        SVC_DATABASE_URL: db.url,
        SVC_SERVER_SECRET: 'e2e-trust-hosted-0123456789abcdef',
        SVC_MODE: 'hosted',
        SVC_API_TRUSTED_PROXIES: '127.0.0.1',
      },
    });
    base = daemon.url;
    // ann administers `default` and is also a member of `other`
    ann = await createActor(db.url, { name: 'ann', org: 'default', role: 'admin' });
    await createActor(db.url, { name: 'otto', org: 'other', role: 'admin' });
    await sql(
      db.url,
      `INSERT INTO memberships (organization_id, actor_id, role) SELECT id, $1, 'member' FROM organizations WHERE slug = 'other'`,
      [ann.id],
    );
    await sql(
      db.url,
      `INSERT INTO projects (id, name, public_item_prefix, organization_id)
       SELECT 'dp', 'dp', 'DP', id FROM organizations WHERE slug = 'default'
       UNION ALL SELECT 'op', 'op', 'OP', id FROM organizations WHERE slug = 'other'`,
    );
    credential = await machineCredential(db.url, ann.id, 'default', 'ann-box');
  });

  afterAll(async () => {
    await daemon?.stop();
    await db?.drop();
  });

  it("should keep a `default` machine credential out of `other`'s projects, read and write", async () => {
    for (const path of ['/api/orgs/default/v1/projects', '/v1/projects']) {
      const listed = await http<{ projects: { id: string }[] }>(base, 'GET', path, { token: credential });
      expect(listed.status).toBe(200);
      expect(listed.body.projects.map((p) => p.id)).toEqual(['dp']);
    }
    expect((await http(base, 'GET', '/api/orgs/default/v1/projects/op', { token: credential })).status).toBe(404);
    const write = await http(base, 'PATCH', '/api/orgs/default/v1/projects/op', {
      body: { name: 'taken' },
      token: credential,
    });
    expect(write.status).toBe(404);
    const [row] = await sql<{ name: string }>(db.url, `SELECT name FROM projects WHERE id = 'op'`);
    expect(row.name).toBe('op');
    // projects it creates belong to its organization
    const created = await http(base, 'POST', '/api/orgs/default/v1/projects', {
      body: { id: 'dp2', name: 'dp2', public_item_prefix: 'DPB' },
      token: credential,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ organization: 'default' });
  });

  it('should confine an API token used on /api/orgs/<slug> to that organization', async () => {
    const everywhere = await http<{ projects: { id: string }[] }>(base, 'GET', '/v1/projects', { token: ann.token });
    expect(everywhere.body.projects.map((p) => p.id)).toEqual(expect.arrayContaining(['dp', 'op']));
    const scoped = await http<{ projects: { id: string }[] }>(base, 'GET', '/api/orgs/default/v1/projects', {
      token: ann.token,
    });
    expect(scoped.body.projects.map((p) => p.id)).not.toContain('op');
    expect((await http(base, 'GET', '/api/orgs/default/v1/projects/op', { token: ann.token })).status).toBe(404);
    const created = await http(base, 'POST', '/api/orgs/other/v1/projects', {
      body: { id: 'op2', name: 'op2', public_item_prefix: 'OPB' },
      token: ann.token,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ organization: 'other' });
  });

  it("should stream /api/orgs/<slug>/v1/events/stream live, with that organization's items only", async () => {
    const stream = await openStream(`${base}/api/orgs/default`, ann.token);
    expect(stream.status).toBe(200);
    await withClient(db.url, (client) => insertItems(client, 'op', [{ title: 'theirs' }]));
    await withClient(db.url, (client) => insertItems(client, 'dp', [{ title: 'ours' }]));
    await stream.waitFor((m) => m.event === 'item' && m.data.project === 'dp');
    expect(stream.messages.filter((m) => m.event === 'item').map((m) => m.data.project)).toEqual(['dp']);
    await stream.close();
    const outsider = await openStream(`${base}/api/orgs/other`, credential);
    expect(outsider.status).toBe(403);
    await outsider.close();
  });

  it('should not let an outside caller forge the internal scope header', async () => {
    const forged = await http<{ projects: { id: string }[] }>(base, 'GET', '/v1/projects', {
      token: ann.token,
      headers: { 'x-svc-internal-org-scope': '1.forged' },
    });
    expect(forged.body.projects.map((p) => p.id)).toEqual(expect.arrayContaining(['dp', 'op']));
    // and through the forward, the caller's value is replaced by the path's organization
    const [other] = await sql<{ id: number }>(db.url, `SELECT id FROM organizations WHERE slug = 'other'`);
    const through = await http<{ projects: { id: string }[] }>(base, 'GET', '/api/orgs/default/v1/projects', {
      token: ann.token,
      headers: { 'x-svc-internal-org-scope': `${other.id}.forged` },
    });
    expect(through.body.projects.map((p) => p.id)).not.toContain('op');
  });
});
