import { Command } from 'commander';

import { connectedApiFor } from '@app/client';
import type { TokenWire } from '@app/contracts';

import { GlobalOptions } from '../context';
import { action, CliError, output, printTable } from '../output';

const api = (command: Command) => connectedApiFor(command.optsWithGlobals<GlobalOptions>());

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 };

export function parseDuration(text: string): number {
  const match = /^([0-9]{1,9})([smhdw]?)$/.exec(text.trim());
  if (!match)
    throw new CliError('invalid_request', `--expires-in: use a number with s, m, h, d or w (e.g. 90d), not "${text}"`);
  return Number(match[1]) * UNITS[match[2] || 's'];
}

// The credential a token was created with: revoking it revokes this token too.
function mintedBy(t: TokenWire): string {
  if (t.parent_token_id !== null) return `token #${t.parent_token_id}`;
  return t.parent_machine_id === null ? '' : `machine ${t.parent_machine_id}`;
}

export function registerTokensCommand(program: Command): void {
  const group = program.command('tokens').description('API tokens (shown once at creation, stored hashed)');

  group
    .command('create')
    .description('create an API token and print it once')
    .option('--actor <name>', 'for another actor (admins); default: yourself')
    .option('--name <name>', 'a label to recognise it by', 'cli')
    .option('--expires-in <duration>', 'lifetime, e.g. 90d, 12h (default: no expiry)')
    .option(
      '--scope <scope>',
      'full (what the actor may do) or metrics (reads GET /metrics only; server admins)',
      'full',
    )
    .action(
      action(async (options: { actor?: string; name: string; expiresIn?: string; scope: string }, command: Command) => {
        const expiresIn = options.expiresIn === undefined ? undefined : parseDuration(options.expiresIn);
        if (options.scope !== 'full' && options.scope !== 'metrics') {
          throw new CliError('invalid_request', `--scope: full or metrics, not "${options.scope}"`);
        }
        const created = await api(command).createToken({
          actor: options.actor,
          name: options.name,
          expires_in: expiresIn,
          ...(options.scope === 'metrics' ? { scope: 'metrics' as const } : {}),
        });
        output(command, created, (t) => {
          process.stderr.write(
            `token #${t.token_id} "${t.name}" for ${t.actor}${t.scope === 'metrics' ? ', reads /metrics only' : ''}${t.expires_at ? `, expires ${t.expires_at}` : ''} — shown once, store it now:\n`,
          );
          // A token expires no later than the credential that created it: say so when that shortened the lifetime.
          const asked = expiresIn === undefined ? Infinity : Date.now() + expiresIn * 1000;
          if (t.expires_at !== null && Date.parse(t.expires_at) < asked - 60_000) {
            process.stderr.write('(its expiry is capped at the expiry of the credential that created it)\n');
          }
          process.stdout.write(`${t.token}\n`);
        });
      }),
    );

  group
    .command('list')
    .description('list tokens: name, actor, created, last used, expiry (never the token)')
    .option('--actor <name>', "another actor's tokens (admins)")
    .option('--all', 'every token you administer')
    .option('--include-revoked', 'also revoked and expired tokens')
    .action(
      action(async (options: { actor?: string; all?: boolean; includeRevoked?: boolean }, command: Command) => {
        const body = await api(command).tokens({
          actor: options.actor,
          all: options.all || undefined,
          include_revoked: options.includeRevoked || undefined,
        });
        output(command, body, (b) =>
          printTable(
            ['id', 'name', 'actor', 'scope', 'prefix', 'created', 'last used', 'expires', 'revoked', 'minted by'],
            b.tokens.map((t) => [
              t.token_id,
              t.name,
              t.actor,
              t.scope ?? 'full',
              t.token_prefix,
              t.created_at,
              t.last_used_at ?? 'never',
              t.expires_at ?? 'never',
              t.revoked_at,
              mintedBy(t),
            ]),
          ),
        );
      }),
    );

  group
    .command('revoke')
    .description('revoke a token: its next request is refused on every replica')
    .argument('<id>', 'the id shown by svc tokens list')
    .action(
      action(async (id: string, _options: unknown, command: Command) => {
        if (!/^[0-9]{1,9}$/.test(id)) throw new CliError('invalid_request', 'a token id is a number (svc tokens list)');
        const body = await api(command).revokeToken(Number(id));
        output(command, body, (b) =>
          process.stdout.write(
            b.revoked ? `revoked token #${b.token_id}\n` : `token #${b.token_id} was already revoked\n`,
          ),
        );
      }),
    );
}
