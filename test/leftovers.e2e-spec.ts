import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { REPO_ROOT, waitFor } from '@app/testing';
import { cleanLeftovers } from '@app/testing/leftovers';

// Tests that do not trip (issue 40): an interrupted `npm test` leaves no PostgreSQL, daemon or tmux server behind.
// A stand-in runner starts them through the helpers the tests use (test/support/leftover-runner.ts); interrupted with
// SIGINT (Ctrl-C) it ends them itself; killed outright (SIGKILL, nothing runs), the next run's global setup
// (cleanLeftovers) ends them.

interface Started {
  server: number;
  tmux: string;
  postgres: string | null;
}

// The processes of a process group (none: the group is gone).
function groupMembers(pgid: number): number[] {
  const out = spawnSync('ps', ['-o', 'pid=', '-g', String(pgid)], { encoding: 'utf8' }).stdout ?? '';
  return out
    .split('\n')
    .map((l) => Number(l.trim()))
    .filter((n) => n > 0);
}

const tmuxRunning = (socket: string) =>
  spawnSync('tmux', ['-L', socket, 'has-session'], { stdio: 'ignore' }).status === 0;

function postmasterAlive(dataDir: string): boolean {
  try {
    const pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function startRunner(args: string[] = []): Promise<{ runner: ChildProcess; started: Started }> {
  const runner = spawn(
    process.execPath,
    ['-r', 'ts-node/register/transpile-only', join('test', 'support', 'leftover-runner.ts'), ...args],
    { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, TS_NODE_PROJECT: 'tsconfig.json' } },
  );
  let out = '';
  runner.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const line = await waitFor(() => out.split('\n').find((l) => l.startsWith('{')), {
    timeout: 60_000,
    what: 'the runner to start its servers',
  });
  return { runner, started: JSON.parse(line) as Started };
}

const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => child.once('exit', () => resolve()));

describe('leftovers of an interrupted test run', () => {
  it('should end its servers and tmux servers itself when interrupted with SIGINT', async () => {
    const { runner, started } = await startRunner();
    // the server and the child it starts in its group
    await waitFor(() => groupMembers(started.server).length === 2, { timeout: 10_000, what: 'the group of two' });
    expect(tmuxRunning(started.tmux)).toBe(true);
    runner.kill('SIGINT');
    await exited(runner);
    expect(runner.signalCode).toBe('SIGINT');
    await waitFor(() => groupMembers(started.server).length === 0, { timeout: 10_000, what: 'the group to end' });
    expect(tmuxRunning(started.tmux)).toBe(false);
  });

  it('should leave nothing once the next run cleans up after a runner killed outright, PostgreSQL included', async () => {
    const home = mkdtempSync(join(tmpdir(), 'svc-test-leftover-'));
    try {
      const { runner, started } = await startRunner(['--postgres', home]);
      await waitFor(() => groupMembers(started.server).length === 2, { timeout: 10_000, what: 'the group of two' });
      expect(postmasterAlive(started.postgres!)).toBe(true);
      runner.kill('SIGKILL');
      await exited(runner);
      // nothing ran in the runner: all of it is still there
      expect(groupMembers(started.server).length).toBe(2);
      expect(tmuxRunning(started.tmux)).toBe(true);
      expect(postmasterAlive(started.postgres!)).toBe(true);
      // what the next run's global setup does
      const report = cleanLeftovers();
      expect(report.groups).toBeGreaterThanOrEqual(1);
      expect(report.postgres).toBeGreaterThanOrEqual(1);
      expect(report.tmux).toBeGreaterThanOrEqual(1);
      await waitFor(() => groupMembers(started.server).length === 0, { timeout: 10_000, what: 'the group to end' });
      expect(tmuxRunning(started.tmux)).toBe(false);
      await waitFor(() => !postmasterAlive(started.postgres!), { timeout: 10_000, what: 'PostgreSQL to stop' });
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
