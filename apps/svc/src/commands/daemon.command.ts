import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

import { Command } from 'commander';

import { DAEMON_NODE_FLAGS } from '@app/client/daemon-launch';

export function daemonEntry(): string {
  return join(__dirname, '..', '..', '..', 'daemon', 'src', 'main.js');
}

export function registerDaemonCommand(program: Command): void {
  program
    .command('daemon')
    .description('run the svc daemon in the foreground (embedded PostgreSQL unless SVC_DATABASE_URL is set)')
    .option('--port <port>', 'listen port (env SVC_PORT, default 7700)')
    .option('--host <host>', 'listen address (env SVC_HOST, default 127.0.0.1)')
    .option('--home <dir>', 'data folder of the embedded database (env SVC_HOME)')
    .action((options: { port?: string; host?: string; home?: string }) => {
      const entry = daemonEntry();
      if (!existsSync(entry)) {
        process.stderr.write(`error: daemon_missing: ${entry} not found; run npm run build first\n`);
        process.exitCode = 1;
        return;
      }
      const env = { ...process.env };
      if (options.port) env.SVC_PORT = options.port;
      if (options.host) env.SVC_HOST = options.host;
      if (options.home) env.SVC_HOME = options.home;
      const child = spawn(process.execPath, [...DAEMON_NODE_FLAGS, entry], { stdio: 'inherit', env });
      const forward = (signal: NodeJS.Signals) => child.kill(signal);
      process.on('SIGINT', forward);
      process.on('SIGTERM', forward);
      child.on('exit', (code, signal) => {
        process.exitCode = code ?? (signal ? 128 : 1);
        process.removeListener('SIGINT', forward);
        process.removeListener('SIGTERM', forward);
      });
    });
}
