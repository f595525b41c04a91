import { Command } from 'commander';

import { apiOf } from '../context';
import { action, output, printKeyValues } from '../output';

export function registerWhoAmICommand(program: Command): void {
  program
    .command('whoami')
    .description('show the actor the current credential authenticates as')
    .action(
      action(async (_options: unknown, command: Command) => {
        const me = await apiOf(command).whoami();
        output(command, me, (m) =>
          printKeyValues([
            ['actor', `${m.name} (#${m.actor_id})`],
            ['admin', m.is_admin],
            ['via', m.via],
            ['machine', m.machine_id],
          ]),
        );
      }),
    );
}
