// A lib of its own so the daemon needs neither the HTTP client (libs/client) nor the command line to write the
// first administrator's credential.
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';

export interface StoredCredentials {
  url: string;
  token: string;
  kind?: 'api_token' | 'machine_credential';
  machine_id?: string;
  org?: string;
  // who the credential authenticates as, when known at connection time (for svc auth status without a request)
  actor?: string;
}

// Version 1 files (one flat credential) are read as a file with that one server current.
export interface CredentialFile {
  version: 2;
  current: string | null;
  servers: StoredCredentials[];
}

export const CREDENTIALS_FILE_NAME = 'credentials.json';

export function defaultConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SVC_CONFIG_DIR) return env.SVC_CONFIG_DIR;
  const xdg = env.XDG_CONFIG_HOME;
  return join(xdg && xdg.length > 0 ? xdg : join(homedir(), '.config'), 'svc');
}

// /var/lib/svc for root: PostgreSQL refuses to run as root, and root's home is not reachable by the postgres user.
export function defaultHome(env: NodeJS.ProcessEnv = process.env): string {
  if (userInfo().uid === 0) return '/var/lib/svc';
  const xdg = env.XDG_DATA_HOME;
  return join(xdg && xdg.length > 0 ? xdg : join(homedir(), '.local', 'share'), 'svc');
}

export function svcHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.SVC_HOME && env.SVC_HOME.length > 0 ? env.SVC_HOME : defaultHome(env);
}

export function credentialsPath(configDir: string): string {
  return join(configDir, CREDENTIALS_FILE_NAME);
}

export function serverKey(url: string): string {
  return url.replace(/\/+$/, '');
}

function isCredential(value: unknown): value is StoredCredentials {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as StoredCredentials).url === 'string' &&
    typeof (value as StoredCredentials).token === 'string'
  );
}

export function readCredentialFile(configDir: string): CredentialFile {
  const empty: CredentialFile = { version: 2, current: null, servers: [] };
  let text: string;
  try {
    text = readFileSync(credentialsPath(configDir), 'utf8');
  } catch {
    return empty;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // A damaged file reads as absent; the next write replaces it.
    return empty;
  }
  if (typeof parsed !== 'object' || parsed === null) return empty;
  const file = parsed as Partial<CredentialFile>;
  if (file.version === 2 && Array.isArray(file.servers)) {
    const servers = file.servers.filter(isCredential).map((s) => ({ ...s, url: serverKey(s.url) }));
    const current = typeof file.current === 'string' ? serverKey(file.current) : null;
    return { version: 2, current: servers.some((s) => s.url === current) ? current : null, servers };
  }
  if (isCredential(parsed)) {
    const only = { ...parsed, url: serverKey(parsed.url) };
    return { version: 2, current: only.url, servers: [only] };
  }
  return empty;
}

export function readCredentials(configDir: string): StoredCredentials | null {
  const file = readCredentialFile(configDir);
  return file.servers.find((s) => s.url === file.current) ?? null;
}

export function findCredentials(configDir: string, url: string): StoredCredentials | null {
  return readCredentialFile(configDir).servers.find((s) => s.url === serverKey(url)) ?? null;
}

// Written to a temporary file with mode 0600 first, then renamed, so a reader never sees half a file.
export function writeCredentialFile(configDir: string, file: CredentialFile): string {
  const path = credentialsPath(configDir);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
  return path;
}

export function writeCredentials(configDir: string, credentials: StoredCredentials): string {
  const file = readCredentialFile(configDir);
  const entry = { ...credentials, url: serverKey(credentials.url) };
  const servers = [...file.servers.filter((s) => s.url !== entry.url), entry];
  return writeCredentialFile(configDir, { version: 2, current: entry.url, servers });
}

export function switchCredentials(configDir: string, url: string): StoredCredentials | null {
  const file = readCredentialFile(configDir);
  const entry = file.servers.find((s) => s.url === serverKey(url));
  if (!entry) return null;
  writeCredentialFile(configDir, { ...file, current: entry.url });
  return entry;
}

// Forgets one server (the current one when url is null); another stored server becomes current, if any.
export function removeCredentials(configDir: string, url: string | null): StoredCredentials | null {
  const file = readCredentialFile(configDir);
  const key = url === null ? file.current : serverKey(url);
  const entry = file.servers.find((s) => s.url === key);
  if (!entry) return null;
  const servers = file.servers.filter((s) => s !== entry);
  const current = file.current === entry.url ? (servers[servers.length - 1]?.url ?? null) : file.current;
  writeCredentialFile(configDir, { version: 2, current, servers });
  return entry;
}
