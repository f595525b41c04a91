import { createHmac } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';

import { EmbeddedServer } from '@app/database';

import { API_TOKEN_PREFIX, generateToken, hashToken, tokenDisplayPrefix } from '../auth/tokens';
import { SERVER_SECRET_FILE } from '../config/server-secret';
import { parseConfig } from '../config/config';
import { AppConfig } from '../config/app-config';
import { connectionParts } from './data-source';
import { knownMigrations } from './migrate';
import { holderAlive, readLock } from '../boot/daemon-lock';

// Break-glass with the daemon down: straight to SVC_DATABASE_URL, else SVC_HOME's embedded server. Loaded by `svc`
// at run time, as the snapshot tool is.

export interface OfflineCheck {
  check: string;
  status: 'ok' | 'warn' | 'fail';
  detail: string;
}

export class OfflineError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'OfflineError';
  }
}

const APPLICATION_NAME = 'svc-offline';
const CONNECT_TIMEOUT_MS = 5000;
// the same fingerprint the replicas report (doctor/replicas.service.ts)
const FINGERPRINT = 'doctor:svc server secret fingerprint v1';

function clientFor(url: string): Client {
  const { host, port, username, password, database, ssl } = connectionParts(url);
  return new Client({
    host,
    port,
    user: username,
    password,
    database,
    ssl,
    application_name: APPLICATION_NAME,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });
}

function where(url: string): string {
  const { host, port, database } = connectionParts(url);
  return `${String(host)}:${String(port ?? 5432)}/${String(database)}`;
}

function runningEmbeddedUrl(home: string): string {
  const password = readFileSync(join(home, 'pg-password'), 'utf8').trim();
  const socketDir = join(home, 'pg');
  return `postgres://postgres:${encodeURIComponent(password)}@localhost:5432/svc?host=${encodeURIComponent(socketDir)}`;
}

// Through a live daemon's socket when one holds the home, else the embedded server is started for the call.
async function withDatabase<T>(config: AppConfig, fn: (client: Client) => Promise<T>): Promise<T> {
  const run = async (url: string) => {
    const client = clientFor(url);
    try {
      await client.connect();
    } catch (err) {
      throw new OfflineError('database_unreachable', `PostgreSQL is unreachable at ${where(url)}: ${reason(err)}`);
    }
    try {
      return await fn(client);
    } finally {
      await client.end().catch(() => undefined);
    }
  };
  if (config.databaseUrl) return run(config.databaseUrl);
  const holder = readLock(config.home);
  if (holder && holderAlive(holder)) return run(runningEmbeddedUrl(config.home));
  if (!existsSync(join(config.home, 'pg', 'PG_VERSION'))) {
    throw new OfflineError('database_not_svc', `no svc database in ${config.home} (SVC_HOME) yet: svc up creates it`);
  }
  const server = new EmbeddedServer({ home: config.home, log: () => undefined });
  try {
    const connection = await server.start();
    return await run(connection.url('svc'));
  } finally {
    await server.stop().catch(() => undefined);
  }
}

function reason(err: unknown): string {
  const e = err as { code?: string; message?: string; errors?: { code?: string }[] };
  return e.code ?? e.errors?.[0]?.code ?? e.message ?? String(err);
}

async function applied(client: Client): Promise<string[]> {
  const { rows } = await client.query<{ present: boolean }>(
    `SELECT to_regclass('public.migrations') IS NOT NULL AS present`,
  );
  if (!rows[0].present) return [];
  return (await client.query<{ name: string }>('SELECT name FROM migrations ORDER BY id')).rows.map((r) => r.name);
}

export interface MintedToken {
  token: string;
  token_id: number;
  token_prefix: string;
  actor: string;
  path: 'offline';
}

// Recorded in change_records with path `offline`; only the token's SHA-256 is stored.
export async function mintAdminToken(env: NodeJS.ProcessEnv = process.env, name?: string): Promise<MintedToken> {
  const config = parseConfig(env);
  return withDatabase(config, async (client) => {
    const names = await applied(client);
    if (names.length === 0) throw new OfflineError('database_not_svc', 'the database holds no svc schema yet');
    const known = new Set(knownMigrations());
    const unknown = names.filter((n) => !known.has(n));
    if (unknown.length > 0) {
      throw new OfflineError(
        'database_newer',
        `the database was migrated by a newer svc (${unknown.join(', ')} unknown here): use that version's svc`,
      );
    }
    const token = generateToken(API_TOKEN_PREFIX);
    await client.query('BEGIN');
    try {
      const admins = await client.query<{ id: number; name: string }>(
        `SELECT id, name FROM actors WHERE is_admin AND status = 'active' ORDER BY id LIMIT 1`,
      );
      if (admins.rows.length === 0) {
        throw new OfflineError('no_server_admin', 'the database has no active server admin to give a token to');
      }
      const admin = admins.rows[0];
      await client.query(`SELECT set_config('svc.writer', $1, true)`, [
        JSON.stringify({
          actor_id: null,
          actor_name: null,
          credential_kind: null,
          credential_id: null,
          session_id: null,
          harness: null,
          path: 'offline',
          forced: false,
        }),
      ]);
      const tokenName = name ?? `break-glass ${new Date().toISOString().slice(0, 16).replace('T', ' ')}`;
      const inserted = await client.query<{ id: number }>(
        `INSERT INTO api_tokens (actor_id, name, token_hash, token_prefix) VALUES ($1, $2, $3, $4) RETURNING id`,
        [admin.id, tokenName, hashToken(token), tokenDisplayPrefix(token)],
      );
      await client.query('COMMIT');
      return {
        token,
        token_id: inserted.rows[0].id,
        token_prefix: tokenDisplayPrefix(token),
        actor: admin.name,
        path: 'offline',
      };
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
  });
}

// svc doctor, offline: why a daemon would not start here, and what to do.

function secretHere(config: AppConfig): { value: Buffer; source: string } | null {
  if (config.serverSecret) return { value: Buffer.from(config.serverSecret, 'utf8'), source: 'SVC_SERVER_SECRET' };
  const path = join(config.home, SERVER_SECRET_FILE);
  if (!existsSync(path)) return null;
  return { value: Buffer.from(readFileSync(path, 'utf8').trim(), 'utf8'), source: path };
}

export async function offlineDoctor(env: NodeJS.ProcessEnv = process.env): Promise<OfflineCheck[]> {
  const config = parseConfig(env);
  const checks: OfflineCheck[] = [];
  if (!config.databaseUrl) {
    const holder = readLock(config.home);
    if (holder && holderAlive(holder)) {
      checks.push({
        check: 'lock',
        status: 'fail',
        detail:
          `${join(config.home, 'daemon.lock')} is held by a live daemon (pid ${holder.pid}, ${holder.url}) that does ` +
          `not answer here: a second daemon on this home exits at once (status 75); wait for it, or stop it ` +
          `(kill ${holder.pid}), or point svc at ${holder.url}`,
      });
    } else {
      checks.push({
        check: 'lock',
        status: 'ok',
        detail: holder ? `stale daemon.lock (pid ${holder.pid} is gone): the next daemon takes it over` : 'free',
      });
    }
  }
  let fingerprints: { name: string; fingerprint: string }[] = [];
  try {
    const facts = await withDatabase(config, async (client) => {
      const names = await applied(client);
      const present = await client.query<{ present: boolean }>(
        `SELECT to_regclass('public.daemon_replicas') IS NOT NULL AS present`,
      );
      const replicas = present.rows[0].present
        ? (
            await client.query<{ name: string; fingerprint: string }>(
              `SELECT name, secret_fingerprint AS fingerprint FROM daemon_replicas ORDER BY seen_at DESC LIMIT 10`,
            )
          ).rows
        : [];
      return { names, replicas };
    });
    fingerprints = facts.replicas;
    checks.push({
      check: 'database',
      status: 'ok',
      detail: config.databaseUrl ? `reachable at ${where(config.databaseUrl)}` : `embedded, in ${config.home}`,
    });
    const known = knownMigrations();
    const knownSet = new Set(known);
    const unknown = facts.names.filter((n) => !knownSet.has(n));
    const appliedSet = new Set(facts.names);
    const pending = known.filter((n) => !appliedSet.has(n));
    if (unknown.length > 0) {
      checks.push({
        check: 'migrations',
        status: 'fail',
        detail:
          `the database was migrated by a newer svc (${unknown.join(', ')} unknown here): a daemon of this version ` +
          'refuses to start on it; install that newer version, or restore a backup this version took into an empty ' +
          'database',
      });
    } else {
      checks.push({
        check: 'migrations',
        status: 'ok',
        detail:
          pending.length > 0
            ? `${facts.names.length} applied, ${pending.length} pending (the daemon applies them when it starts)`
            : `${facts.names.length} applied, none pending`,
      });
    }
  } catch (caught) {
    const err =
      caught instanceof OfflineError ? caught : new OfflineError('database_unreachable', (caught as Error).message);
    if (err.code === 'database_not_svc') checks.push({ check: 'database', status: 'ok', detail: err.message });
    else {
      checks.push({
        check: 'database',
        status: 'fail',
        detail:
          `${err.message}; the daemon cannot start without it: start PostgreSQL, or correct SVC_DATABASE_URL ` +
          '(host, port, database, credentials)',
      });
    }
  }
  const secret = secretHere(config);
  const others = [...new Set(fingerprints.map((r) => r.fingerprint))];
  if (secret) {
    const mine = createHmac('sha256', secret.value).update(FINGERPRINT, 'utf8').digest('hex').slice(0, 16);
    const differing = fingerprints.filter((r) => r.fingerprint !== mine);
    checks.push(
      others.length > 0 && differing.length > 0 && !others.includes(mine)
        ? {
            check: 'server secret',
            status: 'fail',
            detail:
              `the secret of ${secret.source} (fingerprint ${mine}) is not the one the replicas of this database ` +
              `used (${others.join(', ')}; ${differing[0].name}): device codes and approval sessions would fail ` +
              'between them; put the same secret in place (SVC_SERVER_SECRET, or $SVC_HOME/server-secret from the ' +
              'old home)',
          }
        : { check: 'server secret', status: 'ok', detail: `fingerprint ${mine} from ${secret.source}` },
    );
  } else if (others.length > 0) {
    checks.push({
      check: 'server secret',
      status: 'warn',
      detail:
        `none here (no SVC_SERVER_SECRET, no ${join(config.home, SERVER_SECRET_FILE)}): the daemon would make a new ` +
        `one, not the one this database's replicas used (${others.join(', ')}); put the old one in place first`,
    });
  }
  return checks;
}
