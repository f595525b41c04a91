import { Command, Option } from 'commander';

import type { MachineAuthorizationRequest } from '@app/contracts';

import { apiOf } from '../context';
import { action, CliError, output, printKeyValues, printTable } from '../output';

// Hosted servers scope the functions by organization (/api/orgs/<slug>/v1/...); --org picks it.
interface OrgOption {
  org?: string;
}

export function shortDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

export function requestRow(r: MachineAuthorizationRequest, now = Date.now()): string[] {
  const expiresIn = Date.parse(r.expires_at) - now;
  return [
    r.request_id,
    r.machine_name,
    r.machine_id,
    r.client_address,
    shortDuration(now - Date.parse(r.created_at)),
    expiresIn > 0 ? shortDuration(expiresIn) : 'expired',
  ];
}

export function registerMachineAuthorizationCommand(program: Command): void {
  const group = program
    .command('machine-authorization')
    .description('read and decide the codes machines show when they connect (svc connect)');

  group
    .command('list')
    .description('the pending requests you may decide (no codes: type the code the machine shows to resolve)')
    .action(
      action(async (_options: unknown, command: Command) => {
        const body = await apiOf(command).machineAuthorizationRequests();
        output(command, body, (b) =>
          printTable(
            ['request', 'machine', 'machine id', 'address', 'age', 'expires in'],
            b.requests.map((r) => requestRow(r)),
          ),
        );
      }),
    );

  group
    .command('get')
    .description('show the machine waiting behind a code')
    .argument('<CODE>', 'the code the machine shows, e.g. BCDF-GHJK (any case, dash optional)')
    .addOption(new Option('--org <slug>', 'hosted servers: the organization deciding the code').env('SVC_ORG'))
    .action(
      action(async (code: string, options: OrgOption, command: Command) => {
        const record = await apiOf(command).machineAuthorization(code, options);
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
        const result = await apiOf(command).resolveMachineAuthorization({ code, action: options.action }, options);
        output(command, result, (r) => {
          process.stdout.write(`${r.code}: ${r.decision}\n`);
          if (r.decision === 'approved') process.stdout.write('the machine receives its credential at its next poll\n');
        });
      }),
    );
}
