import { Command, Option } from 'commander';

import { connectedApiFor } from '@app/client';
import type { ActorWire } from '@app/contracts';

import { GlobalOptions } from '../context';
import { action, output, printKeyValues, printTable } from '../output';

const api = (command: Command) => connectedApiFor(command.optsWithGlobals<GlobalOptions>());

const memberships = (a: ActorWire) =>
  a.memberships.map((m) => `${m.org}:${m.role}${m.status === 'active' ? '' : ' (disabled)'}`).join(', ');

function printActor(a: ActorWire): void {
  printKeyValues([
    ['actor', `${a.name} (#${a.actor_id})`],
    ['kind', a.kind],
    ['email', a.email],
    ['status', a.status],
    ['server admin', a.is_admin],
    ['company sign-in', a.company_sign_in ? 'linked' : 'no'],
    ['memberships', memberships(a)],
    ['created', a.created_at],
  ]);
}

export function registerActorsCommand(program: Command): void {
  const group = program.command('actors').description('people and agents on this server (admins)');

  group
    .command('create')
    .description('create a person or agent and make them a member of your organization')
    .argument('<name>', 'unique name: letters, digits, . _ -')
    .option('--email <email>', 'their email (company sign-in links to it)')
    .option('--admin', 'an admin (of the organization; on a self-hosted server also of the server)')
    .addOption(new Option('--kind <kind>', 'person or agent').choices(['person', 'agent']).default('person'))
    .option('--org <slug>', 'organization (default: yours)')
    .action(
      action(
        async (
          name: string,
          options: { email?: string; admin?: boolean; kind: 'person' | 'agent'; org?: string },
          command: Command,
        ) => {
          const actor = await api(command).createActor({
            name,
            email: options.email,
            kind: options.kind,
            admin: options.admin ? true : undefined,
            org: options.org,
          });
          output(command, actor, (a) => {
            process.stdout.write(
              `created ${a.kind} ${a.name}; give them a token with: svc tokens create --actor ${a.name}\n`,
            );
          });
        },
      ),
    );

  group
    .command('list')
    .description('list the actors you administer')
    .action(
      action(async (_options: unknown, command: Command) => {
        const body = await api(command).actors();
        output(command, body, (b) =>
          printTable(
            ['name', 'kind', 'email', 'status', 'admin', 'memberships'],
            b.actors.map((a) => [a.name, a.kind, a.email, a.status, a.is_admin ? 'server' : '', memberships(a)]),
          ),
        );
      }),
    );

  group
    .command('show')
    .description('show one actor')
    .argument('<name>')
    .action(
      action(async (name: string, _options: unknown, command: Command) => {
        output(command, await api(command).actor(name), printActor);
      }),
    );

  for (const [verb, status, text] of [
    ['disable', 'disabled', 'refuses their tokens, machine credentials and approvals at once'],
    ['enable', 'active', 'lets a disabled actor back in'],
  ] as const) {
    group
      .command(verb)
      .description(`${verb} an actor: ${text}`)
      .argument('<name>')
      .action(
        action(async (name: string, _options: unknown, command: Command) => {
          const actor = await api(command).setActorStatus(name, status);
          output(command, actor, (a) => process.stdout.write(`${a.name} is ${a.status}\n`));
        }),
      );
  }
}
