import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { DaemonProcess, startDaemonProcess, waitFor } from '@app/testing';

const postmasterPid = (home: string) => Number(readFileSync(join(home, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
const lockOf = (home: string) =>
  JSON.parse(readFileSync(join(home, 'daemon.lock'), 'utf8')) as { pid: number; url: string };

async function until<T>(what: string, probe: () => Promise<T | null>, timeoutMs = 60000): Promise<T> {
  return waitFor(probe, { what, timeout: timeoutMs, interval: 200 });
}

function refusedStart(env: Record<string, string>): Promise<Error> {
  return startDaemonProcess({ env }).then(
    async (d) => {
      await d.stop();
      throw new Error('the daemon started although it should have refused');
    },
    (err: Error) => err,
  );
}

// One owner per data folder (issue 10, item 1): the lock, the busy port, the embedded server kept alive.
describe('one daemon per data folder', () => {
  const home = mkdtempSync(join(tmpdir(), 'svc-e2e-lock-'));
  let first: DaemonProcess;
  const whoami = (d: DaemonProcess) =>
    fetch(`${d.url}/v1/whoami`, { headers: { authorization: `Bearer ${d.token}` } }).then((r) => r.status);

  beforeAll(async () => {
    first = await startDaemonProcess({ env: { SVC_HOME: home } });
  });

  afterAll(async () => {
    await first?.stop();
  });

  it('should name its pid and address in daemon.lock', () => {
    expect(lockOf(home)).toMatchObject({ pid: first.child.pid, url: first.url });
  });

  it('should make a second daemon on the same folder exit at once, naming the first, and change nothing', async () => {
    const serverBefore = postmasterPid(home);
    const lockBefore = readFileSync(join(home, 'daemon.lock'), 'utf8');
    const err = await refusedStart({ SVC_HOME: home });
    expect(err.message).toMatch(/exited with code 75/);
    expect(err.message).toContain(`pid ${first.child.pid}`);
    expect(err.message).toContain(first.url);
    expect(err.message).not.toMatch(/embedded database server/);
    // The first daemon, its server and its lock are untouched.
    expect(postmasterPid(home)).toBe(serverBefore);
    expect(readFileSync(join(home, 'daemon.lock'), 'utf8')).toBe(lockBefore);
    expect((await fetch(`${first.url}/readyz`)).status).toBe(200);
    expect(await whoami(first)).toBe(200);
  });

  it('should find a busy port before it touches the database', async () => {
    const other = mkdtempSync(join(tmpdir(), 'svc-e2e-lock-port-'));
    const err = await refusedStart({ SVC_HOME: other, SVC_PORT: String(first.port) });
    expect(err.message).toMatch(/exited with code 69/);
    expect(err.message).toMatch(new RegExp(`port ${first.port} on 127\\.0\\.0\\.1 is in use`));
    expect(existsSync(join(other, 'pg'))).toBe(false);
    expect(existsSync(join(other, 'daemon.lock'))).toBe(false);
    expect(await whoami(first)).toBe(200);
  });

  it('should restart its embedded server when it dies, log it, and keep the data', async () => {
    const before = postmasterPid(home);
    process.kill(before, 'SIGKILL');
    await until('the restart line', async () =>
      /embedded database server restarted in \d+ ms/.test(first.stderr()) ? true : null,
    );
    expect(first.stderr()).toMatch(
      new RegExp(`embedded database server \\(pid ${before}\\) is not running; restarting it`),
    );
    expect(postmasterPid(home)).not.toBe(before);
    await until('readiness', async () => ((await fetch(`${first.url}/readyz`)).status === 200 ? true : null));
    expect(await whoami(first)).toBe(200);
  });

  it('should take over the lock of a daemon killed with SIGKILL', async () => {
    await first.kill();
    expect(lockOf(home).pid).toBe(first.child.pid);
    first = await startDaemonProcess({ env: { SVC_HOME: home } });
    expect(lockOf(home)).toMatchObject({ pid: first.child.pid, url: first.url });
    expect((await fetch(`${first.url}/readyz`)).status).toBe(200);
  });

  it('should remove its lock and stop its server on a clean stop', async () => {
    expect(await first.stop()).toBe(0);
    expect(existsSync(join(home, 'daemon.lock'))).toBe(false);
    expect(existsSync(join(home, 'pg', 'postmaster.pid'))).toBe(false);
  });
});
