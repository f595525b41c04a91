import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

import { Command } from 'commander';

import { defaultConfigDir, SvcClient, SvcConnectionError, terminalText } from '@app/client';
import { authorizationOrigin, MachineAuthorizationUrlError } from '@app/contracts';

import { action, CliError } from '../output';
import { connectWithDeviceCode, connectWithToken } from './connect.command';

// Loaded on the first question: @inquirer/prompts is a sixth of every other command's start-up.
const prompts = (): Promise<typeof import('@inquirer/prompts')> => import('@inquirer/prompts');

interface SetupOptions {
  server?: string;
  tokenStdin?: boolean;
  tokenFile?: string;
  yes?: boolean;
  machineName?: string;
}

export type SignInMethod =
  | { kind: 'device_code'; companySignIn: boolean }
  | { kind: 'oidc_misconfigured'; message: string }
  | { kind: 'no_discovery' }
  | { kind: 'unreachable'; message: string };

export async function discoverSignIn(origin: string): Promise<SignInMethod> {
  let res;
  try {
    res = await new SvcClient(origin, null).raw('GET', 'api/machine/authorizations');
  } catch (err) {
    return { kind: 'unreachable', message: err instanceof SvcConnectionError ? err.message : String(err) };
  }
  let body: { device_code?: unknown; company_sign_in?: unknown; code?: unknown; message?: unknown } = {};
  try {
    body = JSON.parse(res.text) as typeof body;
  } catch {
    // An older server (or not svc at all) answers without discovery.
  }
  if (res.status === 200 && body.device_code === true) {
    // A server that omits company_sign_in predates it and offered device codes only with company sign-in.
    return { kind: 'device_code', companySignIn: body.company_sign_in !== false };
  }
  if (body.code === 'oidc_misconfigured') {
    return { kind: 'oidc_misconfigured', message: typeof body.message === 'string' ? body.message : '' };
  }
  return { kind: 'no_discovery' };
}

function originOf(url: string): string {
  try {
    return authorizationOrigin(url.trim());
  } catch (err) {
    if (err instanceof MachineAuthorizationUrlError) throw new CliError(err.reason, err.message);
    throw err;
  }
}

function readStdin(): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (chunk: string) => (data += chunk));
    process.stdin.on('end', () => resolve(data));
    process.stdin.on('error', reject);
  });
}

// lines may carry a server's message: control characters escaped
const say = (line: string) => process.stdout.write(`${terminalText(line)}\n`);

function runUp(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [process.argv[1], 'up'], { stdio: 'inherit' });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new CliError('setup_failed', `svc up exited with ${code}`, code ?? 1)),
    );
  });
}

class Wizard {
  private readonly configDir = defaultConfigDir();
  private readonly interactive: boolean;

  constructor(private readonly options: SetupOptions) {
    this.interactive = Boolean(process.stdin.isTTY && process.stdout.isTTY);
  }

  // Scripted runs never prompt; an unscripted run without a terminal is refused rather than hanging.
  private assertCanPrompt(what: string): void {
    if (this.interactive) return;
    throw new CliError(
      'terminal_required',
      `svc setup needs a terminal to ask ${what}; script it: svc setup --server <url> --token-stdin (or --yes)`,
    );
  }

  async run(): Promise<void> {
    if (this.options.server !== undefined) {
      await this.teamServer(this.options.server);
      return;
    }
    if (this.options.yes || this.options.tokenStdin || this.options.tokenFile) {
      if (this.options.tokenStdin || this.options.tokenFile) {
        throw new CliError('invalid_request', 'an API token needs --server <url>');
      }
      await runUp();
      return;
    }
    for (;;) {
      this.assertCanPrompt('where svc runs');
      const home = await (
        await prompts()
      ).select({
        message: 'Where should svc keep your backlog?',
        choices: [
          { name: 'This machine (an embedded daemon, via svc up)', value: 'local' as const },
          { name: 'A team server', value: 'team' as const },
        ],
      });
      if (home === 'local') {
        await runUp();
        return;
      }
      if (await this.teamServer(null)) return;
    }
  }

  // false when the person chose another home
  private async teamServer(given: string | null): Promise<boolean> {
    let url = given;
    for (;;) {
      if (url === null) {
        this.assertCanPrompt('the server address');
        url = await (
          await prompts()
        ).input({
          message: 'Team server address',
          validate: (value) => {
            try {
              authorizationOrigin(value.trim());
              return true;
            } catch (err) {
              return err instanceof Error ? err.message : 'not a server address';
            }
          },
        });
      }
      const origin = originOf(url);
      if (this.options.tokenStdin || this.options.tokenFile) {
        await this.useToken(origin);
        return true;
      }
      const method = await discoverSignIn(origin);
      const next = await this.signIn(origin, method);
      if (next === 'done') return true;
      if (next === 'another_home') {
        if (given !== null) throw new CliError('setup_cancelled', 'no home was set up');
        return false;
      }
      url = null;
      given = null;
    }
  }

  private async signIn(origin: string, method: SignInMethod): Promise<'done' | 'edit' | 'another_home'> {
    switch (method.kind) {
      case 'device_code': {
        if (!method.companySignIn) {
          say(`${origin} has no company sign-in: connect with an API token an admin created for you.`);
          await this.useToken(origin);
          return 'done';
        }
        let how: 'browser' | 'token' = 'browser';
        if (!this.options.yes) {
          this.assertCanPrompt('how to sign in');
          how = await (
            await prompts()
          ).select({
            message: `How do you want to connect to ${origin}?`,
            choices: [
              { name: 'Approve in the browser (company sign-in)', value: 'browser' as const },
              { name: 'Enter an API token', value: 'token' as const },
            ],
          });
        }
        if (how === 'token') {
          await this.useToken(origin);
          return 'done';
        }
        const open =
          !this.options.yes && this.interactive
            ? await (await prompts()).confirm({ message: 'Open the approval page in your browser?', default: true })
            : false;
        await connectWithDeviceCode(origin, this.configDir, { open, machineName: this.options.machineName });
        return 'done';
      }
      case 'no_discovery':
        say(`${origin} does not offer sign-in discovery (an older server): an API token is required.`);
        await this.useToken(origin);
        return 'done';
      case 'oidc_misconfigured':
      case 'unreachable': {
        const problem =
          method.kind === 'unreachable'
            ? `cannot reach ${origin}: ${method.message}`
            : `company sign-in on ${origin} is misconfigured (oidc_misconfigured)${method.message ? `: ${method.message}` : ''}`;
        if (this.options.yes || !this.interactive) {
          throw new CliError(
            method.kind === 'unreachable' ? 'daemon_unreachable' : 'oidc_misconfigured',
            `${problem}; use --token-stdin`,
            2,
          );
        }
        say(problem);
        const choice = await (
          await prompts()
        ).select({
          message: 'What now?',
          choices: [
            ...(method.kind === 'oidc_misconfigured' ? [{ name: 'Use API token', value: 'token' as const }] : []),
            { name: 'Edit connection', value: 'edit' as const },
            { name: 'Choose another home', value: 'another_home' as const },
          ],
        });
        if (choice === 'token') {
          await this.useToken(origin);
          return 'done';
        }
        return choice;
      }
    }
  }

  private async useToken(origin: string): Promise<void> {
    let token: string;
    if (this.options.tokenStdin || this.options.tokenFile) {
      token = (this.options.tokenFile ? readFileSync(this.options.tokenFile, 'utf8') : await readStdin()).trim();
    } else {
      this.assertCanPrompt('for an API token');
      token = (
        await (
          await prompts()
        ).password({ message: 'API token', mask: '•', validate: (v) => v.trim().length > 0 || 'paste the token' })
      ).trim();
    }
    if (token.length === 0) throw new CliError('invalid_request', 'no API token was given');
    await connectWithToken(origin, token, this.configDir);
  }
}

export function registerSetupCommand(program: Command): void {
  program
    .command('setup')
    .description('set svc up: run it on this machine, or connect to a team server')
    .option('--server <url>', 'connect to this team server (skips the home question)')
    .option('--token-stdin', 'read an API token from standard input (no prompts)')
    .option('--token-file <path>', 'read an API token from a file (no prompts)')
    .option('--yes', 'accept the defaults without asking (this machine; with --server, browser approval)')
    .option('--machine-name <name>', 'name shown to the approver (default: host name)')
    .action(
      action(async (options: SetupOptions) => {
        try {
          await new Wizard(options).run();
        } catch (err) {
          if (err instanceof Error && err.name === 'ExitPromptError') {
            throw new CliError('setup_cancelled', 'setup cancelled', 130);
          }
          throw err;
        }
      }),
    );
}
