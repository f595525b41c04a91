import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { Command, Option } from 'commander';

import { apiFor, Connection, DAEMON_NODE_FLAGS, resolveConnection, SvcConnectionError, svcHome } from '@app/client';

import { connectionFor } from '../context';
import { action, CliError } from '../output';
import { daemonEntry } from './daemon.command';
import { loadOfflineTool } from './offline-tool';

// daemon.lock belongs to the daemon itself.
export const DAEMON_LOG = 'daemon.log';
export const DAEMON_PID = 'daemon.pid';
export const UP_READY_TIMEOUT_S = 120;

export function tuiEntry(): string {
  return join(__dirname, '..', '..', '..', 'tui', 'src', 'main.js');
}

export interface UpFiles {
  home: string;
  log: string;
  pid: string;
}

export function upFiles(env: NodeJS.ProcessEnv = process.env): UpFiles {
  const home = svcHome(env);
  return { home, log: join(home, DAEMON_LOG), pid: join(home, DAEMON_PID) };
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function runningPid(files: UpFiles): number | null {
  let text: string;
  try {
    text = readFileSync(files.pid, 'utf8').trim();
  } catch {
    return null;
  }
  const pid = Number(text);
  if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) return pid;
  rmSync(files.pid, { force: true });
  return null;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function probe(url: string): Promise<'ready' | 'starting' | 'absent'> {
  try {
    return (await apiFor({ url, token: null }).ready()).ok ? 'ready' : 'starting';
  } catch (err) {
    if (err instanceof SvcConnectionError) return 'absent';
    throw err;
  }
}

// The SVC_HOME of the daemon answering at `url`, as its /healthz names it (a daemon listening on loopback does);
// null when it does not say (an older daemon, one listening beyond this machine) or nobody answers.
async function homeOf(url: string): Promise<string | null> {
  try {
    const res = await fetch(new URL('healthz', url.endsWith('/') ? url : `${url}/`), {
      signal: AbortSignal.timeout(5000),
    });
    const body = (await res.json()) as { home?: unknown };
    return typeof body.home === 'string' ? body.home : null;
  } catch {
    return null;
  }
}

// A daemon of another home answering at the configured URL is not this home's: refused, naming both.
async function refuseOtherHome(url: string, files: UpFiles): Promise<void> {
  const other = await homeOf(url);
  if (other === null || resolve(other) === resolve(files.home)) return;
  throw new CliError(
    'daemon_of_another_home',
    `the daemon at ${url} serves another SVC_HOME (${other}), not ${files.home}; stop it ` +
      `(SVC_HOME=${other} svc down) or run this home's daemon on another port (SVC_URL=http://127.0.0.1:7701 svc up)`,
    2,
  );
}

const PROGRESS = /^(applied \d+ migration|listening on|embedded PostgreSQL|starting|initializing)/i;

// Why the daemon stopped, in its own words: its notes ("svc daemon: …", or JSON records of level warn and above)
// written to the log since `offset`.
export function exitReason(log: string, offset: number): string | null {
  let text: string;
  try {
    text = readFileSync(log, 'utf8').slice(offset);
  } catch {
    return null;
  }
  const reasons: string[] = [];
  for (const line of text.split('\n')) {
    let message: string | null = null;
    if (line.startsWith('{')) {
      try {
        const record = JSON.parse(line) as { level?: unknown; msg?: unknown };
        if (typeof record.msg === 'string' && (Number(record.level) >= 40 || record.level === 'error'))
          message = record.msg.replace(/^svc daemon: /, '');
      } catch {
        // not a record
      }
    } else if (line.startsWith('svc daemon: ')) message = line.slice('svc daemon: '.length);
    else if (/^\s+- /.test(line) && reasons.length > 0) reasons[reasons.length - 1] += `; ${line.trim().slice(2)}`;
    if (message && !PROGRESS.test(message)) reasons.push(message.trim());
  }
  return reasons.length > 0 ? reasons.slice(-2).join('; ') : null;
}

// What the offline doctor finds wrong on this home or database (a newer schema, the lock held, a secret that differs,
// PostgreSQL unreachable): its failed checks, one line each.
async function offlineFindings(env: NodeJS.ProcessEnv): Promise<string[]> {
  try {
    const checks = await loadOfflineTool().offlineDoctor(env);
    return checks.filter((c) => c.status === 'fail').map((c) => `${c.check}: ${c.detail}`);
  } catch {
    return [];
  }
}

function announcedUrl(log: string, offset: number): string | null {
  try {
    const text = readFileSync(log, 'utf8').slice(offset);
    return /listening on (http:\/\/[^\s"]+)/.exec(text)?.[1] ?? null;
  } catch {
    return null;
  }
}

const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1', '0.0.0.0']);

export interface UpResult {
  url: string;
  started: boolean;
  pid: number | null;
  files: UpFiles;
}

export async function up(
  connection: Connection,
  options: { timeoutSeconds: number; say: (text: string) => void },
  env: NodeJS.ProcessEnv = process.env,
): Promise<UpResult> {
  const files = upFiles(env);
  const state = await probe(connection.url);
  if (state !== 'absent') await refuseOtherHome(connection.url, files);
  const known = runningPid(files);
  if (state === 'ready') return { url: connection.url, started: false, pid: known, files };

  const target = new URL(connection.url);
  let url = connection.url;
  let pid = known;
  let offset = 0;
  let started = false;
  if (state === 'absent' && known === null) {
    if (!LOCAL_HOSTS.has(target.hostname)) {
      throw new CliError(
        'daemon_unreachable',
        `nothing answers at ${connection.url}, and svc up starts only a daemon on this machine ` +
          '(use --url http://127.0.0.1:7700, or start the remote daemon there)',
        2,
      );
    }
    const entry = daemonEntry();
    if (!existsSync(entry)) throw new CliError('daemon_missing', `${entry} not found; run npm run build first`);
    mkdirSync(files.home, { recursive: true, mode: 0o700 });
    offset = existsSync(files.log) ? statSync(files.log).size : 0;
    const log = openSync(files.log, 'a', 0o600);
    const child = spawn(process.execPath, [...DAEMON_NODE_FLAGS, entry], {
      detached: true,
      stdio: ['ignore', log, log],
      env: {
        ...env,
        SVC_HOME: files.home,
        // the log is a file: the first-boot token goes to the credential file only, never into the log
        SVC_PRINT_BOOTSTRAP_TOKEN: 'false',
        // the configured URL decides where the daemon listens, unless SVC_HOST/SVC_PORT say otherwise
        SVC_HOST:
          env.SVC_HOST ?? (target.hostname === 'localhost' ? '127.0.0.1' : target.hostname.replace(/^\[|\]$/g, '')),
        SVC_PORT: env.SVC_PORT ?? (target.port || '7700'),
      },
    });
    closeSync(log);
    if (child.pid === undefined) throw new CliError('daemon_spawn_failed', 'the daemon process could not be started');
    child.unref();
    pid = child.pid;
    writeFileSync(files.pid, `${pid}\n`, { mode: 0o600 });
    started = true;
    options.say(`svc up: starting the daemon (pid ${pid}); log: ${files.log}`);
  } else {
    options.say(`svc up: waiting for the daemon${known ? ` (pid ${known})` : ''} at ${connection.url}`);
  }

  const deadline = Date.now() + options.timeoutSeconds * 1000;
  for (;;) {
    // A daemon told to listen on port 0 (or elsewhere by SVC_PORT) says where in its log.
    if (started) url = announcedUrl(files.log, offset) ?? url;
    if ((await probe(url)) === 'ready') {
      return { url, started, pid, files };
    }
    if (pid !== null && !isAlive(pid)) {
      rmSync(files.pid, { force: true });
      const reason = started ? exitReason(files.log, offset) : null;
      const findings = await offlineFindings({ ...env, SVC_HOME: files.home });
      const why = [reason, ...findings.filter((f) => !reason?.includes(f))].filter((r): r is string => Boolean(r));
      throw new CliError(
        'daemon_exited',
        `the daemon exited before it was ready: ${why.length > 0 ? why.join('\n  ') : 'no reason in its log'}\n` +
          `(svc doctor explains; log: ${files.log})`,
      );
    }
    if (Date.now() > deadline) {
      throw new CliError(
        'daemon_not_ready',
        `the daemon did not answer /readyz at ${url} within ${options.timeoutSeconds} s; see ${files.log}`,
      );
    }
    await sleep(250);
  }
}

export async function down(
  options: { timeoutSeconds: number; say: (text: string) => void },
  env: NodeJS.ProcessEnv = process.env,
): Promise<boolean> {
  const files = upFiles(env);
  const pid = runningPid(files);
  if (pid === null) {
    options.say(`svc down: no daemon started by svc up is running (no live pid in ${files.pid})`);
    return false;
  }
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + options.timeoutSeconds * 1000;
  while (isAlive(pid)) {
    if (Date.now() > deadline) {
      throw new CliError(
        'daemon_still_running',
        `the daemon (pid ${pid}) did not stop within ${options.timeoutSeconds} s; see ${files.log}`,
      );
    }
    await sleep(100);
  }
  rmSync(files.pid, { force: true });
  options.say(`svc down: stopped the daemon (pid ${pid})`);
  return true;
}

interface TuiModule {
  runTui?: (argv: string[], options?: { exitMessage?: boolean }) => Promise<number>;
}

// The url and token reach the TUI through the environment.
export async function openTui(connection: Connection, argv: string[]): Promise<number> {
  const entry = tuiEntry();
  if (!existsSync(entry)) throw new CliError('tui_missing', `${entry} not found; run npm run build first`);
  process.env.SVC_URL = connection.url;
  if (connection.token) process.env.SVC_TOKEN = connection.token;
  else delete process.env.SVC_TOKEN;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const tui = require(entry) as TuiModule;
  if (typeof tui.runTui !== 'function') throw new CliError('tui_missing', `${entry} does not export runTui`);
  const code = await tui.runTui(argv, { exitMessage: false });
  if (argv.includes('--print-config')) return code;
  const files = upFiles();
  const pid = runningPid(files);
  if (pid !== null && code === 0) {
    process.stdout.write(
      `svc: the daemon keeps running in the background (pid ${pid}, log ${files.log}); stop it with \`svc down\`\n`,
    );
  }
  return code;
}

function tuiArgs(options: { project?: string; readOnly?: boolean; printConfig?: boolean }): string[] {
  return [
    ...(options.project ? ['--project', options.project] : []),
    ...(options.readOnly ? ['--read-only'] : []),
    ...(options.printConfig ? ['--print-config'] : []),
  ];
}

const timeoutOption = () =>
  new Option('--timeout <seconds>', 'how long to wait').default(String(UP_READY_TIMEOUT_S)).argParser((v) => {
    if (!/^[0-9]+$/.test(v) || Number(v) < 1) throw new CliError('validation_failed', '--timeout must be seconds');
    return v;
  });

export function registerUpCommands(program: Command): void {
  program
    .command('tui')
    .description('open the terminal UI on the daemon this command line is configured for')
    .option('--project <project>', 'open this project (default: the first one; P switches)')
    .option('--read-only', 'browse only: charge, approve and deny are disabled')
    .option(
      '--print-config',
      'print the TUI settings in effect ($XDG_CONFIG_HOME/svc/tui.json, else ~/.config/svc/tui.json) and exit',
    )
    .action(
      action(async (options: { project?: string; readOnly?: boolean; printConfig?: boolean }, command: Command) => {
        process.exit(await openTui(connectionFor(command), tuiArgs(options)));
      }),
    );

  program
    .command('up')
    .description(
      'start the local daemon in the background when none answers (embedded database; log and pid in SVC_HOME), ' +
        'wait until it is ready, then open the terminal UI',
    )
    .option('--no-tui', 'start the daemon only')
    .option('--project <project>', 'the project the TUI opens')
    .option('--read-only', 'open the TUI read-only')
    .addOption(timeoutOption())
    .action(
      action(
        async (options: { tui: boolean; project?: string; readOnly?: boolean; timeout: string }, command: Command) => {
          const say = (text: string) => process.stderr.write(`${text}\n`);
          const result = await up(connectionFor(command), { timeoutSeconds: Number(options.timeout), say });
          if (result.started) say(`svc up: the daemon is ready at ${result.url}; \`svc down\` stops it`);
          else say(`svc up: a daemon already answers at ${result.url}`);
          if (!options.tui) return;
          if (!process.stdin.isTTY || !process.stdout.isTTY) {
            say('svc up: not a terminal, so the TUI stays closed; open it later with `svc tui`');
            return;
          }
          // The daemon's first boot wrote the credential file; read the token again.
          const { token } = resolveConnection({ ...command.optsWithGlobals<{ token?: string }>(), url: result.url });
          process.exit(await openTui({ url: result.url, token }, tuiArgs(options)));
        },
      ),
    );

  program
    .command('down')
    .description('stop the daemon svc up started (SIGTERM, then wait for it to drain and exit)')
    .addOption(timeoutOption())
    .action(
      action(async (options: { timeout: string }) => {
        await down({ timeoutSeconds: Number(options.timeout), say: (text) => process.stdout.write(`${text}\n`) });
      }),
    );
}
