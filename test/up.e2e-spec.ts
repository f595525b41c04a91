import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { DAEMON_NODE_FLAGS, readCredentials } from '@app/client';
import { parseJson, runSvc } from '@app/testing';

// A port nobody listens on right now (the kernel picks it, then it is released for the daemon).
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function status(url: string): Promise<number | 'unreachable'> {
  try {
    return (await fetch(`${url}/readyz`)).status;
  } catch {
    return 'unreachable';
  }
}

const SLOW = { timeoutMs: 240_000 };
jest.setTimeout(300_000);

describe('svc up and svc down', () => {
  const home = mkdtempSync(join(tmpdir(), 'svc-up-home-'));
  const configDir = mkdtempSync(join(tmpdir(), 'svc-up-config-'));
  let url: string;
  let env: Record<string, string>;
  let pid: number | null = null;

  beforeAll(async () => {
    url = `http://127.0.0.1:${await freePort()}`;
    env = { SVC_HOME: home, SVC_CONFIG_DIR: configDir, SVC_URL: url, SVC_LOG_LEVEL: 'warn' };
  });

  afterAll(() => {
    if (pid !== null && alive(pid)) process.kill(pid, 'SIGKILL');
  });

  it('should start the daemon in the background on the embedded database, and say where its log is', async () => {
    expect(await status(url)).toBe('unreachable');
    const result = await runSvc(['up', '--no-tui'], { env, ...SLOW });
    expect(result.code).toBe(0);
    const log = join(home, 'daemon.log');
    expect(result.stderr).toContain(`log: ${log}`);
    expect(result.stderr).toContain(`the daemon is ready at ${url}`);
    expect(await status(url)).toBe(200);
    expect(existsSync(log)).toBe(true);
    expect(readFileSync(log, 'utf8')).toMatch(/listening on/);
    pid = Number(readFileSync(join(home, 'daemon.pid'), 'utf8').trim());
    expect(alive(pid)).toBe(true);
    // with the daemon's Node flags (ADR 0093)
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    expect(argv.slice(1, 1 + DAEMON_NODE_FLAGS.length)).toEqual(DAEMON_NODE_FLAGS);
    expect(argv[1 + DAEMON_NODE_FLAGS.length]).toMatch(/dist\/apps\/daemon\/src\/main\.js$/);
    // the first boot handed the command line its token
    const me = await runSvc(['whoami', '--json'], { env });
    expect(me.code).toBe(0);
    expect(parseJson<{ name: string; is_admin: boolean }>(me)).toMatchObject({ name: 'admin', is_admin: true });
    // the one-time token is in the credential file, not in the log
    const token = readCredentials(configDir)?.token ?? '';
    expect(token).toMatch(/^svc_/);
    expect(readFileSync(log, 'utf8')).not.toContain(token);
    expect(readFileSync(log, 'utf8')).toContain('svc: first boot — created the admin actor and its API token');
  });

  it('should not start a second daemon when one answers', async () => {
    const result = await runSvc(['up', '--no-tui'], { env, ...SLOW });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`a daemon already answers at ${url}`);
    expect(Number(readFileSync(join(home, 'daemon.pid'), 'utf8').trim())).toBe(pid);
    expect(readFileSync(join(home, 'daemon.log'), 'utf8').match(/listening on/g)).toHaveLength(1);
  });

  it('should keep the TUI closed without a terminal, the daemon still up', async () => {
    const up = await runSvc(['up'], { env, ...SLOW });
    expect(up.code).toBe(0);
    expect(up.stderr).toContain('svc tui');
    const tui = await runSvc(['tui'], { env });
    expect(tui.code).toBe(2);
    expect(tui.stderr).toContain('needs a terminal');
    expect(await status(url)).toBe(200);
  });

  it('should refuse to adopt the daemon of another SVC_HOME answering on the port, naming that home', async () => {
    const other = mkdtempSync(join(tmpdir(), 'svc-up-other-home-'));
    const result = await runSvc(['up', '--no-tui'], { env: { ...env, SVC_HOME: other }, ...SLOW });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('daemon_of_another_home');
    expect(result.stderr).toContain(`serves another SVC_HOME (${home})`);
    expect(existsSync(join(other, 'daemon.pid'))).toBe(false);
    // the daemon of this home is still adopted
    expect((await runSvc(['up', '--no-tui'], { env, ...SLOW })).stderr).toContain(`a daemon already answers at ${url}`);
  });

  it('should stop the daemon it started, clean the pid file, and say so when none runs', async () => {
    const result = await runSvc(['down'], { env, ...SLOW });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`stopped the daemon (pid ${pid})`);
    expect(alive(pid!)).toBe(false);
    expect(existsSync(join(home, 'daemon.pid'))).toBe(false);
    expect(await status(url)).toBe('unreachable');
    expect(readFileSync(join(home, 'daemon.log'), 'utf8')).toMatch(/SIGTERM received, shutting down/);
    const again = await runSvc(['down'], { env });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('no daemon started by svc up is running');
  });

  it('should start the daemon again on the same data without a new token', async () => {
    const before = readFileSync(join(configDir, 'credentials.json'), 'utf8');
    const result = await runSvc(['up', '--no-tui'], { env, ...SLOW });
    expect(result.code).toBe(0);
    pid = Number(readFileSync(join(home, 'daemon.pid'), 'utf8').trim());
    expect(await status(url)).toBe(200);
    expect(readFileSync(join(configDir, 'credentials.json'), 'utf8')).toBe(before);
    expect((await runSvc(['whoami'], { env })).code).toBe(0);
    expect((await runSvc(['down'], { env, ...SLOW })).code).toBe(0);
    expect(alive(pid)).toBe(false);
  });

  it('should refuse to start a daemon for a URL that is not this machine', async () => {
    const result = await runSvc(['up', '--no-tui'], {
      env: { ...env, SVC_URL: 'http://svc.example.invalid:7700' },
      ...SLOW,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('daemon_unreachable');
    expect(result.stderr).toContain('starts only a daemon on this machine');
    expect(existsSync(join(home, 'daemon.pid'))).toBe(false);
  });
});
