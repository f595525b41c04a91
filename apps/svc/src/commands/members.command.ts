import { Command, Option } from 'commander';

import { connectedApiFor } from '@app/client';

import { GlobalOptions } from '../context';
import { action, output, printTable } from '../output';

const api = (command: Command) => connectedApiFor(command.optsWithGlobals<GlobalOptions>());

export function registerMembersCommand(program: Command): void {
  const group = program.command('members').description("an organization's members and their roles");

  group
    .command('list')
    .description('list the members of an organization')
    .option('--org <slug>', 'organization (default: yours)')
    .action(
      action(async (options: { org?: string }, command: Command) => {
        const body = await api(command).members(options.org);
        output(command, body, (b) =>
          printTable(
            ['org', 'actor', 'role', 'status', 'since'],
            b.members.map((m) => [m.org, m.actor, m.role, m.status, m.created_at]),
          ),
        );
      }),
    );

  group
    .command('add')
    .description('add an actor to an organization, or change their role')
    .argument('<actor>')
    .addOption(new Option('--role <role>', 'admin or member').choices(['admin', 'member']).default('member'))
    .option('--org <slug>', 'organization (default: yours)')
    .action(
      action(async (actor: string, options: { role: 'admin' | 'member'; org?: string }, command: Command) => {
        const m = await api(command).addMember({ actor, role: options.role, org: options.org });
        output(command, m, (b) => process.stdout.write(`${b.actor} is ${b.role} of ${b.org}\n`));
      }),
    );

  group
    .command('remove')
    .description('remove an actor from an organization (never its last admin)')
    .argument('<actor>')
    .option('--org <slug>', 'organization (default: yours)')
    .action(
      action(async (actor: string, options: { org?: string }, command: Command) => {
        const body = await api(command).removeMember({ actor, org: options.org });
        output(command, body, (b) => process.stdout.write(`${b.actor} removed from ${b.org}\n`));
      }),
    );
}
