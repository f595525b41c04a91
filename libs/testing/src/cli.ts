import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { SVC_BIN } from './daemon-process';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunSvcOptions {
  env?: Record<string, string | undefined>;
  input?: string;
  cwd?: string;
  timeoutMs?: number;
}

// An empty folder of its own, so no `.svc.json` of the checkout the tests run from scopes the test's commands.
let neutral: string | undefined;
export function neutralCwd(): string {
  neutral ??= mkdtempSync(join(tmpdir(), 'svc-test-cwd-'));
  return neutral;
}

// Never throws on a non-zero exit: the test asserts on it.
export function runSvc(args: string[], options: RunSvcOptions = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [SVC_BIN, ...args],
      {
        // Never the user's own config folder: a test that needs one passes SVC_CONFIG_DIR.
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          SVC_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'svc-test-cli-config-')),
          ...options.env,
        } as NodeJS.ProcessEnv,
        cwd: options.cwd ?? neutralCwd(),
        timeout: options.timeoutMs ?? 30000,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    if (options.input !== undefined) child.stdin!.end(options.input);
    else child.stdin!.end();
  });
}

export function svcEnv(daemon: { url: string; token: string | null; configDir: string }): Record<string, string> {
  return { SVC_URL: daemon.url, SVC_TOKEN: daemon.token ?? '', SVC_CONFIG_DIR: daemon.configDir };
}

export function parseJson<T = unknown>(result: CliResult): T {
  try {
    return JSON.parse(result.stdout) as T;
  } catch {
    throw new Error(
      `svc did not print JSON (exit ${result.code}).\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`,
    );
  }
}
