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

// Set but empty counts as unset, so an emptied variable falls through to the credential file instead of hiding it.
export function envSetting(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name];
  return value !== undefined && value.trim() !== '' ? value : undefined;
}

export function resolveConnection(options: ConnectionOptions = {}, env: NodeJS.ProcessEnv = process.env): Connection {
  const configDir = defaultConfigDir(env);
  const url = options.url ?? envSetting(env, 'SVC_URL') ?? readCredentials(configDir)?.url ?? DEFAULT_URL;
  const token = options.token ?? envSetting(env, 'SVC_TOKEN') ?? findCredentials(configDir, url)?.token ?? null;
  return { url, token };
}

export function connectedCredentials(
  options: ConnectionOptions,
  env: NodeJS.ProcessEnv = process.env,
): { url: string; token: string } {
  const { url, token } = resolveConnection(options, env);
  if (!token) throw new NotConnectedError();
  return { url, token };
}

// `client` feeds the daemon's record of who changed what.
export function apiFor(connection: Connection, client?: WritePath): SvcApi {
  const http = new SvcClient(connection.url, connection.token);
  if (client) http.headers[CLIENT_HEADER] = client;
  return new SvcApi(http);
}

export function connectedApiFor(options: ConnectionOptions): SvcApi {
  return apiFor(connectedCredentials(options));
}
