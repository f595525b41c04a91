import { Command } from 'commander';

import { clientFor } from '../context';
import { action, output, printKeyValues } from '../output';

interface WhoAmI {
  actor_id: number;
  name: string;
  is_admin: boolean;
  via: string;
  machine_id: string | null;
}

export function registerWhoAmICommand(program: Command): void {
  program
    .command('whoami')
    .description('show the actor the current credential authenticates as')
    .action(
      action(async (_options: unknown, command: Command) => {
        const me = await clientFor(command).get<WhoAmI>('v1/whoami');
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
