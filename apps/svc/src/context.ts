import { Command } from 'commander';

import { defaultConfigDir, findCredentials, readCredentials, SvcClient } from '@app/client';

export interface GlobalOptions {
  url?: string;
  token?: string;
  json?: boolean;
}

// Server address and token: --url/--token, then SVC_URL/SVC_TOKEN, then the credential file (the current server,
// or the stored credential of the server --url/SVC_URL names), then the default address.
export function resolveConnection(options: GlobalOptions, env: NodeJS.ProcessEnv = process.env) {
  const configDir = defaultConfigDir(env);
  const stored = readCredentials(configDir);
  const url = options.url ?? env.SVC_URL ?? stored?.url ?? 'http://127.0.0.1:7700';
  const token = options.token ?? env.SVC_TOKEN ?? findCredentials(configDir, url)?.token ?? null;
  return { url, token };
}

export class NotConnectedError extends Error {
  readonly code = 'not_connected';
  constructor() {
    super('not connected — run svc setup or svc connect');
  }
}

export function clientFor(command: Command): SvcClient {
  const { url, token } = resolveConnection(command.optsWithGlobals<GlobalOptions>());
  if (!token) throw new NotConnectedError();
  return new SvcClient(url, token);
}

export function wantsJson(command: Command): boolean {
  return Boolean(command.optsWithGlobals<GlobalOptions>().json);
}
