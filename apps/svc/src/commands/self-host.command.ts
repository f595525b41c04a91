import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { Command, Option } from 'commander';

import { action, CliError } from '../output';
import { daemonEntry } from './daemon.command';

export const BUNDLE_ENV_FILE = '.env';
const DEFAULT_TRUSTED_PROXIES = '127.0.0.1,::1';

interface InitOptions {
  dir: string;
  protectExisting?: boolean;
  force?: boolean;
  start?: boolean;
  databaseUrl?: string;
  trustedProxies?: string;
  port?: string;
}

export function parseEnvFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (!match || line.trimStart().startsWith('#')) continue;
    const raw = match[2];
    env[match[1]] = /^(["']).*\1$/.test(raw) ? raw.slice(1, -1) : raw;
  }
  return env;
}

export function bundleEnv(dir: string, options: InitOptions): Record<string, string> {
  const env: Record<string, string> = {};
  if (options.databaseUrl) env.SVC_DATABASE_URL = options.databaseUrl;
  else env.SVC_HOME = join(dir, 'data');
  env.SVC_SERVER_SECRET = randomBytes(48).toString('base64url');
  env.SVC_API_TRUSTED_PROXIES = options.trustedProxies ?? DEFAULT_TRUSTED_PROXIES;
  env.SVC_BOOTSTRAP_TOKEN = `svc_${randomBytes(32).toString('base64url')}`;
  env.SVC_PORT = options.port ?? '7700';
  return env;
}

function renderEnv(env: Record<string, string>): string {
  return [
    '# svc self-host bundle (svc self-host init). Secrets: keep this file private (mode 0600).',
    '# SVC_BOOTSTRAP_TOKEN is the first-boot admin API token; SVC_SERVER_SECRET must be the same on every replica.',
    '# SVC_API_TRUSTED_PROXIES: proxy IPs or CIDRs whose X-Forwarded-For is believed; restart after a change with',
    '#   svc self-host init --dir <PATH> --protect-existing --start',
    ...Object.entries(env).map(([key, value]) => `${key}=${value}`),
    '',
  ].join('\n');
}

function writePrivate(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}

function startDaemon(env: Record<string, string>): void {
  const entry = daemonEntry();
  if (!existsSync(entry)) throw new CliError('daemon_missing', `${entry} not found; run npm run build first`);
  const child = spawn(process.execPath, [entry], { stdio: 'inherit', env: { ...process.env, ...env } });
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  child.on('exit', (code, signal) => {
    process.exitCode = code ?? (signal ? 128 : 1);
    process.removeListener('SIGINT', forward);
    process.removeListener('SIGTERM', forward);
  });
}

export function registerSelfHostCommand(program: Command): void {
  const group = program.command('self-host').description('set up and run a self-hosted svc server');

  group
    .command('init')
    .description('write a server bundle (<dir>/.env: database, server secret, trusted proxies, first-boot admin token)')
    .requiredOption('--dir <path>', 'bundle folder')
    .option('--protect-existing', 'keep an existing .env untouched (use it as it is)')
    .option('--force', 'replace an existing .env (new server secret and bootstrap token)')
    .option('--start', 'then run the daemon with the bundle in the foreground')
    .addOption(new Option('--database-url <url>', 'PostgreSQL URL (default: embedded database in <dir>/data)'))
    .addOption(
      new Option('--trusted-proxies <list>', 'proxy IPs/CIDRs, comma-separated').default(DEFAULT_TRUSTED_PROXIES),
    )
    .addOption(new Option('--port <port>', 'listen port').default('7700'))
    .action(
      action((options: InitOptions) => {
        const dir = resolve(options.dir);
        const path = join(dir, BUNDLE_ENV_FILE);
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        let env: Record<string, string>;
        if (existsSync(path) && options.protectExisting) {
          env = parseEnvFile(readFileSync(path, 'utf8'));
          process.stderr.write(`svc: keeping the existing bundle ${path}\n`);
        } else if (existsSync(path) && !options.force) {
          throw new CliError(
            'bundle_exists',
            `${path} exists; pass --protect-existing to keep it, or --force to replace it`,
          );
        } else {
          env = bundleEnv(dir, options);
          writePrivate(path, renderEnv(env));
          process.stderr.write(
            `svc: wrote ${path} (mode 0600); the first-boot admin token is its SVC_BOOTSTRAP_TOKEN\n`,
          );
        }
        if (options.start) startDaemon(env);
      }),
    );
}
