import { Command } from 'commander';

import { apiFor, connectedCredentials, resolveConnection, SvcApi } from '@app/client';

export { resolveConnection };

export interface GlobalOptions {
  url?: string;
  token?: string;
  json?: boolean;
  jq?: string;
  wide?: boolean;
}

export interface OutputOptions {
  // --json field1,field2 (taken out of argv before commander parses it: see json-args.ts)
  jsonFields?: string[];
  jq?: string;
  wide?: boolean;
}

let current: OutputOptions = {};

// Set once per invocation: the fields by main, --jq and --wide by the program's preAction hook.
export function setOutputOptions(next: OutputOptions): void {
  current = { ...current, ...next };
}

export const outputOptions = (): OutputOptions => current;

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
  const { json, jq } = command.optsWithGlobals<GlobalOptions>();
  return Boolean(json) || jq !== undefined || current.jsonFields !== undefined;
}
