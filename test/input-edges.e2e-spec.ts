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
    daemon = await startDaemonProcess({ env: { SVC_DATABASE_URL: db.url } });
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
      ['a body on the approval page', 'POST', '/machine-approval/session', nested(5000)],
    ])('should refuse %s with 400 invalid_request before validation', async (_what, method, path, body) => {
      const res = await send(method, path, body, true);
      expect(res.status).toBe(400);
      if (path.startsWith('/machine-approval')) expect(res.text).toMatch(/invalid_request/);
      else expect(res.body.code).toBe('invalid_request');
    });

    it('should refuse a deep body on the machine-authorization routes with the contract code', async () => {
      const res = await send('POST', '/api/machine/authorizations/token', nested(5000), true);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_request');
    });

    it('should let a shallow but wrong body reach validation (validation_failed)', async () => {
      const res = await send('POST', '/v1/items', { project: 'shop', title: 't', colour: JSON.parse(nested(20)) });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
    });
  });
});
