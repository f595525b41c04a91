import { Command } from 'commander';

import { connectedApiFor } from '@app/client';
import type { OrganizationWire } from '@app/contracts';

import { GlobalOptions } from '../context';
import { action, output, printKeyValues, printTable } from '../output';

const api = (command: Command) => connectedApiFor(command.optsWithGlobals<GlobalOptions>());

function printOrganization(o: OrganizationWire): void {
  printKeyValues([
    ['organization', o.slug],
    ['name', o.name],
    ['members', o.member_count],
    ['admins', o.admin_count],
    ['your role', o.role ?? '—'],
    ['created', o.created_at],
  ]);
}

export function registerOrgsCommand(program: Command): void {
  const group = program.command('orgs').description('organizations on this server (created by a server admin)');

  group
    .command('create')
    .description('create an organization (server admin); then: svc members add <actor> --role admin --org <slug>')
    .argument('<slug>', 'lower-case letters, digits and -')
    .option('--name <name>', 'a display name (default: the slug)')
    .action(
      action(async (slug: string, options: { name?: string }, command: Command) => {
        const created = await api(command).createOrganization({ slug, name: options.name });
        output(command, created, (o) =>
          process.stdout.write(
            `created organization ${o.slug}; make someone its admin with: svc members add <actor> --role admin --org ${o.slug}\n`,
          ),
        );
      }),
    );

  group
    .command('list')
    .description('list organizations: all of them for a server admin, else those you belong to')
    .action(
      action(async (_options: unknown, command: Command) => {
        const body = await api(command).organizations();
        output(command, body, (b) =>
          printTable(
            ['slug', 'name', 'members', 'admins', 'your role', 'created'],
            b.organizations.map((o) => [o.slug, o.name, o.member_count, o.admin_count, o.role ?? '—', o.created_at]),
          ),
        );
      }),
    );

  group
    .command('show')
    .description('show an organization and its members')
    .argument('<slug>')
    .action(
      action(async (slug: string, _options: unknown, command: Command) => {
        const body = await api(command).organization(slug);
        output(command, body, (o) => {
          printOrganization(o);
          process.stdout.write('\n');
          printTable(
            ['actor', 'role', 'status', 'since'],
            o.members.map((m) => [m.actor, m.role, m.status, m.created_at]),
          );
        });
      }),
    );
}
