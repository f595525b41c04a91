import { Command } from 'commander';

import { action, CliError, output } from '../output';
import { runOffline } from './offline-tool';

export function registerAdminCommand(program: Command): void {
  const admin = program.command('admin').description('break-glass administration of this server (no daemon needed)');
  admin
    .command('token')
    .description(
      'with --offline: mint a new API token for the server admin straight in the database (SVC_DATABASE_URL, else ' +
        'the embedded one of SVC_HOME), with no daemon running; printed once, recorded with path offline',
    )
    .option('--offline', 'write to the database directly (the only mode: with a daemon up, use svc tokens create)')
    .option('--name <name>', 'the token’s name (default: break-glass <date time>)')
    .action(
      action(async (options: { offline?: boolean; name?: string }, command: Command) => {
        if (!options.offline) {
          throw new CliError(
            'offline_required',
            'svc admin token writes to the database directly: pass --offline (with a daemon up, svc tokens create)',
            2,
          );
        }
        const minted = await runOffline((tool) => tool.mintAdminToken(process.env, options.name));
        output(command, minted, (m) => {
          process.stderr.write(
            `svc: a new API token for ${m.actor} (id ${m.token_id}), recorded with path offline; shown once, keep it:\n`,
          );
          process.stdout.write(`${m.token}\n`);
        });
      }),
    );
}
