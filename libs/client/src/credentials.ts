import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export interface StoredCredentials {
  url: string;
  token: string;
  kind?: 'api_token' | 'machine_credential';
  machine_id?: string;
  org?: string;
}

export const CREDENTIALS_FILE_NAME = 'credentials.json';

export function defaultConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SVC_CONFIG_DIR) return env.SVC_CONFIG_DIR;
  const xdg = env.XDG_CONFIG_HOME;
  return join(xdg && xdg.length > 0 ? xdg : join(homedir(), '.config'), 'svc');
}

export function credentialsPath(configDir: string): string {
  return join(configDir, CREDENTIALS_FILE_NAME);
}

export function readCredentials(configDir: string): StoredCredentials | null {
  let text: string;
  try {
    text = readFileSync(credentialsPath(configDir), 'utf8');
  } catch {
    return null;
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (
      typeof parsed === 'object' &&
      parsed !== null &&
      typeof (parsed as StoredCredentials).url === 'string' &&
      typeof (parsed as StoredCredentials).token === 'string'
    ) {
      return parsed as StoredCredentials;
    }
  } catch {
    // A damaged file reads as absent; the next write replaces it.
  }
  return null;
}

// Written to a temporary file with mode 0600 first, then renamed, so a reader never sees half a file.
export function writeCredentials(configDir: string, credentials: StoredCredentials): string {
  const path = credentialsPath(configDir);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
  return path;
}
