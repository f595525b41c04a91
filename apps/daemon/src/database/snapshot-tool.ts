import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';

import {
  BackupResult,
  EmbeddedServer,
  RestoreResult,
  restoreSnapshot,
  SnapshotError,
  takeSnapshot,
  VerifiedSnapshot,
  VerifyResult,
  verifySnapshot,
} from '@app/database';

import { SERVER_SECRET_FILE } from '../config/server-secret';
import { DaemonLock, DaemonLockHeldError, holderAlive, readLock } from '../boot/daemon-lock';
import { parseConfig } from '../config/config';
import { AppConfig } from '../config/app-config';
import { connectionParts } from './data-source';
import { knownMigrations, runMigrationsInTransaction } from './migrate';

// `svc backup`/`svc restore`; also runnable with node where only the daemon is installed (a container image).

const APPLICATION_NAME = 'svc-snapshot';

function clientFor(url: string): Client {
  const { host, port, username, password, database, ssl } = connectionParts(url);
  return new Client({ host, port, user: username, password, database, ssl, application_name: APPLICATION_NAME });
}

function runningEmbeddedUrl(home: string): string {
  const password = readFileSync(join(home, 'pg-password'), 'utf8').trim();
  const socketDir = join(home, 'pg');
  return `postgres://postgres:${encodeURIComponent(password)}@localhost:5432/svc?host=${encodeURIComponent(socketDir)}`;
}

async function withClient<T>(url: string, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = clientFor(url);
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

// Interrupted, the server started for the call is stopped and `cleanup` runs first: no embedded PostgreSQL or stale
// daemon.lock is left, and the server rolls back the restore's transaction.
async function withEmbedded<T>(
  config: AppConfig,
  fn: (url: string) => Promise<T>,
  say: (t: string) => void,
  cleanup: () => void = () => undefined,
) {
  const server = new EmbeddedServer({ home: config.home, log: (m) => say(m) });
  let starting: Promise<unknown> = Promise.resolve();
  const interrupted = (signal: NodeJS.Signals) => {
    say(`interrupted (${signal}): stopping the embedded PostgreSQL`);
    // a server still starting is stopped once it has started (stop() does nothing before)
    void starting
      .catch(() => undefined)
      .then(() => server.stop())
      .catch(() => undefined)
      .finally(() => {
        cleanup();
        process.exit(130);
      });
  };
  process.once('SIGINT', interrupted).once('SIGTERM', interrupted);
  try {
    starting = server.start();
    const connection = (await starting) as Awaited<ReturnType<EmbeddedServer['start']>>;
    await server.ensureDatabase('svc');
    return await fn(connection.url('svc'));
  } finally {
    process.off('SIGINT', interrupted).off('SIGTERM', interrupted);
    await server.stop();
  }
}

// Never in a backup (docs/adr/0060).
export function serverSecretSource(config: AppConfig): string | null {
  if (config.serverSecret) return 'SVC_SERVER_SECRET';
  const path = join(config.home, SERVER_SECRET_FILE);
  return existsSync(path) ? path : null;
}

export async function backup(
  file: string,
  env: NodeJS.ProcessEnv = process.env,
  say: (text: string) => void = () => undefined,
): Promise<BackupResult & { server_secret: string | null }> {
  const result = await backupDatabase(file, env, say);
  const secret = serverSecretSource(parseConfig(env));
  if (secret) {
    say(
      `note: the server secret (${secret}) is not in the backup: keep a copy of it with the backup, and put it in ` +
        'place before svc up on a new home, or pending device codes and approval sessions end',
    );
  }
  return { ...result, server_secret: secret };
}

async function backupDatabase(
  file: string,
  env: NodeJS.ProcessEnv,
  say: (text: string) => void,
): Promise<BackupResult> {
  const config = parseConfig(env);
  if (config.databaseUrl) return withClient(config.databaseUrl, (client) => takeSnapshot(client, file));
  const holder = readLock(config.home);
  if (holder && holderAlive(holder)) {
    return withClient(runningEmbeddedUrl(config.home), (client) => takeSnapshot(client, file));
  }
  if (!existsSync(join(config.home, 'pg', 'PG_VERSION'))) {
    throw new SnapshotError('database_not_svc', `no svc database in ${config.home} (SVC_HOME) to back up`);
  }
  return withEmbedded(config, (url) => withClient(url, (client) => takeSnapshot(client, file)), say);
}

export async function verify(file: string): Promise<VerifyResult> {
  if (!existsSync(file)) throw new SnapshotError('snapshot_unreadable', `${file}: no such file`);
  const checked: VerifiedSnapshot = await verifySnapshot(file);
  const known = new Set(knownMigrations());
  return {
    file,
    ok: true,
    format: checked.format,
    checksums: checked.checksums,
    taken_at: checked.taken_at,
    schema_version: checked.schema_version,
    unknown_migrations: checked.migrations.filter((name) => !known.has(name)),
    tables: checked.header.tables.length,
    rows: checked.rows,
  };
}

export async function restore(
  file: string,
  options: { force: boolean },
  env: NodeJS.ProcessEnv = process.env,
  say: (text: string) => void = () => undefined,
): Promise<RestoreResult> {
  if (!existsSync(file)) throw new SnapshotError('snapshot_unreadable', `${file}: no such file`);
  const config = parseConfig(env);
  const run = (url: string) =>
    withClient(url, (client) =>
      restoreSnapshot(
        client,
        file,
        { known: knownMigrations(), migrate: runMigrationsInTransaction },
        { force: options.force, say },
      ),
    );
  if (config.databaseUrl) return run(config.databaseUrl);
  // The folder's daemon lock is held for the restore: no daemon starts on the database meanwhile.
  let lock: DaemonLock;
  try {
    lock = DaemonLock.acquire(config.home, 'svc restore');
  } catch (err) {
    if (err instanceof DaemonLockHeldError) {
      throw new SnapshotError(
        'daemon_running',
        `a daemon (pid ${err.holder.pid}, ${err.holder.url}) runs on ${config.home}: stop it (svc down) before a restore`,
      );
    }
    throw err;
  }
  try {
    const result = await withEmbedded(config, run, say, () => lock.release());
    if (!serverSecretSource(config)) {
      say(
        `note: no server secret in ${config.home}: copy the old home's ${SERVER_SECRET_FILE} there (or set ` +
          'SVC_SERVER_SECRET) before svc up, or pending device codes and approval sessions end',
      );
    }
    return result;
  } finally {
    lock.release();
  }
}

async function main(argv: string[]): Promise<number> {
  const [verb, file] = argv;
  const say = (text: string) => process.stderr.write(`${text}\n`);
  try {
    if (verb === 'backup' && file) {
      const result = await backup(file, process.env, say);
      process.stdout.write(`${JSON.stringify({ file: result.file, rows: result.rows })}\n`);
      return 0;
    }
    if (verb === 'verify' && file) {
      process.stdout.write(`${JSON.stringify(await verify(file))}\n`);
      return 0;
    }
    if (verb === 'restore' && file) {
      process.stdout.write(
        `${JSON.stringify(await restore(file, { force: argv.includes('--force') }, process.env, say))}\n`,
      );
      return 0;
    }
    say('usage: snapshot-tool backup <file> | restore <file> [--force] | verify <file>');
    return 64;
  } catch (err) {
    say(err instanceof SnapshotError ? `error: ${err.code}: ${err.message}` : `error: ${(err as Error).message}`);
    return 1;
  }
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => process.exit(code));
}
