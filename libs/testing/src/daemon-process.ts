import { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { DAEMON_NODE_FLAGS } from '@app/client/daemon-launch';

import { recordLeftover, spawnRecorded } from './leftovers';

export const REPO_ROOT = resolve(__dirname, '..', '..', '..');
export const DAEMON_ENTRY = join(REPO_ROOT, 'dist', 'apps', 'daemon', 'src', 'main.js');
export const SVC_BIN = join(REPO_ROOT, 'bin', 'svc.js');

export interface DaemonProcess {
  url: string;
  port: number;
  token: string | null;
  configDir: string;
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
  kill: () => Promise<void>;
}

export interface StartDaemonOptions {
  env?: Record<string, string | undefined>;
  // node's own flags before the entry point (e.g. --cpu-prof, which NODE_OPTIONS does not take)
  nodeArgs?: string[];
  configDir?: string;
  timeoutMs?: number;
  port?: number;
}

export function storedToken(configDir: string, url: string): string | null {
  try {
    const file = JSON.parse(readFileSync(join(configDir, 'credentials.json'), 'utf8')) as {
      current?: string | null;
      servers?: { url: string; token: string }[];
    };
    const servers = file.servers ?? [];
    const entry = servers.find((s) => s.url === url) ?? servers.find((s) => s.url === file.current);
    return entry?.token ?? null;
  } catch {
    return null;
  }
}

// Each daemon gets its own temporary SVC_HOME and SVC_CONFIG_DIR unless the test passes one: a test never shares
// them with a daemon the user runs.
export function startDaemonProcess(options: StartDaemonOptions = {}): Promise<DaemonProcess> {
  const configDir = options.configDir ?? mkdtempSync(join(tmpdir(), 'svc-test-config-'));
  const env: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    SVC_HOME: mkdtempSync(join(tmpdir(), 'svc-test-home-')),
    SVC_PORT: String(options.port ?? 0),
    SVC_HOST: '127.0.0.1',
    SVC_CONFIG_DIR: configDir,
    SVC_LOG_LEVEL: 'warn',
    ...options.env,
  };
  // Recorded so that an interrupted run leaves neither it nor its embedded PostgreSQL behind (leftovers.ts).
  if (!env.SVC_DATABASE_URL && env.SVC_HOME) recordLeftover({ kind: 'postgres', dataDir: join(env.SVC_HOME, 'pg') });
  const child = spawnRecorded(process.execPath, [...DAEMON_NODE_FLAGS, ...(options.nodeArgs ?? []), DAEMON_ENTRY], {
    env: env as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`daemon did not start in time.\nstdout:\n${out}\nstderr:\n${err}`));
    }, options.timeoutMs ?? 30000);
    const check = () => {
      const match = /listening on (http:\/\/[^\s"]+)/.exec(err);
      if (!match) return;
      clearTimeout(timer);
      const url = match[1];
      // The first-boot banner (stderr, written with the "listening" line) shows the token only on a terminal; piped,
      // as here, the first boot leaves it in the credential file only.
      const tokenMatch = /^[\s│]+(svc_[A-Za-z0-9_-]+)[\s│]*$/m.exec(err);
      const token = tokenMatch ? tokenMatch[1] : /first boot/.test(err) ? storedToken(configDir, url) : null;
      resolvePromise({
        url,
        port: Number(new URL(url).port),
        token,
        configDir,
        child,
        stdout: () => out,
        stderr: () => err,
        stop: async (signal: NodeJS.Signals = 'SIGTERM') => {
          if (child.exitCode === null) child.kill(signal);
          return exited;
        },
        kill: async () => {
          if (child.exitCode === null) child.kill('SIGKILL');
          await exited;
        },
      });
    };
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      check();
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      check();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`daemon exited with code ${code} before listening.\nstdout:\n${out}\nstderr:\n${err}`));
    });
  });
}
