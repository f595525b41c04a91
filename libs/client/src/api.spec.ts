import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';

import { SvcApi } from './api';
import { SvcClient, SvcConnectionError, SvcHttpError } from './http-client';

describe(SvcApi.name, () => {
  let server: Server;
  let base: string;
  const seen: IncomingMessage[] = [];
  let readyStatus = 200;

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(req);
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/readyz') {
        res.writeHead(readyStatus).end('{}');
      } else if (url.pathname === '/v1/charge/frontier') {
        if (!url.searchParams.get('project')) {
          res.writeHead(400, { 'content-type': 'application/json' });
          res.end('{"code":"project_required","message":"name a project","projects":[]}');
        } else if (req.headers['if-none-match'] === '"v1"') {
          res.writeHead(304, { etag: '"v1"' }).end();
        } else {
          res.writeHead(200, { 'content-type': 'application/json', etag: '"v1"' });
          res.end('{"runnable":[],"blocked":[],"frozen":[],"wip_cap":30,"wip_active":0,"conduct_eligible":[]}');
        }
      } else {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => (seen.length = 0));

  const api = () => new SvcApi(new SvcClient(base, 'tok'));

  it('should read the frontier with its etag, then answer notModified on 304 to If-None-Match', async () => {
    const first = await api().frontier({ project: 'alpha', wip_cap: 5 });
    expect(first).toEqual({
      notModified: false,
      etag: '"v1"',
      body: { runnable: [], blocked: [], frozen: [], wip_cap: 30, wip_active: 0, conduct_eligible: [] },
    });
    expect(seen[0].url).toBe('/v1/charge/frontier?project=alpha&wip_cap=5');
    expect(seen[0].headers['if-none-match']).toBeUndefined();
    expect(seen[0].headers.authorization).toBe('Bearer tok');
    expect(await api().frontier({ project: 'alpha' }, '"v1"')).toEqual({ notModified: true });
    expect(seen[1].headers['if-none-match']).toBe('"v1"');
  });

  it('should throw the daemon error body on an error status', async () => {
    const err = await api()
      .frontier({})
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SvcHttpError);
    expect((err as SvcHttpError).code).toBe('project_required');
  });

  it('should encode path segments and pass queries', async () => {
    await api().explain('AL 1/x', { wip_cap: 3 });
    await api().claims('alpha');
    await api().resolveMachineAuthorizationRequest('mr_1', { code: 'BCDF-GHJK', action: 'approve' });
    await api().machineAuthorization('BCDF-GHJK', { org: 'acme' });
    expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual([
      'GET /v1/frontier/explain/AL%201%2Fx?wip_cap=3',
      'GET /v1/charge/claims?project=alpha',
      'POST /v1/machine-authorizations/requests/mr_1/resolve',
      'GET /api/orgs/acme/v1/machine-authorizations/BCDF-GHJK',
    ]);
  });

  it('should answer ready from /readyz and throw SvcConnectionError when nobody answers', async () => {
    expect(await api().ready()).toEqual({ ok: true });
    readyStatus = 503;
    expect(await api().ready()).toEqual({ ok: false });
    const nobody = new SvcApi(new SvcClient('http://127.0.0.1:1', null));
    await expect(nobody.ready()).rejects.toBeInstanceOf(SvcConnectionError);
  });
});
