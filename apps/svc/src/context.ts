import { Command } from 'commander';

import { apiFor, connectedCredentials, resolveConnection, SvcApi } from '@app/client';

export { resolveConnection };

export interface GlobalOptions {
  url?: string;
  token?: string;
  json?: boolean;
}

// The daemon this invocation talks to: --url/--token, then SVC_URL/SVC_TOKEN, then the credential file.
export function connectionFor(command: Command) {
  const { url, token } = command.optsWithGlobals<GlobalOptions>();
  return resolveConnection({ url, token });
}

// Commands that need a credential: without any, NotConnectedError says how to get one.
export function apiOf(command: Command): SvcApi {
  const { url, token } = command.optsWithGlobals<GlobalOptions>();
  return apiFor(connectedCredentials({ url, token }));
}

export function wantsJson(command: Command): boolean {
  return Boolean(command.optsWithGlobals<GlobalOptions>().json);
}
