import { Client } from 'pg';

import {
  createProject,
  createTestDatabase,
  DaemonProcess,
  insertEdges,
  insertItems,
  startDaemonProcess,
  TestDatabase,
  withClient,
} from '@app/testing';
import { changedTables, DigestTracker, VOLATILE_TABLES } from '@app/testing/db-snapshot';
import { discoverRoutes } from '@app/testing/fuzz';
import { createActor, freshClientIp, http, HttpResult, sql } from '@app/testing/machine-auth';

import { AppModule } from '../apps/daemon/src/app.module';
import { parseConfig } from '../apps/daemon/src/config/config';
import {
  Access,
  expectedOutcome,
  Fixture,
  machineTokenFor,
  observedOutcome,
  Persona,
  PERSONAS,
  Request,
  tokenFor,
} from './support/authorization-matrix';
import { MATRIX } from './support/authorization-matrix.table';
import { WRITE_CENSUS } from './support/write-census.table';

jest.setTimeout(600000);

const SECRET = 'e2e-authorization-matrix-0123456789abcdef';
const routes = discoverRoutes(AppModule.forRoot(parseConfig({ SVC_HOME: '/nonexistent' }), 'postgres://unused'));
const ROUTE_NAMES = routes.map((r) => `${r.method} ${r.path}`);

// A refused call may still record an event (a denied charge decision, say): the matrix ignores the events table, so
// it is left out of the digests instead of hashed (it grows with every allowed write) and dropped after.
const UNDIGESTED = new Set([...VOLATILE_TABLES, 'events']);

let freshCounter = 0;
const freshName = (stem: string) => `${stem}-${process.pid % 1000}-${(freshCounter += 1)}`;

// Credentials and fixtures of one daemon: two organizations, a person of each kind, `default`'s project alpha and
// `other`'s project beta.
async function buildFixture(daemon: DaemonProcess, dbUrl: string, mode: 'self-host' | 'hosted'): Promise<Fixture> {
  const admin = daemon.token!;
  const as = (path: string, body: unknown) => http(daemon.url, 'POST', path, { token: admin, body });
  const olga = await createActor(dbUrl, { name: 'olga', org: 'default', role: 'admin' });
  const mia = await createActor(dbUrl, { name: 'mia', org: 'default' });
  const otto = await createActor(dbUrl, { name: 'otto', org: 'other', role: 'admin' });
  const rex = await createActor(dbUrl, { name: 'rex', org: 'default' });
  const dora = await createActor(dbUrl, { name: 'dora', org: 'default', status: 'disabled' });
  expect((await as('/v1/members/remove', { actor: 'rex', org: 'default' })).status).toBe(200);
  const [{ id: miaId }] = await sql<{ id: number }>(dbUrl, `SELECT id FROM actors WHERE name = 'mia'`);
  const expired = tokenFor();
  const revoked = tokenFor();
  await sql(
    dbUrl,
    `INSERT INTO api_tokens (actor_id, name, token_hash, token_prefix, expires_at, revoked_at)
     VALUES ($1, 'expired', $2, 'svc_x', now() - interval '1 minute', NULL),
            ($1, 'revoked', $3, 'svc_x', NULL, now())`,
    [miaId, expired.hash, revoked.hash],
  );
  const machineDefault = machineTokenFor();
  const machineOther = machineTokenFor();
  const machineAdmin = machineTokenFor();
  await sql(
    dbUrl,
    `INSERT INTO machine_credentials (machine_id, machine_name, actor_id, organization_id, token_hash, token_prefix)
     SELECT 'm-default', 'default box', $1, o.id, $2, 'svcm_x' FROM organizations o WHERE o.slug = 'default'`,
    [miaId, machineDefault.hash],
  );
  await sql(
    dbUrl,
    `INSERT INTO machine_credentials (machine_id, machine_name, actor_id, organization_id, token_hash, token_prefix)
     SELECT 'm-other', 'other box', a.id, o.id, $1, 'svcm_x' FROM organizations o, actors a
      WHERE o.slug = 'other' AND a.name = 'otto'`,
    [machineOther.hash],
  );
  await sql(
    dbUrl,
    `INSERT INTO machine_credentials (machine_id, machine_name, actor_id, organization_id, token_hash, token_prefix)
     SELECT 'm-admin', 'admin box', a.id, o.id, $1, 'svcm_x' FROM organizations o, actors a
      WHERE o.slug = 'default' AND a.name = 'admin'`,
    [machineAdmin.hash],
  );

  const metricsOnly = tokenFor();
  await sql(
    dbUrl,
    `INSERT INTO api_tokens (actor_id, name, token_hash, token_prefix, scope)
     SELECT id, 'metrics', $1, 'svc_x', 'metrics' FROM actors WHERE name = 'admin'`,
    [metricsOnly.hash],
  );
  const tokens: Record<Persona, string | null> = {
    server_admin: admin,
    org_admin: olga.token,
    member: mia.token,
    other_member: otto.token,
    removed: rex.token,
    disabled: dora.token,
    expired: expired.token,
    revoked: revoked.token,
    malformed: null,
    machine_default: machineDefault.token,
    machine_other: machineOther.token,
    machine_admin: machineAdmin.token,
    metrics: metricsOnly.token,
    none: null,
  };
  const actorNames: Record<Persona, string> = {
    server_admin: 'admin',
    org_admin: 'olga',
    member: 'mia',
    other_member: 'otto',
    removed: 'rex',
    disabled: 'dora',
    expired: 'mia',
    revoked: 'mia',
    malformed: 'mia',
    machine_default: 'mia',
    machine_other: 'otto',
    machine_admin: 'admin',
    metrics: 'admin',
    none: 'mia',
  };

  // `default`'s project alpha, made by the server admin; `other`'s project beta.
  expect((await as('/v1/projects', { id: 'alpha', name: 'Alpha', public_item_prefix: 'ALP' })).status).toBe(201);
  await sql(dbUrl, `UPDATE projects SET organization_id = (SELECT id FROM organizations WHERE slug = 'default')`);
  await withClient(dbUrl, async (client) => {
    await insertItems(client, 'alpha', [{ title: 'plain' }, { title: 'epic', workflow: 'epic' }, { title: 'third' }]);
    await createProject(client, { id: 'beta', prefix: 'BET' });
    await client.query(`UPDATE projects SET organization_id = (SELECT id FROM organizations WHERE slug = 'other')
                         WHERE id = 'beta'`);
    await insertItems(client, 'beta', [{ title: 'theirs' }]);
  });
  expect((await as('/v1/epics/ALP-2/tasks', { title: 'task one' })).status).toBe(201);
  expect((await as('/v1/deployments/environments', { project: 'alpha', name: 'scratch' })).status).toBe(201);
  const run = await as('/v1/deployments/runs', { project: 'alpha', environment: 'scratch', items: [] });
  expect(run.status).toBe(201);
  // `default`'s (the server admin's first membership)
  const entry = await as('/v1/records/ouroboros', { agent: 'a', category: 'seed', body: 'seed' });
  expect(entry.status).toBe(201);

  const session = async (persona: Persona): Promise<number> => {
    const token = tokens[persona];
    const made = token
      ? await http<{ session_id?: number; id?: number }>(daemon.url, 'POST', '/v1/sessions', {
          token,
          body: { harness: 'claude-code', model: 'opus-4' },
        })
      : null;
    const id = made && made.status === 201 ? (made.body.session_id ?? made.body.id) : undefined;
    return id ?? 999999;
  };
  const sessionIds = {} as Record<Persona, number>;
  for (const persona of PERSONAS) sessionIds[persona] = await session(persona);

  const actorIdOf = async (persona: Persona) =>
    (await sql<{ id: number }>(dbUrl, `SELECT id FROM actors WHERE name = $1`, [actorNames[persona]]))[0].id;
  return {
    url: daemon.url,
    dbUrl,
    tokens,
    actorNames,
    runId: String((run.body as { run_id?: string; id?: string }).run_id ?? (run.body as { id?: string }).id),
    ouroborosId: Number((entry.body as { id: number }).id),
    sessionIds,
    fresh: {
      actor: async (org: string) => {
        const name = freshName('fresh');
        await createActor(dbUrl, {
          name,
          org: org === 'none' ? 'default' : org,
          membership: org === 'none' ? null : 'active',
        });
        return name;
      },
      token: async (persona: Persona) => {
        const made = tokenFor();
        const [row] = await sql<{ id: number }>(
          dbUrl,
          `INSERT INTO api_tokens (actor_id, name, token_hash, token_prefix) VALUES ($1, 'fresh', $2, 'svc_x') RETURNING id`,
          [await actorIdOf(persona), made.hash],
        );
        return row.id;
      },
      machine: async (persona: Persona) => {
        const made = machineTokenFor();
        const machineId = freshName('m');
        const org = persona === 'other_member' || persona === 'machine_other' ? 'other' : 'default';
        await sql(
          dbUrl,
          `INSERT INTO machine_credentials (machine_id, machine_name, actor_id, organization_id, token_hash, token_prefix)
           SELECT $1, 'fresh', $2, o.id, $3, 'svcm_x' FROM organizations o WHERE o.slug = $4`,
          [machineId, await actorIdOf(persona), made.hash, org],
        );
        return machineId;
      },
      session,
      item: async () => {
        const [created] = await withClient(dbUrl, (client) => insertItems(client, 'alpha', [{ title: 'fresh' }]));
        return created.ref;
      },
      blocker: async (dependent: string) =>
        withClient(dbUrl, async (client) => {
          const [created] = await insertItems(client, 'alpha', [{ title: 'fresh blocker' }]);
          const [{ id }] = (
            await client.query<{ id: number }>(
              `SELECT i.id FROM items i JOIN projects p ON p.id = i.project
                WHERE p.public_item_prefix || '-' || i.project_sequence = $1`,
              [dependent],
            )
          ).rows;
          await insertEdges(client, [{ blocker: created.id, dependent: id }]);
          return created.ref;
        }),
      section: async (ref: string) => {
        const name = freshName('s');
        const put = await http(daemon.url, 'PUT', `/v1/items/${ref}/sections/${name}`, {
          token: admin,
          body: { content: 'fresh' },
        });
        expect(put.status).toBe(200);
        return name;
      },
      code: async () => {
        const prefix = mode === 'hosted' ? '/api/orgs/default' : '';
        const started = await http<{ device_code: string; user_code: string }>(
          daemon.url,
          'POST',
          `${prefix}/api/machine/authorizations`,
          {
            body: mode === 'hosted' ? {} : { machine_id: freshName('mx'), machine_name: 'fresh' },
            clientIp: freshClientIp(),
          },
        );
        expect(started.status).toBe(201);
        const [row] = await sql<{ request_id: string }>(
          dbUrl,
          `SELECT svc_machine_request_id(device_code_hash) AS request_id FROM machine_authorizations
            ORDER BY id DESC LIMIT 1`,
        );
        return { userCode: started.body.user_code, requestId: row.request_id };
      },
    },
  };
}

// One call as one persona. An event stream is opened, its status read, and closed.
async function callAs(fx: Fixture, persona: Persona, method: string, req: Request): Promise<HttpResult> {
  const headers: Record<string, string> = { 'x-forwarded-for': freshClientIp() };
  const token = fx.tokens[persona];
  if (token) headers.authorization = `Bearer ${token}`;
  if (persona === 'malformed') headers.authorization = 'Bearer svc_not-a-token';
  if (req.path.includes('/events/stream')) {
    // A stream that sends no headers within 10 s is a failure of its own (a proxy that buffers it, say).
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 10000);
    const res = await fetch(`${fx.url}${req.path}`, { method, headers, signal: controller.signal })
      .catch(() => null)
      .finally(() => clearTimeout(timer));
    if (!res) return { status: 0, headers: new Headers(), body: { code: 'no_headers_within_10s' }, text: '' };
    const body = res.status === 200 ? {} : await res.json().catch(() => ({}));
    controller.abort();
    return { status: res.status, headers: res.headers, body: body as Record<string, unknown>, text: '' };
  }
  return http(fx.url, method, req.path, { headers, body: req.body ?? (method === 'GET' ? undefined : {}) });
}

interface Mismatch {
  route: string;
  persona: Persona;
  expected: string;
  status: number;
  code?: string;
  changed?: string[];
}

async function runMatrix(
  fx: Fixture,
  mode: 'self-host' | 'hosted',
  prefix: '' | '/api/orgs/default',
): Promise<Mismatch[]> {
  const mismatches: Mismatch[] = [];
  const client = new Client({ connectionString: fx.dbUrl });
  await client.connect();
  const tracker = await DigestTracker.install(client, UNDIGESTED);
  const digest = () => tracker.digest();
  // The record half of the census (issue 36): the first write of each route the matrix lets through leaves change
  // records naming the caller, and no call anywhere leaves a record without a writer (path sql).
  const recordChecked = new Set<string>();
  // The rows the change records describe, as the records see them (bookkeeping columns left out: a write that only
  // touched updated_at changed nothing a record would show).
  const recordedDigest = async () =>
    (
      await client.query<{ digest: string }>(
        `SELECT string_agg(t.name || ':' || t.digest, ' ' ORDER BY t.name) AS digest FROM (
           SELECT c.relname AS name,
                  (xpath('/row/d/text()', query_to_xml(format(
                    'SELECT md5(coalesce(string_agg((svc_record_strip(to_jsonb(r)) - ''expires_at'')::text, ''|''
                                                    ORDER BY (svc_record_strip(to_jsonb(r)) - ''expires_at'')::text), ''''))
                       AS d FROM %I r', c.relname), false, true, '')))[1]::text AS digest
             FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid
            WHERE NOT g.tgisinternal AND g.tgname LIKE 'tr\\_%\\_record%'
            GROUP BY c.relname) t`,
      )
    ).rows[0].digest;
  const lastRecord = async () =>
    (await client.query<{ id: string }>('SELECT coalesce(max(id), 0)::text AS id FROM change_records')).rows[0].id;
  try {
    for (const name of ROUTE_NAMES) {
      const row = MATRIX[name];
      if (!row) continue;
      if (row.mode && row.mode !== mode) continue;
      const [method] = name.split(' ');
      const forwarded = prefix !== '' && name.includes(' /v1/');
      if (prefix !== '' && !forwarded) continue;
      // A path an organization route of its own answers (the hosted machine-code functions) has its own row.
      if (forwarded && MATRIX[`${method} /api/orgs/:slug${name.slice(method.length + 1)}`]) continue;
      // Through an organization's path, acting needs a membership of that organization.
      const base = mode === 'hosted' ? (row.hostedAccess ?? row.access) : row.access;
      const access: Access = forwarded && (base === 'self' || base === 'any_member') ? 'org' : base;
      let baseline: number | undefined;
      for (const persona of PERSONAS) {
        const req = await row.request(fx, persona);
        const path = forwarded ? `${prefix}${req.path}` : req.path;
        const expected = expectedOutcome(access, persona, forwarded, row.metricsScope === true);
        const checkUnchanged = method !== 'GET' && expected !== 'allowed' && expected !== 'same';
        const before = checkUnchanged ? await digest() : '';
        const mark = method === 'GET' ? '' : await lastRecord();
        const census = WRITE_CENSUS[name];
        const checkRecord = census?.record === 'change' && !recordChecked.has(name);
        const beforeRecord = checkRecord ? await recordedDigest() : '';
        const res = await callAs(fx, persona, method, { ...req, path });
        const code = (res.body as { code?: string } | undefined)?.code;
        const records =
          method === 'GET'
            ? []
            : (
                await client.query<{ path: string; actor_id: number | null }>(
                  'SELECT path, actor_id FROM change_records WHERE id > $1',
                  [mark],
                )
              ).rows;
        if (records.some((r) => r.path === 'sql')) {
          mismatches.push({ route: name, persona, expected: 'records naming their writer', status: res.status, code });
        }
        // a write that changed a row (a repeated one may change nothing) left records naming its caller
        if (checkRecord && res.status < 300) {
          recordChecked.add(name);
          const changed = changedTables(beforeRecord, await recordedDigest());
          if (changed.length > 0 && !records.some((r) => r.actor_id !== null || access === 'public')) {
            mismatches.push({
              route: name,
              persona,
              expected: 'a change record naming the caller',
              status: res.status,
              changed,
            });
          }
        }
        if (res.status >= 500 || res.status === 0) {
          mismatches.push({ route: name, persona, expected, status: res.status, code });
          continue;
        }
        if (expected === 'same') {
          baseline ??= res.status;
          if (res.status !== baseline)
            mismatches.push({ route: name, persona, expected: `same (${baseline})`, status: res.status, code });
          continue;
        }
        let observed = observedOutcome(res);
        if (observed === 'allowed' && expected === 'denied' && row.hiddenLike) {
          const missing = row.hiddenLike(fx);
          const like = await callAs(fx, persona, method, {
            ...missing,
            path: forwarded ? `${prefix}${missing.path}` : missing.path,
          });
          const strip = (r: HttpResult) =>
            JSON.stringify({ status: r.status, body: r.body }).replaceAll(
              /nowhere|nobody-by-this-name|[a-z]+-\d+-\d+/g,
              '?',
            );
          if (strip(like) === strip(res)) observed = 'denied';
        }
        if (observed !== expected) mismatches.push({ route: name, persona, expected, status: res.status, code });
        // Through `default`'s path, `other`'s project is out of reach for everyone, server admins included.
        if (forwarded && access === 'org' && expected === 'allowed') {
          const text = JSON.stringify(req);
          if (/alpha|ALP-/.test(text)) {
            const theirs = JSON.parse(text.replaceAll('alpha', 'beta').replaceAll('ALP-', 'BET-')) as Request;
            const before2 = method === 'GET' ? '' : await digest();
            const crossed = await callAs(fx, persona, method, { ...theirs, path: `${prefix}${theirs.path}` });
            const crossedCode = (crossed.body as { code?: string } | undefined)?.code;
            let denied = observedOutcome(crossed) === 'denied';
            if (!denied && row.hiddenLike) {
              const missing = row.hiddenLike(fx);
              const like = await callAs(fx, persona, method, { ...missing, path: `${prefix}${missing.path}` });
              denied = like.status === crossed.status && JSON.stringify(like.body) === JSON.stringify(crossed.body);
            }
            if (!denied) {
              mismatches.push({
                route: `${name} (beta)`,
                persona,
                expected: 'denied',
                status: crossed.status,
                code: crossedCode,
              });
            }
            if (method !== 'GET') {
              const changed = changedTables(before2, await digest());
              if (changed.length > 0) {
                mismatches.push({
                  route: `${name} (beta)`,
                  persona,
                  expected: 'nothing changed',
                  status: crossed.status,
                  changed,
                });
              }
            }
          }
        }
        if (checkUnchanged) {
          const changed = changedTables(before, await digest());
          if (changed.length > 0)
            mismatches.push({ route: name, persona, expected: 'nothing changed', status: res.status, changed });
        }
      }
    }
  } finally {
    await client.end();
  }
  return mismatches;
}

describe('the authorization matrix', () => {
  it('has one row for every route the Nest router registers, and no row for a route that is gone', () => {
    expect(ROUTE_NAMES.filter((name) => !MATRIX[name])).toEqual([]);
    expect(Object.keys(MATRIX).filter((name) => !ROUTE_NAMES.includes(name))).toEqual([]);
  });

  for (const mode of ['self-host', 'hosted'] as const) {
    describe(`in ${mode} mode`, () => {
      let db: TestDatabase;
      let daemon: DaemonProcess;
      let fx: Fixture;

      beforeAll(async () => {
        db = await createTestDatabase('server', `authz_${mode === 'hosted' ? 'hosted' : 'self'}`);
        daemon = await startDaemonProcess({
          env: {
            SVC_DATABASE_URL: db.url,
            SVC_SERVER_SECRET: SECRET,
            SVC_API_TRUSTED_PROXIES: '127.0.0.1,::1',
            ...(mode === 'hosted' ? { SVC_MODE: 'hosted' } : {}),
          },
        });
        fx = await buildFixture(daemon, db.url, mode);
      });

      afterAll(async () => {
        await daemon?.stop();
        await db?.drop();
      });

      it('answers every route as its row says, for every caller', async () => {
        expect(await runMatrix(fx, mode, '')).toEqual([]);
      });

      if (mode === 'hosted') {
        it("answers every /v1 route under /api/orgs/default only to `default`'s members and credentials", async () => {
          expect(await runMatrix(fx, mode, '/api/orgs/default')).toEqual([]);
        });
      } else {
        it('has no organization paths', async () => {
          const res = await callAs(fx, 'server_admin', 'GET', { path: '/api/orgs/default/v1/projects' });
          expect(res.status).toBe(404);
        });
      }
    });
  }
});
