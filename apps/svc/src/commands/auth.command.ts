import { Command } from 'commander';

import {
  defaultConfigDir,
  envSetting,
  findCredentials,
  NotConnectedError,
  readCredentialFile,
  removeCredentials,
  StoredCredentials,
  SvcApi,
  SvcClient,
  SvcConnectionError,
  SvcHttpError,
  switchCredentials,
} from '@app/client';

import { GlobalOptions } from '../context';
import { action, CliError, output, printKeyValues, printTable } from '../output';

export interface AuthStatus {
  server: string;
  current: boolean;
  kind: string;
  org: string | null;
  machine_id: string | null;
  identity: string | null;
  expires_at: string | null;
  daemon: 'answers' | 'unreachable';
  credential: 'accepted' | 'refused' | 'unknown';
  error: string | null;
}

async function statusOf(entry: StoredCredentials, current: boolean): Promise<AuthStatus> {
  const status: AuthStatus = {
    server: entry.url,
    current,
    kind: entry.kind ?? 'api_token',
    org: entry.org ?? null,
    machine_id: entry.machine_id ?? null,
    identity: entry.actor ?? null,
    expires_at: null,
    daemon: 'answers',
    credential: 'unknown',
    error: null,
  };
  try {
    const me = await new SvcApi(new SvcClient(entry.url, entry.token)).whoami();
    status.identity = me.name;
    status.expires_at = me.expires_at ?? null;
    status.credential = 'accepted';
  } catch (err) {
    if (err instanceof SvcConnectionError) status.daemon = 'unreachable';
    else if (err instanceof SvcHttpError) {
      status.credential = err.status === 401 || err.status === 403 ? 'refused' : 'unknown';
      status.error = `${err.code}: ${err.body.message}`;
    } else throw err;
  }
  return status;
}

export function registerAuthCommands(program: Command): void {
  const group = program.command('auth').description('the servers this machine is connected to');

  group
    .command('status')
    .description('server, identity, credential kind, expiry and whether the daemon answers')
    .action(
      action(async (_options: unknown, command: Command) => {
        const configDir = defaultConfigDir();
        const globals = command.optsWithGlobals<GlobalOptions>();
        const file = readCredentialFile(configDir);
        const url = globals.url ?? envSetting(process.env, 'SVC_URL') ?? file.current;
        const envToken = envSetting(process.env, 'SVC_TOKEN');
        const entry: StoredCredentials | null = url
          ? (findCredentials(configDir, url) ??
            (globals.token || envToken ? { url, token: (globals.token ?? envToken)! } : null))
          : null;
        if (!entry) throw new NotConnectedError();
        const status = await statusOf(entry, entry.url === file.current);
        output(command, status, (s) =>
          printKeyValues([
            ['server', s.server + (s.current ? ' (current)' : '')],
            ['identity', s.identity ?? 'unknown'],
            ['credential', `${s.kind === 'machine_credential' ? 'machine credential' : 'API token'} (${s.credential})`],
            ['organization', s.org],
            ['machine id', s.machine_id],
            ['expires', s.expires_at ?? (s.credential === 'accepted' ? 'never' : 'unknown')],
            ['daemon', s.daemon],
            ...(s.error ? ([['error', s.error]] as [string, unknown][]) : []),
          ]),
        );
        if (status.daemon === 'unreachable') process.exitCode = 2;
        else if (status.credential === 'refused') process.exitCode = 3;
      }),
    );

  group
    .command('list')
    .description('the servers in the credential file')
    .action(
      action(async (_options: unknown, command: Command) => {
        const file = readCredentialFile(defaultConfigDir());
        const servers = file.servers.map((s) => ({
          server: s.url,
          current: s.url === file.current,
          kind: s.kind ?? 'api_token',
          identity: s.actor ?? null,
          org: s.org ?? null,
        }));
        output(command, { current: file.current, servers }, (b) =>
          printTable(
            ['', 'server', 'kind', 'identity', 'org'],
            b.servers.map((s) => [s.current ? '*' : '', s.server, s.kind, s.identity, s.org]),
          ),
        );
      }),
    );

  group
    .command('switch')
    .description('make another stored server the current one')
    .argument('<server>', 'a server URL shown by svc auth list')
    .action(
      action(async (server: string, _options: unknown, command: Command) => {
        const entry = switchCredentials(defaultConfigDir(), server);
        if (!entry) throw new CliError('not_connected', `no credential for ${server}; run svc connect ${server}`, 3);
        output(command, { current: entry.url }, (b) => process.stdout.write(`current server: ${b.current}\n`));
      }),
    );

  program
    .command('logout')
    .description('forget the current server (or --server); a machine credential is also revoked on the server')
    .option('--server <url>', 'another stored server')
    .action(
      action(async (options: { server?: string }, command: Command) => {
        const configDir = defaultConfigDir();
        const file = readCredentialFile(configDir);
        const key = options.server ?? file.current;
        const entry = key ? findCredentials(configDir, key) : null;
        if (!entry) throw new NotConnectedError();
        // A machine credential belongs to this machine only: revoke it on the server (best effort) before forgetting.
        let revoked = false;
        if (entry.kind === 'machine_credential' && entry.machine_id) {
          revoked = await new SvcClient(entry.url, entry.token)
            .post('v1/machines/revoke', { machine_id: entry.machine_id })
            .then(() => true)
            .catch(() => false);
        }
        removeCredentials(configDir, entry.url);
        const next = readCredentialFile(configDir).current;
        output(command, { removed: entry.url, revoked, current: next }, (b) =>
          process.stdout.write(
            `forgot the credential for ${b.removed}${b.revoked ? ' (machine credential revoked)' : ''}` +
              `${b.current ? `; current server: ${b.current}` : ''}\n`,
          ),
        );
      }),
    );
}
