import { execFile } from 'node:child_process';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';

import { execFileSync } from 'node:child_process';

import {
  createProject,
  createTestDatabase,
  DaemonProcess,
  insertItems,
  runSvc,
  startDaemonProcess,
  SVC_BIN,
  svcEnv,
  TestDatabase,
  withClient,
} from '@app/testing';
import { http } from '@app/testing/machine-auth';

import { TmuxSession, tmuxAvailable } from '../apps/tui/src/testing/tmux';

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

const ANSI = /\x1b\[[0-9;]*m/g; // eslint-disable-line no-control-regex
const LONG_TITLE =
  'Rework the ingestion pipeline so that every partner feed is validated against its schema before anything is stored';

// The real binary on an 80-column terminal (tmux): what it left on the screen, wrapped lines joined back (-J), with
// its colours (-e). A line wider than the terminal would come back wider than 80 here.
async function onTmux(args: string[], env: Record<string, string>, width = 80): Promise<{ raw: string; text: string }> {
  const session = new TmuxSession({ width, height: 50, env, command: [process.execPath, SVC_BIN, ...args] });
  session.start();
  try {
    const capture = () =>
      execFileSync('tmux', ['-L', session.socket, 'capture-pane', '-p', '-e', '-J', '-t', session.name, '-S', '-400'], {
        encoding: 'utf8',
      });
    await session.waitFor(/\[exited \d+\]/);
    const raw = capture();
    const text = raw.replace(ANSI, '');
    return { raw, text: text.slice(0, text.indexOf('[exited')) };
  } finally {
    session.kill();
  }
}

const widest = (text: string) => Math.max(...text.split('\n').map((l) => [...l.trimEnd()].length));

describe('svc tables, machine output and exit codes against a real daemon', () => {
  let db: TestDatabase;
  let daemon: DaemonProcess;
  let env: Record<string, string>;
  let sessionId: number;

  beforeAll(async () => {
    if (!tmuxAvailable()) throw new Error('tmux is required for the terminal tests (apt-get install tmux)');
    db = await createTestDatabase('server', 'cli_output');
    daemon = await startDaemonProcess({ env: { SVC_DATABASE_URL: db.url } });
    env = svcEnv(daemon);
    await withClient(db.url, async (client) => {
      await createProject(client, { id: 'alpha', prefix: 'AL' });
      await insertItems(client, 'alpha', [
        { title: LONG_TITLE, status: 'planned', priority: 'high', createdAt: '2026-01-01T00:00:00Z' },
        { title: `${LONG_TITLE} (second)`, status: 'planned', priority: 'medium', createdAt: '2026-01-02T00:00:00Z' },
        { title: 'held back', status: 'planned', priority: 'low', blocked: true, blockedReason: 'waiting for legal' },
        { title: 'on ice', status: 'planned', priority: 'low', frozen: true },
      ]);
    });
    const session = await http<{ session_id: number }>(daemon.url, 'POST', '/v1/sessions', {
      token: daemon.token!,
      body: { harness: 'claude-code', model: 'opus-4', project: 'alpha' },
    });
    expect(session.status).toBe(201);
    sessionId = session.body.session_id;
    const dispatched = await http(daemon.url, 'POST', '/v1/charge/dispatch', {
      token: daemon.token!,
      body: { session_id: sessionId, item_id: 'AL-1' },
    });
    expect(dispatched.status).toBe(200);
  });

  afterAll(async () => {
    await daemon?.stop();
    await db?.drop();
  });

  const TABLE_COMMANDS = [
    ['charge-frontier', '--project', 'alpha'],
    ['frontier', 'list', '--project', 'alpha'],
    ['charge', 'schedule', '--project', 'alpha'],
    ['items', 'list', '--project', 'alpha'],
    ['events', 'query', '--project', 'alpha'],
    ['projects', 'list'],
    ['sessions', 'show', 'SESSION'],
    ['tokens', 'list'],
    ['workflows', 'list'],
    ['actors', 'list'],
  ];

  it.each(TABLE_COMMANDS.map((argv) => [argv.join(' '), argv] as const))(
    'should fit svc %s on an 80-column terminal, in colour',
    async (_name, argv) => {
      const args = argv.map((a) => (a === 'SESSION' ? String(sessionId) : a));
      const { raw, text } = await onTmux(args, env);
      expect(raw).toContain('[exited 0]');
      expect(text.trim().length).toBeGreaterThan(0);
      expect(widest(text)).toBeLessThanOrEqual(80);
      expect(raw).toMatch(SGR);
    },
  );

  it('should cut titles with an ellipsis and show who holds a claim in the frontier views', async () => {
    for (const args of [
      ['charge-frontier', '--project', 'alpha'],
      ['frontier', 'list', '--project', 'alpha'],
    ]) {
      const { text } = await onTmux(args, env);
      expect(text).not.toContain(LONG_TITLE);
      expect(text).toContain('Rework the ingestion');
      expect(text).toContain('…');
      // one vocabulary: runnable, blocked, frozen
      expect(text).toMatch(/^runnable \(\d+\)/m);
      expect(text).toMatch(/^blocked \(1\)/m);
      expect(text).toMatch(/^frozen \(1\)/m);
      expect(text).not.toMatch(/^ready/m);
      const claimed = text.split('\n').find((l) => /\bAL-1\b/.test(l) && l.includes('claude-code'));
      expect(claimed).toMatch(new RegExp(`#${sessionId} claude-code (now|\\d+s ago|\\d+ min ago)`));
      expect(widest(text)).toBeLessThanOrEqual(80);
    }
  });

  it('should show every column, untruncated, with --wide', async () => {
    const { text } = await onTmux(['--wide', 'charge-frontier', '--project', 'alpha'], env);
    expect(text).toContain(LONG_TITLE);
    for (const header of ['adapter', 'priority', 'status', 'depth', 'unblocks', 'claimed by', 'title']) {
      expect(text).toContain(header);
    }
    expect(widest(text)).toBeGreaterThan(80);
  });

  it('should print whole rows without colour into a pipe', async () => {
    const piped = await runSvc(['charge-frontier', '--project', 'alpha'], { env });
    expect(piped.code).toBe(0);
    expect(piped.stdout).toContain(LONG_TITLE);
    expect(piped.stdout).toContain(`#${sessionId} claude-code`);
    expect(piped.stdout).not.toMatch(SGR);
    const schedule = await runSvc(['charge', 'schedule', '--session', String(sessionId)], { env });
    expect(schedule.code).toBe(0);
    expect(schedule.stdout).toMatch(new RegExp(`AL-1 .*#${sessionId} claude-code`));
    const narrowed = await runSvc(['charge-frontier', '--project', 'alpha'], { env: { ...env, COLUMNS: '60' } });
    expect(widest(narrowed.stdout)).toBeLessThanOrEqual(60);
  });

  it('should keep ISO timestamps in --json and relative times in tables', async () => {
    const json = await runSvc(['--json', 'events', 'query', '--project', 'alpha'], { env });
    expect(json.code).toBe(0);
    const body = JSON.parse(json.stdout) as { events: { created_at: string; payload: unknown }[] };
    expect(body.events.length).toBeGreaterThan(0);
    expect(body.events[0].created_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    const table = await runSvc(['events', 'query', '--project', 'alpha'], { env });
    expect(table.stdout).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:/);
    expect(table.stdout).toMatch(/\b(now|\d+s ago|\d+ min ago)\b/);
    // JSON blobs are summarized, never dumped
    expect(table.stdout).not.toMatch(/[{[]"/);
  });

  it('should keep the selected fields of list rows with --json a,b', async () => {
    const result = await runSvc(['items', 'list', '--project', 'alpha', '--json', 'item_id,title'], { env });
    expect(result.code).toBe(0);
    const body = JSON.parse(result.stdout) as { items: Record<string, unknown>[]; total: number };
    expect(body.total).toBe(4);
    expect(body.items).toHaveLength(4);
    for (const row of body.items) expect(Object.keys(row).sort()).toEqual(['item_id', 'title']);
    const before = await runSvc(['--json', 'item_id', 'items', 'list', '--project', 'alpha'], { env });
    expect((JSON.parse(before.stdout) as { items: object[] }).items[0]).toEqual({ item_id: 'AL-1' });
    // a word the command needs as its argument stays its argument
    const shown = await runSvc(['projects', 'get', '--json', 'alpha'], { env });
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ id: 'alpha' });
  });

  it('should refuse an unknown --json field with a usage error naming the available fields', async () => {
    const result = await runSvc(['items', 'list', '--project', 'alpha', '--json', 'item_id,colour'], { env });
    expect(result.code).toBe(64);
    expect(result.stdout).toBe('');
    const error = JSON.parse(result.stderr) as { code: string; message: string };
    expect(error.code).toBe('unknown_json_field');
    expect(error.message).toContain('colour');
    expect(error.message).toMatch(/available fields: .*\btitle\b/);
  });

  it('should filter the JSON output with --jq', async () => {
    const refs = await runSvc(['items', 'list', '--project', 'alpha', '--jq', '.items[].item_id'], { env });
    expect(refs.code).toBe(0);
    expect(refs.stdout).toBe('AL-1\nAL-2\nAL-3\nAL-4\n');
    const count = await runSvc(['charge-frontier', '--project', 'alpha', '--jq', '.blocked | length'], { env });
    expect(count.stdout).toBe('1\n');
    const bad = await runSvc(['items', 'list', '--project', 'alpha', '--jq', '.items[] | ('], { env });
    expect(bad.code).toBe(64);
    expect(bad.stdout).toBe('');
    expect(JSON.parse(bad.stderr)).toMatchObject({ code: 'invalid_jq' });
  });

  it('should print usage errors as JSON under --json, with exit code 64', async () => {
    const cases: [string[], string][] = [
      [['--json', 'items', 'list', '--colour'], 'unknown_option'],
      [['--json', 'items', 'get'], 'missing_argument'],
      [['--json', '--color', 'sometimes', 'whoami'], 'invalid_argument'],
      [['--json', 'nonsense'], 'unknown_command'],
      [['events', 'stream', '--jq', '.'], 'json_filter_unsupported'],
      [['--json', 'events', 'stream', '--frontier', 'a,b,c,d,e,f,g,h,i'], 'invalid_argument'],
    ];
    for (const [args, code] of cases) {
      const result = await runSvc(args, { env });
      expect({ args, code: result.code }).toEqual({ args, code: 64 });
      expect(JSON.parse(result.stderr)).toEqual({ code, message: expect.any(String) });
    }
    const text = await runSvc(['items', 'list', '--colour'], { env });
    expect(text.code).toBe(64);
    expect(text.stderr).toContain("error: unknown option '--colour'");
  });

  it('should document every exit code it uses, and use them', async () => {
    const help = await runSvc(['help', 'exit-codes']);
    expect(help.code).toBe(0);
    for (const code of ['0', '1', '2', '3', '64', '130']) expect(help.stdout).toMatch(new RegExp(`^  ${code}\\s`, 'm'));
    expect((await runSvc(['items', 'get', 'AL-999'], { env })).code).toBe(1);
    expect((await runSvc(['whoami'], { env: { ...env, SVC_URL: 'http://127.0.0.1:1' } })).code).toBe(2);
    expect((await runSvc(['whoami'], { env: { SVC_URL: daemon.url } })).code).toBe(3);
    expect((await runSvc(['whoami'], { env: { ...env, SVC_TOKEN: 'svc_wrong' } })).code).toBe(3);
    expect((await runSvc(['charge', '--project', 'alpha'], { env })).code).toBe(64);
  });
});
