import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { createTestDatabase, DAEMON_ENTRY, startDaemonProcess, TestDatabase, waitFor } from '@app/testing';

import { TmuxSession, tmuxAvailable } from '../apps/tui/src/testing/tmux';

const TOKEN_LINE = /^│\s+(svc_[A-Za-z0-9_-]{20,})\s+│$/m;
const isJson = (line: string) => {
  try {
    return typeof JSON.parse(line) === 'object';
  } catch {
    return false;
  }
};

// A person runs the daemon for the first time on a terminal: readable lines, and the one-time admin token framed as
// the last thing on the screen, not scrolled away among JSON log lines.
describe('the daemon on a terminal', () => {
  const maybe = tmuxAvailable() ? it : it.skip;
  let tmux: TmuxSession | null = null;

  afterEach(async () => {
    if (!tmux) return;
    // Ctrl-C stops the daemon and its embedded database; the pane then reports the exit.
    tmux.keys('C-c');
    await tmux.waitFor(/\[exited \d+\]/, 60_000).catch(() => undefined);
    tmux.kill();
    tmux = null;
  });

  maybe(
    'should show readable lines and end its first boot with the framed token banner',
    async () => {
      const configDir = mkdtempSync(join(tmpdir(), 'svc-e2e-config-'));
      tmux = new TmuxSession({
        width: 80,
        height: 50,
        env: {
          SVC_HOME: mkdtempSync(join(tmpdir(), 'svc-e2e-home-')),
          SVC_CONFIG_DIR: configDir,
          SVC_PORT: '0',
          SVC_HOST: '127.0.0.1',
          SVC_LOG_LEVEL: 'info',
        },
        command: [process.execPath, DAEMON_ENTRY],
      });
      tmux.start();
      const screen = await tmux.waitFor(/╰─+╯/, 120_000);
      const lines = screen.split('\n').map((l) => l.trimEnd());
      while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
      const bottom = lines.length - 1;
      const top = lines.findIndex((l) => /^╭─+╮$/.test(l));
      // the box is the last thing on the screen, right after "listening"
      expect(lines[bottom]).toMatch(/^╰─+╯$/);
      expect(top).toBeGreaterThan(0);
      const banner = lines.slice(top, bottom + 1).join('\n');
      expect(banner).toContain('first boot — the admin API token');
      expect(banner).toMatch(TOKEN_LINE);
      expect(banner.replace(/[│\s]+/g, '')).toContain(join(configDir, 'credentials.json').replace(/\s/g, ''));
      expect(
        lines
          .slice(0, top)
          .filter((l) => l !== '')
          .pop(),
      ).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
      // readable log lines, none of them JSON, and Nest's start-up chatter is not shown at info
      expect(lines.filter((l) => l.trimStart().startsWith('{'))).toEqual([]);
      expect(screen).toMatch(/INFO.*\[BootstrapService\] first boot: created the admin actor/);
      expect(screen).not.toMatch(/InstanceLoader|RouterExplorer|RoutesResolver/);
    },
    180_000,
  );
});

describe('the daemon with its output piped', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase('server', 'daemon_terminal');
  });

  afterAll(async () => {
    await db?.drop();
  });

  it('should write JSON log lines only to stdout and the banner to stderr after "listening"', async () => {
    const daemon = await startDaemonProcess({ env: { SVC_DATABASE_URL: db.url, SVC_LOG_LEVEL: 'info' } });
    try {
      expect((await fetch(`${daemon.url}/healthz`)).status).toBe(200);
      expect(
        (await fetch(`${daemon.url}/v1/whoami`, { headers: { authorization: `Bearer ${daemon.token}` } })).status,
      ).toBe(200);
      const out = daemon
        .stdout()
        .split('\n')
        .filter((l) => l !== '');
      expect(out.length).toBeGreaterThan(0);
      expect(out.filter((l) => !isJson(l))).toEqual([]);
      expect(out.some((l) => /first boot: created the admin actor/.test(l))).toBe(true);
      // Nest's start-up lines are at debug: not written at info; a request is an access line at info (issue 40)
      expect(out.filter((l) => /InstanceLoader|RouterExplorer/.test(l))).toEqual([]);
      await waitFor(
        () => out.concat(daemon.stdout().split('\n')).some((l) => /"route":"\/v1\/whoami","status":200/.test(l)),
        {
          what: 'the access line of /v1/whoami',
          timeout: 10_000,
        },
      );
      expect(daemon.token).toMatch(/^svc_/);
      expect(daemon.stdout()).not.toContain(daemon.token!);
      const err = daemon.stderr();
      expect(err.indexOf('listening on')).toBeLessThan(err.indexOf('first boot'));
      // piped, the token is in the credential file only (issue 24): the harness read it from there
      expect(err).not.toMatch(TOKEN_LINE);
      expect(err).not.toContain(daemon.token!);
      expect(err.replace(/[│\s]+/g, ' ')).toContain('it is shown only on a terminal');
    } finally {
      await daemon.stop();
    }
  });

  it('should write readable lines when SVC_LOG_FORMAT=pretty forces them, and debug lines at debug', async () => {
    const daemon = await startDaemonProcess({
      env: { SVC_DATABASE_URL: db.url, SVC_LOG_LEVEL: 'debug', SVC_LOG_FORMAT: 'pretty', SVC_BOOTSTRAP_ADMIN: 'false' },
    });
    try {
      await fetch(`${daemon.url}/v1/whoami`);
      const out = daemon
        .stdout()
        .split('\n')
        .filter((l) => l !== '');
      expect(out.filter(isJson)).toEqual([]);
      expect(out.some((l) => /DEBUG.*\[RoutesResolver\]/.test(l))).toBe(true);
      expect(daemon.stderr()).not.toContain('first boot');
    } finally {
      await daemon.stop();
    }
    const polled = daemon.stdout().split('\n');
    expect(polled.some((l) => /WARN.*GET \/v1\/whoami → 401/.test(l))).toBe(true);
  });

  it('should refuse an unknown SVC_LOG_FORMAT naming the variable', async () => {
    await expect(startDaemonProcess({ env: { SVC_DATABASE_URL: db.url, SVC_LOG_FORMAT: 'fancy' } })).rejects.toThrow(
      /SVC_LOG_FORMAT/,
    );
  });
});
