import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Client } from 'pg';

import {
  createProject,
  createTestDatabase,
  DaemonProcess,
  insertEdges,
  insertItems,
  runSvc,
  startDaemonProcess,
  SVC_BIN,
  svcEnv,
  TestDatabase,
  waitFor,
} from '@app/testing';

import { TmuxSession, tmuxAvailable } from '../apps/tui/src/testing/tmux';

type Json = Record<string, unknown>;

// What a hostile teammate stores (issue 24): a screen clear, an OSC 0 window-title change and an OSC 52 clipboard
// write, a C1 CSI and a right-to-left override. Stored by SQL: the daemon now refuses them over HTTP.
const CLEAR = 'clear\u001b[2Jscreen';
const RETITLE = 'title\u001b]0;pwned\u0007change';
const CLIPBOARD = 'clip\u001b]52;c;cm0gLXJmIH4K\u0007board';
const REASON = 'reason\u009b2J\u202eevil';
const BODY = 'first line\n\tindented\n\u001b]0;body\u0007end';

// Nothing a terminal would obey: no C0 control but newline and tab (a body keeps its lines), no DEL, no C1, no bidi
// override.
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('terminal-safe output (issue 24)', () => {
  let db: TestDatabase;
  let daemon: DaemonProcess;
  let pg: Client;
  let env: Record<string, string>;

  const svc = async (...args: string[]) => {
    const res = await runSvc(args, { env: env });
    expect({ args, code: res.code, stderr: res.stderr }).toEqual({ args, code: 0, stderr: expect.any(String) });
    return res;
  };

  const expectSafe = (text: string) => {
    expect(text).not.toMatch(RAW_CONTROL);
  };

  async function send(method: string, path: string, body?: unknown) {
    const res = await fetch(`${daemon.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${daemon.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
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

  beforeAll(async () => {
    db = await createTestDatabase('server', 'terminal_safety');
    daemon = await startDaemonProcess({ env: { SVC_DATABASE_URL: db.url } });
    env = { ...svcEnv(daemon), COLUMNS: '400' };
    pg = new Client({ connectionString: db.url });
    await pg.connect();
    await createProject(pg, { id: 'shop', prefix: 'SHOP' });
    const [clear, , , blocked] = await insertItems(pg, 'shop', [
      { title: CLEAR },
      { title: RETITLE },
      { title: CLIPBOARD },
      { title: 'blocked one', blocked: true, blockedReason: REASON },
    ]);
    await pg.query('UPDATE items SET body = $2 WHERE id = $1', [clear.id, BODY]);
    await insertEdges(pg, [{ blocker: clear.id, dependent: blocked.id, rationale: RETITLE }]);
    await pg.query(
      `INSERT INTO events (name, kind, project, item_ref, payload) VALUES ('ItemNoted', 'telemetry', 'shop', 'SHOP-1', $1)`,
      [JSON.stringify({ note: RETITLE })],
    );
  });

  afterAll(async () => {
    await pg?.end();
    await daemon?.stop();
    await db?.drop();
  });

  describe('the command line', () => {
    it('should show the titles of `svc items list` as visible escapes', async () => {
      const res = await svc('items', 'list', '--project', 'shop');
      expectSafe(res.stdout);
      expect(res.stdout).toContain('clear\\x1b[2Jscreen');
      expect(res.stdout).toContain('title\\x1b]0;pwned\\x07change');
      expect(res.stdout).toContain('clip\\x1b]52;c;cm0gLXJmIH4K\\x07board');
    });

    it('should show an item with `svc items show`: title and reason escaped, the body keeping its lines', async () => {
      const shown = await svc('items', 'show', 'SHOP-1');
      expectSafe(shown.stdout);
      expect(shown.stdout).toContain('clear\\x1b[2Jscreen');
      expect(shown.stdout).toContain('first line\n\tindented\n\\x1b]0;body\\x07end');
      const blocked = await svc('items', 'show', 'SHOP-4');
      expectSafe(blocked.stdout);
      expect(blocked.stdout).toContain('reason\\x9b2J\\u202eevil');
    });

    it('should print a field read by `svc items get <ref> <field>` escaped', async () => {
      const res = await svc('items', 'get', 'SHOP-2', 'title');
      expectSafe(res.stdout);
      expect(res.stdout).toBe('title\\x1b]0;pwned\\x07change\n');
    });

    it('should print the exact stored strings with --json', async () => {
      const res = await svc('items', 'list', '--project', 'shop', '--json');
      const titles = (JSON.parse(res.stdout) as { items: { title: string }[] }).items.map((i) => i.title);
      expect(titles).toEqual(expect.arrayContaining([CLEAR, RETITLE, CLIPBOARD]));
      const one = await svc('items', 'show', 'SHOP-4', '--json');
      expect((JSON.parse(one.stdout) as { blocked_reason: string }).blocked_reason).toBe(REASON);
    });

    it('should escape the frontier tables (charge-frontier and frontier list) and the explanation', async () => {
      for (const args of [
        ['charge-frontier', '--project', 'shop'],
        ['frontier', 'list', '--project', 'shop'],
        ['frontier', 'explain', 'SHOP-4'],
      ]) {
        const res = await svc(...args);
        expectSafe(res.stdout);
        expectSafe(res.stderr);
      }
      const frontier = await svc('charge-frontier', '--project', 'shop');
      expect(frontier.stdout).toContain('reason\\x9b2J\\u202eevil');
    });

    it('should escape the blockers table of a blocked_by_dependencies refusal and the dependency list', async () => {
      // the blocker's title and the edge's rationale are stored text: shown, as visible escapes
      const list = await svc('items', 'dependency', 'list', 'SHOP-4');
      expectSafe(list.stdout);
      expect(list.stdout).toContain('clear\\x1b[2Jscreen');
      expect(list.stdout).toContain('title\\x1b]0;pwned\\x07change');
      const refused = await runSvc(['items', 'status', 'SHOP-4', 'implementing'], { env });
      expect(refused.code).not.toBe(0);
      expectSafe(refused.stdout);
      expectSafe(refused.stderr);
      expect(refused.stderr).toContain('clear\\x1b[2Jscreen');
    });

    it('should escape event payloads in `svc events query`', async () => {
      const res = await svc('events', 'query', '--project', 'shop', '--event-name', 'ItemNoted');
      expectSafe(res.stdout);
      expect(res.stdout).toContain('\\x1b]0;pwned\\x07');
    });
  });

  describe('the daemon', () => {
    it('should refuse ESC, OSC and C1 in a title over HTTP with 400 validation_failed naming title', async () => {
      for (const title of [CLEAR, RETITLE, CLIPBOARD, 'c1\u009b2J', 'two\nlines', 'rtl\u202eoverride']) {
        const res = await send('POST', '/v1/items', { project: 'shop', title });
        expect({ title, status: res.status, code: res.body.code }).toEqual({
          title,
          status: 400,
          code: 'validation_failed',
        });
        expect(fieldsOf(res.body)).toEqual(['title']);
      }
    });

    it('should accept a body with newlines and tabs, and refuse ESC in it naming body', async () => {
      const ok = await send('POST', '/v1/items', { project: 'shop', title: 'prose', body: 'one\n\ttwo\n' });
      expect(ok.status).toBe(201);
      expect(ok.body.body).toContain('one\n\ttwo');
      const refused = await send('POST', '/v1/items', { project: 'shop', title: 'prose', body: 'one\n\u001b[2J' });
      expect(refused.status).toBe(400);
      expect(refused.body.code).toBe('validation_failed');
      expect(fieldsOf(refused.body)).toEqual(['body']);
    });

    it('should refuse control characters in single-line fields elsewhere: a reason, a field value, a query', async () => {
      const reason = await send('POST', '/v1/items/SHOP-3/block', { reason: 'line\nbreak' });
      expect([reason.status, reason.body.code, fieldsOf(reason.body)]).toEqual([400, 'validation_failed', ['reason']]);
      const title = await send('PUT', '/v1/items/SHOP-3/fields/title', { value: 'a\tb' });
      expect([title.status, fieldsOf(title.body)]).toEqual([400, ['value']]);
      const spec = await send('PUT', '/v1/items/SHOP-3/fields/spec', { value: 'a\n\tb' });
      expect(spec.status).toBe(200);
      const query = await send('GET', '/v1/items?project=sh%1Bop');
      expect([query.status, fieldsOf(query.body)]).toEqual([400, ['project']]);
    });

    it('should answer the machine-authorization contract shape for a control character in a machine name', async () => {
      const res = await send('POST', '/api/machine/authorizations', { machine_id: 'm-1', machine_name: 'x\u001b]0;y' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 'invalid_request', message: expect.stringMatching(/machine_name/) });
    });
  });
});

describe('the first-boot token (issue 24)', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase('server', 'first_boot_token');
  });

  afterAll(async () => {
    await db?.drop();
  });

  const storedToken = (configDir: string) =>
    (JSON.parse(readFileSync(join(configDir, 'credentials.json'), 'utf8')) as { servers: { token: string }[] })
      .servers[0].token;

  const until = (check: () => boolean, what: string) => waitFor(check, { what });

  it('should keep the token out of a file `svc daemon > file 2>&1` writes, the credential file holding it', async () => {
    const configDir = mkdtempSync(join(tmpdir(), 'svc-e2e-config-'));
    const log = join(mkdtempSync(join(tmpdir(), 'svc-e2e-log-')), 'daemon.log');
    const child = spawn('/bin/sh', ['-c', `exec "${process.execPath}" "${SVC_BIN}" daemon > "${log}" 2>&1`], {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        SVC_DATABASE_URL: db.url,
        SVC_HOME: mkdtempSync(join(tmpdir(), 'svc-e2e-home-')),
        SVC_CONFIG_DIR: configDir,
        SVC_PORT: '0',
        SVC_LOG_LEVEL: 'info',
      },
      stdio: 'ignore',
    });
    const exited = new Promise((r) => child.once('exit', r));
    try {
      const read = () => (existsSync(log) ? readFileSync(log, 'utf8') : '');
      // not a terminal: the notes are JSON lines (issue 40), the first-boot one among them
      const firstBoot = () =>
        read()
          .split('\n')
          .filter((line) => line.startsWith('{'))
          .map((line) => JSON.parse(line) as { first_boot?: boolean; msg: string })
          .find((record) => record.first_boot === true);
      await until(() => firstBoot() !== undefined, 'the first-boot note');
      const token = storedToken(configDir);
      expect(token).toMatch(/^svc_/);
      expect(firstBoot()!.msg).toContain('first boot');
      expect(read()).not.toContain(token);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  }, 90_000);

  const maybe = tmuxAvailable() ? it : it.skip;
  maybe(
    'should not show the token on the terminal when stdout is redirected (`svc daemon > file`)',
    async () => {
      await db.drop();
      db = await createTestDatabase('server', 'first_boot_token');
      const configDir = mkdtempSync(join(tmpdir(), 'svc-e2e-config-'));
      const log = join(mkdtempSync(join(tmpdir(), 'svc-e2e-log-')), 'daemon.log');
      const tmux = new TmuxSession({
        width: 100,
        height: 40,
        env: {
          SVC_DATABASE_URL: db.url,
          SVC_HOME: mkdtempSync(join(tmpdir(), 'svc-e2e-home-')),
          SVC_CONFIG_DIR: configDir,
          SVC_PORT: '0',
        },
        command: ['/bin/sh', '-c', `exec "${process.execPath}" "${SVC_BIN}" daemon > "${log}"`],
      });
      tmux.start();
      try {
        const screen = await tmux.waitFor(/╰─+╯/, 60_000);
        const token = storedToken(configDir);
        expect(screen.replace(/[│\s]+/g, '')).not.toContain(token);
        expect(screen).toContain('first boot');
        expect(readFileSync(log, 'utf8')).not.toContain(token);
      } finally {
        tmux.keys('C-c');
        await tmux.waitFor(/\[exited \d+\]/, 60_000).catch(() => undefined);
        tmux.kill();
      }
    },
    120_000,
  );
});
