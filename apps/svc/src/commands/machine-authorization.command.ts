import { Command, Option } from 'commander';

import type { MachineAuthorizationRecord, MachineAuthorizationResolveResponse } from '@app/contracts';

import { clientFor } from '../context';
import { action, CliError, output, printKeyValues } from '../output';

interface OrgOption {
  org?: string;
}

// Hosted servers scope the functions by organization (/api/orgs/<slug>/v1/...); --org picks it.
function functionsPath(options: OrgOption, rest: string): string {
  return options.org ? `api/orgs/${encodeURIComponent(options.org)}/v1/${rest}` : `v1/${rest}`;
}

export function registerMachineAuthorizationCommand(program: Command): void {
  const group = program
    .command('machine-authorization')
    .description('read and decide the codes machines show when they connect (svc connect)');

  group
    .command('get')
    .description('show the machine waiting behind a code')
    .argument('<CODE>', 'the code the machine shows, e.g. BCDF-GHJK (any case, dash optional)')
    .addOption(new Option('--org <slug>', 'hosted servers: the organization deciding the code').env('SVC_ORG'))
    .action(
      action(async (code: string, options: OrgOption, command: Command) => {
        const record = await clientFor(command).get<MachineAuthorizationRecord>(
          functionsPath(options, `machine-authorizations/${encodeURIComponent(code)}`),
        );
        output(command, record, (r) =>
          printKeyValues([
            ['code', r.code],
            ['machine', r.machine_name],
            ['machine id', r.machine_id],
            ['expires', r.expires_at],
            ['decision', r.decision],
          ]),
        );
      }),
    );

  group
    .command('resolve')
    .description('approve or deny a code: your own decision, for your own machine')
    .argument('<CODE>', 'the code the machine shows')
    .addOption(new Option('--action <action>', 'approve or deny').choices(['approve', 'deny']).makeOptionMandatory())
    .addOption(new Option('--org <slug>', 'hosted servers: the organization the machine joins').env('SVC_ORG'))
    .action(
      action(async (code: string, options: OrgOption & { action: string }, command: Command) => {
        if (options.action !== 'approve' && options.action !== 'deny') {
          throw new CliError('invalid_request', '--action must be approve or deny');
        }
        const result = await clientFor(command).post<MachineAuthorizationResolveResponse>(
          functionsPath(options, 'machine-authorizations/resolve'),
          { code, action: options.action },
        );
        output(command, result, (r) => {
          process.stdout.write(`${r.code}: ${r.decision}\n`);
          if (r.decision === 'approved') process.stdout.write('the machine receives its credential at its next poll\n');
        });
      }),
    );
}
