import { Command } from 'commander';

import { apiFor, resolveConnection, SvcApi } from '@app/client';

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

export function apiOf(command: Command): SvcApi {
  return apiFor(connectionFor(command));
}

export function wantsJson(command: Command): boolean {
  return Boolean(command.optsWithGlobals<GlobalOptions>().json);
}
