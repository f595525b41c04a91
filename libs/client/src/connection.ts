import { CLIENT_HEADER, WritePath } from '@app/contracts';

import { SvcApi } from './api';
import { defaultConfigDir, findCredentials, NotConnectedError, readCredentials } from './credentials';
import { SvcClient } from './http-client';

export const DEFAULT_URL = 'http://127.0.0.1:7700';

export interface ConnectionOptions {
  url?: string;
  token?: string;
}

export interface Connection {
  url: string;
  token: string | null;
}

// A setting from the environment: set but empty (`SVC_URL=`, or only blanks) counts as unset, so that an emptied
// variable falls through to the credential file instead of hiding it.
export function envSetting(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name];
  return value !== undefined && value.trim() !== '' ? value : undefined;
}

// Server address and token, for every front end alike: --url/--token, then SVC_URL/SVC_TOKEN, then the credential
// file (the current server, or the stored credential of the server --url/SVC_URL names), then the default address.
export function resolveConnection(options: ConnectionOptions = {}, env: NodeJS.ProcessEnv = process.env): Connection {
  const configDir = defaultConfigDir(env);
  const url = options.url ?? envSetting(env, 'SVC_URL') ?? readCredentials(configDir)?.url ?? DEFAULT_URL;
  const token = options.token ?? envSetting(env, 'SVC_TOKEN') ?? findCredentials(configDir, url)?.token ?? null;
  return { url, token };
}

// The same, for commands that cannot work without a credential: none at all is NotConnectedError.
export function connectedCredentials(
  options: ConnectionOptions,
  env: NodeJS.ProcessEnv = process.env,
): { url: string; token: string } {
  const { url, token } = resolveConnection(options, env);
  if (!token) throw new NotConnectedError();
  return { url, token };
}

// `client` names the front end in every request (x-svc-client), for the daemon's record of who changed what.
export function apiFor(connection: Connection, client?: WritePath): SvcApi {
  const http = new SvcClient(connection.url, connection.token);
  if (client) http.headers[CLIENT_HEADER] = client;
  return new SvcApi(http);
}

// For a command that needs a credential: the API of the connection its global options name (NotConnectedError
// without any credential).
export function connectedApiFor(options: ConnectionOptions): SvcApi {
  return apiFor(connectedCredentials(options));
}
