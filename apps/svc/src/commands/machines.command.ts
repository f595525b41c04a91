import { Command } from 'commander';

import { apiOf } from '../context';
import { action, output, printTable } from '../output';
import { relativeTime } from '../time';

export function registerMachinesCommand(program: Command): void {
  const group = program.command('machines').description('machines connected with svc connect and their credentials');

  group
    .command('list')
    .description('list the machine credentials you may manage (yours; an admin sees every one)')
    .option('--all', 'include revoked credentials')
    .action(
      action(async (options: { all?: boolean }, command: Command) => {
        const body = await apiOf(command).machines({ include_revoked: Boolean(options.all) });
        output(command, body, (b) =>
          printTable(
            ['machine id', 'name', 'person', 'org', 'credential', 'created', 'last used', 'expires', 'revoked'],
            b.machines.map((m) => [
              m.machine_id,
              m.machine_name,
              m.actor,
              m.org,
              m.token_prefix,
              relativeTime(m.created_at),
              relativeTime(m.last_used_at),
              relativeTime(m.expires_at),
              relativeTime(m.revoked_at),
            ]),
          ),
        );
      }),
    );

  group
    .command('revoke')
    .description('revoke a machine credential: its next request is refused (401) on every replica')
    .argument('<machine_id>', 'the machine id shown by svc machines list')
    .action(
      action(async (machineId: string, _options: unknown, command: Command) => {
        const body = await apiOf(command).revokeMachine(machineId);
        output(command, body, (b) => process.stdout.write(`revoked ${b.revoked} credential(s) of ${b.machine_id}\n`));
      }),
    );
}
