import { execFile } from 'node:child_process';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';

import { runSvc, SVC_BIN } from '@app/testing';

const SGR = /\x1b\[[0-9;]*m/; // eslint-disable-line no-control-regex

// The real binary under a pseudo-terminal (util-linux `script`): what a person at a terminal sees, both streams.
function onTerminal(args: string[], env: Record<string, string> = {}): Promise<string> {
  const command = [process.execPath, SVC_BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  return new Promise((resolve) => {
    const child = execFile(
      'script',
      ['-qec', command, '/dev/null'],
      { env: { PATH: process.env.PATH, HOME: process.env.HOME, TERM: 'xterm-256color', ...env }, timeout: 30_000 },
      (_error, stdout) => resolve(stdout),
    );
    child.stdin?.end();
  });
}

const event = {
  id: '12',
  name: 'ChargeDecisionMade',
  kind: 'lifecycle',
  project: 'alpha',
  item_id: 'AL-1',
  actor_id: 1,
  session_id: null,
  payload: {},
  created_at: new Date(Date.now() - 3 * 3600_000 - 60_000).toISOString(),
};

describe('svc colour and relative times', () => {
  let server: Server;
  let url: string;

  beforeAll(async () => {
    // a stand-in daemon: the projects list of one project
    server = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.url?.startsWith('/v1/events')) {
        res.end(JSON.stringify({ events: [event] }));
        return;
      }
      res.end(
        JSON.stringify({
          projects: [
            {
              id: 'alpha',
              name: 'Alpha',
              public_item_prefix: 'AL',
              next_sequence: 3,
              policy: {},
              title_max_length: 200,
              organization: null,
              created_at: '2026-01-01T00:00:00.000Z',
              updated_at: '2026-01-01T00:00:00.000Z',
            },
          ],
        }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('should colour table heads and errors on a terminal', async () => {
    const table = await onTerminal(['--url', url, '--token', 'svc_stand-in', 'projects', 'list']);
    expect(table).toContain('alpha');
    expect(table).toMatch(/\x1b\[1mproject\x1b\[22m/); // eslint-disable-line no-control-regex
    const error = await onTerminal(['--url', 'http://127.0.0.1:1', '--token', 'svc_stand-in', 'whoami']);
    expect(error).toMatch(/\x1b\[31merror:\x1b\[39m daemon_unreachable/); // eslint-disable-line no-control-regex
  });

  it('should print no colour with NO_COLOR or --color never, even on a terminal', async () => {
    const noColor = await onTerminal(['--url', url, '--token', 'svc_stand-in', 'projects', 'list'], { NO_COLOR: '1' });
    expect(noColor).toContain('alpha');
    expect(noColor).not.toMatch(SGR);
    const never = await onTerminal(['--url', url, '--token', 'svc_stand-in', '--color', 'never', 'projects', 'list']);
    expect(never).toContain('alpha');
    expect(never).not.toMatch(SGR);
  });

  it('should print no colour into a pipe unless --color always', async () => {
    const piped = await runSvc(['--url', url, '--token', 'svc_stand-in', 'projects', 'list']);
    expect(piped.code).toBe(0);
    expect(piped.stdout).toContain('alpha');
    expect(piped.stdout).not.toMatch(SGR);
    const forced = await runSvc(['--url', url, '--token', 'svc_stand-in', '--color', 'always', 'projects', 'list']);
    expect(forced.stdout).toMatch(SGR);
    const error = await runSvc(['--url', 'http://127.0.0.1:1', '--token', 'svc_stand-in', 'whoami']);
    expect(error.stderr).toMatch(/^error: daemon_unreachable/);
  });

  it('should refuse an unknown --color value', async () => {
    const result = await runSvc(['--color', 'sometimes', 'whoami']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("argument 'sometimes' is invalid");
  });

  it('should show relative times in tables and the ISO timestamp with --json', async () => {
    const table = await runSvc(['--url', url, '--token', 'svc_stand-in', 'events', 'query']);
    expect(table.code).toBe(0);
    expect(table.stdout).toContain('3h ago');
    expect(table.stdout).not.toContain(event.created_at);
    const json = await runSvc(['--url', url, '--token', 'svc_stand-in', '--json', 'events', 'query']);
    expect(JSON.parse(json.stdout)).toEqual({ events: [event] });
  });
});
