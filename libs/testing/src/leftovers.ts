import { ChildProcess, spawn, SpawnOptions, spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Daemons, embedded PostgreSQL servers (detached by design) and tmux servers (they daemonize) outlive an interrupted
// run. Each is written to a run file named after the process that started it, and the next run's global setup ends
// what a dead process's file lists. A live run's things are never touched: several runs share these machines.

export type Leftover =
  | { kind: 'group'; pid: number; start: string | null } // a process group: its leader's pid and start time
  | { kind: 'postgres'; dataDir: string } // an embedded PostgreSQL server's data folder (postmaster.pid inside)
  | { kind: 'home'; path: string }; // a temporary folder to remove once the rest is stopped

export const RUNS_DIR = join(tmpdir(), 'svc-test-runs');

// Ticks since boot, so a recycled pid is not mistaken for the process that wrote a run file.
export function processStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command name (field 2) may hold spaces and parentheses: count fields after its closing parenthesis
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    try {
      process.kill(pid, 0);
      return 'unknown';
    } catch {
      return null;
    }
  }
}

function runFile(pid = process.pid): string {
  return join(RUNS_DIR, `${pid}-${processStart(pid) ?? 'gone'}.jsonl`);
}

const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
let exitHooked = false;

// The recorded groups are not in the terminal's group, so Ctrl-C does not reach them: end them on a signal and at
// exit. SIGKILL leaves all of it to the next run.
function hookExit(): void {
  if (exitHooked) return;
  exitHooked = true;
  const onSignal = (signal: NodeJS.Signals) => {
    for (const s of SIGNALS) process.removeListener(s, onSignal);
    cleanLeftovers({ own: true });
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };
  for (const signal of SIGNALS) process.once(signal, onSignal);
  process.once('exit', () => cleanLeftovers({ own: true, groupsOnly: true }));
}

export function recordLeftover(entry: Leftover): void {
  mkdirSync(RUNS_DIR, { recursive: true });
  appendFileSync(runFile(), `${JSON.stringify(entry)}\n`);
  hookExit();
}

// Its own group, so a terminal's Ctrl-C meant for the test runner does not cut its drain short.
export function spawnRecorded(command: string, args: readonly string[], options: SpawnOptions = {}): ChildProcess {
  const child = spawn(command, args, { ...options, detached: true });
  if (child.pid !== undefined) recordLeftover({ kind: 'group', pid: child.pid, start: processStart(child.pid) });
  return child;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function killGroup(pid: number, signal: NodeJS.Signals = 'SIGKILL'): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      return;
    }
  }
}

// Only if its postmaster still runs and is that server (its command line names the folder).
export function stopPostgres(dataDir: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return false;
  }
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return false;
  try {
    if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dataDir)) return false;
  } catch {
    // no /proc: trust postmaster.pid
  }
  // the postmaster leads its own group (spawned detached); SIGQUIT is PostgreSQL's immediate shutdown
  killGroup(pid, 'SIGQUIT');
  const deadline = Date.now() + 5000;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  while (alive(pid) && Date.now() < deadline) Atomics.wait(pause, 0, 0, 50);
  if (alive(pid)) killGroup(pid, 'SIGKILL');
  return true;
}

const tmuxDir = () => join(process.env.TMUX_TMPDIR ?? '/tmp', `tmux-${process.getuid?.() ?? 0}`);

// tmux servers the TUI tests start on private sockets named svc-tui-<pid>-<random> (apps/tui/src/testing/tmux.ts),
// <pid> being the test process: a server whose test process is gone (or, with `own`, is this one) is a leftover.
function tmuxLeftovers(own: boolean): string[] {
  const dir = tmuxDir();
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.filter((name) => {
    const match = /^svc-tui-(\d+)-[0-9a-f]+$/.exec(name);
    return match !== null && ((own && Number(match[1]) === process.pid) || !alive(Number(match[1])));
  });
}

function groupAlive(entry: { pid: number; start: string | null }): boolean {
  const start = processStart(entry.pid);
  return start !== null && (entry.start === null || start === entry.start);
}

export interface CleanupReport {
  runs: number;
  groups: number;
  postgres: number;
  tmux: number;
}

// Groups first, then PostgreSQL servers, then folders.
export function cleanLeftovers(options: { own?: boolean; groupsOnly?: boolean } = {}): CleanupReport {
  const report: CleanupReport = { runs: 0, groups: 0, postgres: 0, tmux: 0 };
  let files: string[] = [];
  try {
    files = readdirSync(RUNS_DIR).filter((f) => f.endsWith('.jsonl'));
  } catch {
    // no run has recorded anything
  }
  const mine = runFile();
  for (const file of files) {
    const path = join(RUNS_DIR, file);
    const match = /^(\d+)-(.+)\.jsonl$/.exec(file);
    if (!match) continue;
    const over = processStart(Number(match[1])) !== match[2];
    if (!over && !(options.own && path === mine)) continue;
    let entries: Leftover[] = [];
    try {
      entries = readFileSync(path, 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as Leftover);
    } catch {
      // a line cut by the interruption: what was read before it is still ended below
    }
    const order: Leftover['kind'][] = options.groupsOnly ? ['group'] : ['group', 'postgres', 'home'];
    for (const kind of order) {
      for (const entry of entries.filter((e) => e.kind === kind)) {
        if (entry.kind === 'group') {
          if (!groupAlive(entry)) continue;
          killGroup(entry.pid);
          report.groups += 1;
        } else if (entry.kind === 'postgres') {
          if (stopPostgres(entry.dataDir)) report.postgres += 1;
        } else {
          rmSync(entry.path, { recursive: true, force: true });
        }
      }
    }
    if (!options.groupsOnly) rmSync(path, { force: true });
    report.runs += 1;
  }
  if (options.groupsOnly) return report;
  for (const socket of tmuxLeftovers(options.own === true)) {
    spawnSync('tmux', ['-L', socket, 'kill-server'], { stdio: 'ignore' });
    rmSync(join(tmuxDir(), socket), { force: true });
    report.tmux += 1;
  }
  return report;
}
