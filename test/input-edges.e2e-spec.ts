import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

import { Client } from 'pg';

import {
  changedTables,
  createProject,
  createTestDatabase,
  DaemonProcess,
  databaseDigest,
  insertItems,
  startDaemonProcess,
  TestDatabase,
} from '@app/testing';

type Json = Record<string, unknown>;

// Input PostgreSQL cannot take (NUL, lone surrogates, integers past int4) and bodies nested deep enough to exhaust a
// recursive walker: every one is a 4xx naming the problem, never a 500, and no row changes.
describe('input at the edges', () => {
  let db: TestDatabase;
  let daemon: DaemonProcess;
  let pg: Client;
  let digest: string;

  async function send(method: string, path: string, body?: unknown, raw = false) {
    const res = await fetch(`${daemon.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${daemon.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : raw ? String(body) : JSON.stringify(body),
    });
    const text = await res.text();
    let json: Json = {};
    try {
      json = JSON.parse(text) as Json;
    } catch {
      json = { text };
    }
    return { status: res.status, body: json, text };
  }

  const fieldsOf = (body: Json) => ((body.fields ?? []) as { field: string }[]).map((f) => f.field);
  const nested = (depth: number, open = '{"a":', close = '}') => `${open.repeat(depth)}1${close.repeat(depth)}`;

  beforeAll(async () => {
    db = await createTestDatabase('server', 'input_edges');
    // a trusted proxy: the hostile-body tests send each request from its own forwarded address
    daemon = await startDaemonProcess({ env: { SVC_DATABASE_URL: db.url, SVC_API_TRUSTED_PROXIES: '127.0.0.1' } });
    pg = new Client({ connectionString: db.url });
    await pg.connect();
    await createProject(pg, { id: 'shop', prefix: 'SHOP' });
    await insertItems(pg, 'shop', [{ title: 'one' }, { title: 'two' }, { title: 'epic', workflow: 'epic' }]);
    digest = await databaseDigest(pg);
  });

  afterEach(async () => {
    const now = await databaseDigest(pg);
    expect(changedTables(digest, now)).toEqual([]);
  });

  afterAll(async () => {
    await pg?.end();
    await daemon?.stop();
    await db?.drop();
  });

  describe('text PostgreSQL cannot store', () => {
    it.each([
      ['an item title', 'POST', '/v1/items', { project: 'shop', title: 'a\u0000b' }, 'title'],
      ['a field value', 'PUT', '/v1/items/SHOP-1/fields/spec', { value: 'spec\u0000' }, 'value'],
      ['a block reason', 'POST', '/v1/items/SHOP-1/block', { reason: '\u0000' }, 'reason'],
      ['a section', 'PUT', '/v1/items/SHOP-1/sections/notes', { content: 'x\u0000y' }, 'content'],
      [
        'a dependency rationale',
        'POST',
        '/v1/items/SHOP-2/dependencies',
        { blocker: 'SHOP-1', rationale: '\u0000' },
        'rationale',
      ],
      ['a resolve comment', 'POST', '/v1/items/SHOP-1/resolve', { resolution: 'done', comment: 'ok\u0000' }, 'comment'],
      ['an epic task title', 'POST', '/v1/epics/SHOP-3/tasks', { title: '\u0000' }, 'title'],
      [
        'a nested value',
        'POST',
        '/v1/items',
        { project: 'shop', title: 't', workflow_posture: { k: ['ok', 'b\u0000'] } },
        'workflow_posture.k[1]',
      ],
      [
        'a key',
        'POST',
        '/v1/items',
        { project: 'shop', title: 't', workflow_posture: { 'k\u0000': 1 } },
        'workflow_posture.k\\u0000',
      ],
      ['a lone surrogate', 'POST', '/v1/items', { project: 'shop', title: 'a\ud800b' }, 'title'],
    ])(
      'should refuse unstorable text in %s with 400 validation_failed naming the field',
      async (_what, method, path, body, field) => {
        const res = await send(method, path, body);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('validation_failed');
        expect(fieldsOf(res.body)).toContain(field);
        expect(res.text).not.toContain('\\u0000b');
      },
    );

    it('should refuse NUL in a path parameter and in a query', async () => {
      const path = await send('GET', '/v1/items/SHOP-1%00');
      expect(path.status).toBe(400);
      expect(fieldsOf(path.body)).toEqual(['ref']);
      const query = await send('GET', '/v1/items?project=sh%00op');
      expect(query.status).toBe(400);
      expect(fieldsOf(query.body)).toEqual(['project']);
    });

    // The global guards run in app.module's order: who calls, then what it sends (ADR 0107).
    it('should refuse a caller without a credential before checking what it sent', async () => {
      const res = await fetch(`${daemon.url}/v1/items/SHOP-1/fields/spec`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ value: 'spec\u0000' }),
      });
      expect(res.status).toBe(401);
      expect(((await res.json()) as Json).code).toBe('unauthorized');
    });

    it('should answer the machine-authorization contract code on its routes', async () => {
      const res = await send('POST', '/api/machine/authorizations', { machine_id: 'm\u0000', machine_name: 'x' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 'invalid_request', message: expect.stringMatching(/machine_id/) });
    });

    it('should answer the approval page as a page', async () => {
      const res = await send('POST', '/machine-approval/session', { name: 'a\u0000' });
      expect(res.status).toBe(400);
      expect(res.text).toMatch(/validation_failed/);
    });
  });

  describe('integers past their column', () => {
    it.each([
      ['an epic task number', 'GET', '/v1/epics/SHOP-3/tasks/2147483648', 'num'],
      ['a session id', 'GET', '/v1/sessions/99999999999999999999', 'id'],
      ['a session heartbeat', 'POST', '/v1/sessions/-2147483649/heartbeat', 'id'],
      ['a workflow version', 'GET', '/v1/workflows/issue/versions/2147483648', 'version'],
      ['an ouroboros entry', 'POST', '/v1/records/ouroboros/99999999999/review', 'id'],
      ['a query session_id', 'GET', '/v1/charge/schedule?session_id=2147483648', 'session_id'],
    ])('should refuse %s with a 400 naming it', async (_what, method, path, field) => {
      const res = await send(method, path);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
      expect(fieldsOf(res.body)).toContain(field);
    });

    it('should refuse a body integer past the column with a 400, never a 500', async () => {
      const res = await send('POST', '/v1/charge/dispatch', { session_id: 99999999999 });
      expect(res.status).toBe(400);
      expect(res.body.code).toMatch(/^(validation_failed|invalid_request)$/);
    });

    it('should still find an in-range id missing (404)', async () => {
      const res = await send('GET', '/v1/sessions/2147483647');
      expect(res.status).toBe(404);
    });
  });

  describe('deeply nested bodies', () => {
    it.each([
      ['an object body on /v1', 'POST', '/v1/items', nested(5000)],
      ['an array body on /v1', 'POST', '/v1/items/SHOP-1/block', nested(100_000, '[', ']')],
      // under the 8 KiB these routes take
      ['a body on the approval page', 'POST', '/machine-approval/session', nested(1000)],
    ])('should refuse %s with 400 invalid_request before validation', async (_what, method, path, body) => {
      const res = await send(method, path, body, true);
      expect(res.status).toBe(400);
      if (path.startsWith('/machine-approval')) expect(res.text).toMatch(/invalid_request/);
      else expect(res.body.code).toBe('invalid_request');
    });

    it('should refuse a deep body on the machine-authorization routes with the contract code', async () => {
      const res = await send('POST', '/api/machine/authorizations/token', nested(1000), true);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_request');
    });

    it('should let a shallow but wrong body reach validation (validation_failed)', async () => {
      const res = await send('POST', '/v1/items', { project: 'shop', title: 't', colour: JSON.parse(nested(20)) });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
    });
  });

  describe('hostile bodies', () => {
    const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
    // The daemon process's own CPU time so far (user + system), from /proc/<pid>/stat.
    const cpuMs = () => {
      const stat = readFileSync(`/proc/${daemon.child.pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
    };
    const jsonOf = (keys: number) =>
      JSON.stringify(Object.fromEntries(Array.from({ length: keys }, (_, i) => [`k${i}`, 'vvvv'])));
    const formOf = (keys: number) =>
      new URLSearchParams(Array.from({ length: keys }, (_, i): [string, string] => [`k${i}`, 'vvvvvvv'])).toString();

    async function post(path: string, body: string, headers: Record<string, string>) {
      const res = await fetch(`${daemon.url}${path}`, { method: 'POST', headers, body });
      const text = await res.text();
      return { status: res.status, text };
    }

    // The least CPU the daemon spent on one request over a few tries: the least is the request's own cost, with the
    // daemon's background work (sweeps, the frontier warm-up) left out.
    let client = 0;
    async function cpuOf(path: string, body: string, headers: Record<string, string>) {
      let least = Infinity;
      let answer = { status: 0, text: '' };
      for (let i = 0; i < 3; i++) {
        const before = cpuMs();
        // each from its own forwarded address: the device-code routes' per-client budgets stay untouched
        answer = await post(path, body, { ...headers, 'x-forwarded-for': `10.${++client}.0.1` });
        least = Math.min(least, cpuMs() - before);
      }
      return { cpu: least, ...answer };
    }

    const bearer = () => ({ authorization: `Bearer ${daemon.token}` });
    const json = { 'content-type': 'application/json' };
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const origin = () => ({ origin: daemon.url });

    it.each([
      ['the approval page, no credential', '/machine-approval/session', () => ({ ...json, ...origin() }), jsonOf],
      ['the approval page, a form', '/machine-approval/session', () => ({ ...form, ...origin() }), formOf],
      ['the device-code start, no credential', '/api/machine/authorizations', () => json, jsonOf],
      ['a validated body on /v1', '/v1/items', () => ({ ...json, ...bearer() }), jsonOf],
      ['a form on /v1', '/v1/items', () => ({ ...form, ...bearer() }), formOf],
    ])(
      'should refuse 60,000 keys in a 1 MB body on %s for under 50 ms of CPU more than 10 keys cost',
      async (_what, path, headers, bodyOf) => {
        const hostile = bodyOf(60_000);
        expect(hostile.length).toBeGreaterThan(800_000);
        expect(hostile.length).toBeLessThan(1024 * 1024);
        const small = await cpuOf(path, bodyOf(10), headers());
        const big = await cpuOf(path, hostile, headers());
        expect(small.status).toBeGreaterThanOrEqual(400);
        expect(big.status).toBe(413);
        expect(big.text).toMatch(/payload_too_large/);
        expect(big.cpu).toBeLessThan(small.cpu + 50);
      },
    );

    it('should refuse a body over 8 KiB on the routes anyone may call, before reading it', async () => {
      for (const path of ['/machine-approval/session', '/api/machine/authorizations/token']) {
        const res = await post(path, JSON.stringify({ token: 'x'.repeat(9000) }), { ...json, ...origin() });
        expect(res.status).toBe(413);
        expect(res.text).toMatch(/payload_too_large/);
      }
    });

    it('should name the key limit and where it was passed', async () => {
      const posture = JSON.parse(jsonOf(1001)) as Json;
      const res = await send('POST', '/v1/items', { project: 'shop', title: 't', workflow_posture: posture });
      expect(res.status).toBe(413);
      expect(res.body).toEqual({
        code: 'payload_too_large',
        message: 'request body field workflow_posture has more than 1000 keys (the limit for one object)',
      });
    });

    it('should name the array limit', async () => {
      const res = await send('POST', '/v1/items/SHOP-1/block', `{"reason":"r","x":[${'0,'.repeat(100_000)}0]}`, true);
      expect(res.status).toBe(413);
      expect(res.body.message).toBe('request body field x has more than 100000 elements (the limit for one array)');
    });

    it('should refuse unknown keys under the limit naming 20 of them and counting the rest', async () => {
      const body = { project: 'shop', title: '', ...(JSON.parse(jsonOf(990)) as Json) };
      const res = await send('POST', '/v1/items', body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
      const fields = fieldsOf(res.body);
      expect(fields.slice(0, 20)).toEqual(Array.from({ length: 20 }, (_, i) => `k${i}`));
      expect(fields).toContain('…');
      expect(res.text).toMatch(/970 more unknown properties/);
      // the declared fields are still checked: the empty title is named too
      expect(fields).toContain('title');
    });
  });
});
