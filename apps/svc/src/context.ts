import { Command } from 'commander';

import { connectedCredentials, defaultConfigDir, readCredentials, SvcClient } from '@app/client';

export interface GlobalOptions {
  url?: string;
  token?: string;
  json?: boolean;
}

// Server address and token: --url/--token, then SVC_URL/SVC_TOKEN, then the credential file, then the default.
export function resolveConnection(options: GlobalOptions, env: NodeJS.ProcessEnv = process.env) {
  const stored = readCredentials(defaultConfigDir(env));
  const url = options.url ?? env.SVC_URL ?? stored?.url ?? 'http://127.0.0.1:7700';
  const token =
    options.token ?? env.SVC_TOKEN ?? (stored && (!env.SVC_URL || stored.url === url) ? stored.token : null);
  return { url, token };
}

export function clientFor(command: Command): SvcClient {
  const { url, token } = connectedCredentials(command.optsWithGlobals<GlobalOptions>());
  return new SvcClient(url, token);
}

export function wantsJson(command: Command): boolean {
  return Boolean(command.optsWithGlobals<GlobalOptions>().json);
}
