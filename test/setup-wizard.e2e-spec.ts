import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
  createTestDatabase,
  DaemonProcess,
  runSvc,
  startDaemonProcess,
  SVC_BIN,
  TestDatabase,
  waitFor as waitUntil,
} from '@app/testing';
import { resolveMachineAuthorization } from '@app/testing/machine-auth';

const SECRET = 'e2e-setup-wizard-secret-0123456789abcdef';
const CODE = /([BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4})/;

// One tmux server of our own (its own socket), one session per wizard run: a real pseudo-terminal.
class Terminal {
  private static count = 0;
  private readonly socket = `svc-setup-e2e-${process.pid}`;
  private readonly session: string;

  constructor(env: Record<string, string>) {
    Terminal.count += 1;
    this.session = `wizard${Terminal.count}`;
    const exports = Object.entries({ PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env })
      .map(([k, v]) => `${k}='${v.replace(/'/g, "'\\''")}'`)
      .join(' ');
    const command = `env -i TERM=xterm-256color ${exports} ${process.execPath} ${SVC_BIN} setup; echo "[exit $?]"; sleep 600`;
    this.tmux('new-session', '-d', '-s', this.session, '-x', '140', '-y', '40', command);
  }

  private tmux(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8' });
  }

  screen(): string {
    return this.tmux('capture-pane', '-p', '-t', this.session, '-S', '-200');
  }

  keys(...keys: string[]): void {
    this.tmux('send-keys', '-t', this.session, ...keys);
  }

  type(text: string): void {
    this.tmux('send-keys', '-t', this.session, '-l', text);
  }

  async waitFor(pattern: RegExp | string, timeoutMs = 60000): Promise<string> {
    const shows = (text: string) => (typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text));
    return waitUntil(
      () => {
        const text = this.screen();
        return shows(text) ? text : null;
      },
      { timeout: timeoutMs, interval: 150 },
    ).catch((error: Error) => {
      throw new Error(`${error.message} (${String(pattern)}); screen:\n${this.screen()}`);
    });
  }

  close(): void {
    try {
      this.tmux('kill-session', '-t', this.session);
    } catch {
      // already gone
    }
  }
}

// Each test drives several real svc processes (and a browser or a terminal): generous on a loaded machine.
jest.setTimeout(180000);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe('svc setup', () => {
  let db: TestDatabase;
  let plain: DaemonProcess;
  let company: DaemonProcess;
  let misconfigured: DaemonProcess;

  beforeAll(async () => {
    db = await createTestDatabase('server', 'setup_wizard');
    // discovery reads only the configuration: a well-formed https issuer is enough for company_sign_in true
    // the first daemon boots the database and prints the admin token; the others share it
    plain = await startDaemonProcess({ env: { SVC_DATABASE_URL: db.url, SVC_SERVER_SECRET: SECRET } });
    [company, misconfigured] = await Promise.all([
      startDaemonProcess({
        env: {
          SVC_DATABASE_URL: db.url,
          SVC_SERVER_SECRET: SECRET,
          SVC_OIDC_ISSUER: 'https://id.example.com',
          SVC_OIDC_CLIENT_ID: 'svc',
          SVC_OIDC_CLIENT_SECRET: 'secret',
        },
      }),
      startDaemonProcess({
        env: { SVC_DATABASE_URL: db.url, SVC_SERVER_SECRET: SECRET, SVC_OIDC_ISSUER: 'https://id.example.com' },
      }),
    ]);
  }, 120000);

  afterAll(async () => {
    await Promise.all([plain?.stop(), company?.stop(), misconfigured?.stop()]);
    await db?.drop();
  });

  it('should start the embedded daemon on this machine and open the TUI over it', async () => {
    const home = mkdtempSync(join(tmpdir(), 'svc-setup-home-'));
    chmodSync(home, 0o755);
    const configDir = mkdtempSync(join(tmpdir(), 'svc-setup-local-'));
    // a private address: never the default 7700 a developer's own daemon may use
    const env = { SVC_HOME: home, SVC_CONFIG_DIR: configDir, SVC_URL: `http://127.0.0.1:${await freePort()}` };
    const term = new Terminal({ ...env, NCURSES_NO_UTF8_ACS: '1' });
    try {
      await term.waitFor('Where should svc keep your backlog?');
      await term.waitFor(/❯ This machine/);
      term.keys('Enter');
      await term.waitFor('Press i to import the bundled demo backlog', 120000);
      term.keys('q');
      const screen = await term.waitFor('[exit 0]');
      expect(screen).toContain(`log: ${join(home, 'daemon.log')}`);
      // the first boot connected the command line to the new daemon
      const me = await runSvc(['whoami', '--json'], { env });
      expect(me.code).toBe(0);
      expect(JSON.parse(me.stdout)).toMatchObject({ name: 'admin', is_admin: true });
    } finally {
      term.close();
      await runSvc(['down'], { env });
    }
  });

  it('should stay on API-token entry for a server without company sign-in', async () => {
    const configDir = mkdtempSync(join(tmpdir(), 'svc-setup-token-'));
    const term = new Terminal({ SVC_CONFIG_DIR: configDir });
    try {
      await term.waitFor('Where should svc keep your backlog?');
      term.keys('Down');
      await term.waitFor(/❯ A team server/);
      term.keys('Enter');
      await term.waitFor('Team server address');
      term.type(plain.url);
      term.keys('Enter');
      await term.waitFor('has no company sign-in');
      await term.waitFor('API token');
      term.type(plain.token!);
      term.keys('Enter');
      const screen = await term.waitFor('[exit 0]');
      expect(screen).toContain(`connected to ${plain.url} as admin`);
      expect(screen).not.toContain(plain.token!);
      const file = JSON.parse(readFileSync(join(configDir, 'credentials.json'), 'utf8')) as { current: string };
      expect(file.current).toBe(plain.url);
    } finally {
      term.close();
    }
  });

  it('should offer browser approval when the server has company sign-in, and connect the machine', async () => {
    const configDir = mkdtempSync(join(tmpdir(), 'svc-setup-browser-'));
    const term = new Terminal({ SVC_CONFIG_DIR: configDir });
    try {
      await term.waitFor('Where should svc keep your backlog?');
      term.keys('Down', 'Enter');
      await term.waitFor('Team server address');
      term.type(company.url);
      term.keys('Enter');
      await term.waitFor('Approve in the browser (company sign-in)');
      expect(term.screen()).toContain('Enter an API token');
      term.keys('Enter');
      await term.waitFor('Open the approval page in your browser?');
      term.type('n');
      term.keys('Enter');
      const shown = await term.waitFor(CODE);
      expect(shown).toContain('Machine id:');
      expect(shown).toMatch(/waiting for approval — \d+:\d\d left/);
      const code = CODE.exec(shown)![1];
      expect((await resolveMachineAuthorization(company.url, plain.token!, code, 'approve')).status).toBe(200);
      const done = await term.waitFor('[exit 0]');
      expect(done).toContain(`connected to ${company.url} as admin`);
      const me = await runSvc(['auth', 'status', '--json'], { env: { SVC_CONFIG_DIR: configDir } });
      expect(JSON.parse(me.stdout)).toMatchObject({ identity: 'admin', kind: 'machine_credential' });
    } finally {
      term.close();
    }
  });

  it('should offer Use API token, Edit connection and Choose another home on oidc_misconfigured', async () => {
    const configDir = mkdtempSync(join(tmpdir(), 'svc-setup-misconfigured-'));
    const term = new Terminal({ SVC_CONFIG_DIR: configDir });
    try {
      await term.waitFor('Where should svc keep your backlog?');
      term.keys('Down', 'Enter');
      await term.waitFor('Team server address');
      term.type(misconfigured.url);
      term.keys('Enter');
      const menu = await term.waitFor('Choose another home');
      expect(menu).toContain('oidc_misconfigured');
      expect(menu).toContain('Use API token');
      expect(menu).toContain('Edit connection');
      term.keys('Down', 'Enter');
      await term.waitFor(/Team server address\s*$/m);
      term.type(plain.url);
      term.keys('Enter');
      await term.waitFor('API token');
      term.type(plain.token!);
      term.keys('Enter');
      expect(await term.waitFor('[exit 0]')).toContain(`connected to ${plain.url} as admin`);
    } finally {
      term.close();
    }
  });

  it('should refuse to prompt without a terminal and run fully scripted', async () => {
    const configDir = mkdtempSync(join(tmpdir(), 'svc-setup-script-'));
    const refused = await runSvc(['setup'], { env: { SVC_CONFIG_DIR: configDir } });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('terminal_required');
    const scripted = await runSvc(['setup', '--server', plain.url, '--token-stdin'], {
      env: { SVC_CONFIG_DIR: configDir },
      input: `${plain.token}\n`,
    });
    expect(scripted.code).toBe(0);
    expect(scripted.stdout).toContain('as admin');
    const noToken = await runSvc(['setup', '--server', misconfigured.url, '--yes'], {
      env: { SVC_CONFIG_DIR: configDir },
    });
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain('oidc_misconfigured');
  });
});
