import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { runSvc, SVC_BIN } from '@app/testing';

// A stand-in server for the machine side of svc connect: each endpoint answers from a script of responses, the last
// one repeated. No daemon, no database: the outage is a scripted 503 database_unavailable with Retry-After.
type Reply = { status: number; body: unknown; headers?: Record<string, string> };

const OUTAGE: Reply = {
  status: 503,
  body: { code: 'database_unavailable', message: 'the database is unavailable; retry in 1 s' },
  headers: { 'retry-after': '1' },
};

async function fakeServer(script: { start: Reply[]; poll: Reply[] }) {
  const seen = { start: 0, poll: 0 };
  let origin = '';
  const reply = (res: ServerResponse, r: Reply) => {
    res.writeHead(r.status, { 'content-type': 'application/json', ...(r.headers ?? {}) });
    res.end(JSON.stringify(r.body));
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/api/machine/authorizations') {
        const r = script.start[Math.min(seen.start++, script.start.length - 1)];
        return reply(res, { ...r, body: r.body === 'STARTED' ? started() : r.body });
      }
      if (req.method === 'POST' && req.url === '/api/machine/authorizations/token') {
        const r = script.poll[Math.min(seen.poll++, script.poll.length - 1)];
        return reply(res, { ...r, body: r.body === 'APPROVED' ? approved() : r.body });
      }
      reply(res, { status: 404, body: { code: 'not_found', message: 'not found' } });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const started = () => ({
    device_code: 'device-code-0123456789abcdef',
    user_code: 'BCDF-GHJK',
    verification_uri: `${origin}/machine-approval`,
    verification_uri_complete: `${origin}/machine-approval/BCDF-GHJK`,
    expires_in: 60,
    interval: 1,
  });
  const approved = () => ({ token: 'svcm_fake_credential_0123456789', org: 'local', api_url: origin });
  return { origin, seen, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe('svc connect against a briefly unavailable server', () => {
  it('waits out a 503 with Retry-After at the start and while polling, then connects', async () => {
    const server = await fakeServer({
      start: [OUTAGE, { status: 201, body: 'STARTED' }],
      poll: [OUTAGE, { status: 200, body: 'APPROVED' }],
    });
    try {
      const res = await runSvc(['connect', server.origin, '--machine-name', 'outage box']);
      expect(res.stderr).toContain('briefly unavailable (HTTP 503); trying again in 1 s');
      expect(res.code).toBe(0);
      expect(res.stdout).toContain(`connected to ${server.origin}`);
      expect(server.seen).toEqual({ start: 2, poll: 2 });
    } finally {
      await server.close();
    }
  });

  it('still stops at once on a 503 without Retry-After (not a brief outage)', async () => {
    const server = await fakeServer({
      start: [{ status: 503, body: { code: 'database_unavailable', message: 'down' } }],
      poll: [],
    });
    try {
      const res = await runSvc(['connect', server.origin]);
      expect(res.code).not.toBe(0);
      expect(server.seen.start).toBe(1);
    } finally {
      await server.close();
    }
  });

  it('prints the success line on its own line, after clearing the spinner (on a terminal)', async () => {
    const server = await fakeServer({
      start: [{ status: 201, body: 'STARTED' }],
      poll: [{ status: 200, body: 'APPROVED' }],
    });
    try {
      const configDir = mkdtempSync(join(tmpdir(), 'svc-connect-tty-'));
      // script(1) gives the CLI a terminal on stdout and stderr, so the spinner runs as a person would see it
      const out = await new Promise<string>((resolve, reject) =>
        execFile(
          'script',
          ['-qec', `'${process.execPath}' '${SVC_BIN}' connect ${server.origin} --machine-name tty`, '/dev/null'],
          { env: { PATH: process.env.PATH, HOME: process.env.HOME, SVC_CONFIG_DIR: configDir }, timeout: 30000 },
          (error, stdout) => (error ? reject(new Error(`${error.message}\n${stdout}`)) : resolve(stdout)),
        ),
      );
      expect(out).toContain('waiting for approval');
      const line = out.split('\n').find((l) => l.includes('connected to'))!;
      // what stays visible on that line once the terminal has applied \r and "erase line"
      const visible = line.replace(/\r$/, '').split('\r').pop()!.split('\x1b[K').join('');
      expect(visible.trimEnd()).toMatch(/^connected to http:\/\/127\.0\.0\.1:\d+ \(organization local\)/);
      expect(line).not.toMatch(/left\s*connected to/);
    } finally {
      await server.close();
    }
  });
});
