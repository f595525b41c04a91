import 'reflect-metadata';
import { setFlagsFromString } from 'node:v8';
import { NestFactory } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger } from 'nestjs-pino';

import { EmbeddedServer } from '@app/database';

import { AppModule } from './app.module';
import { BootstrapService } from './auth/bootstrap.service';
import { warmUpFrontier } from './frontier/read-path/frontier-warm-up';
import { frameBanner } from './boot/banner';
import { DaemonLock, DaemonLockHeldError } from './boot/daemon-lock';
import { assertPortFree, PortBusyError } from './boot/port-check';
import { registerBodyParsers } from './common/body-parsers';
import { BootLogger, daemonNotes, formatNote, NoteLevel } from './common/daemon-notes';
import { drain, registerDrainHooks } from './common/drain';
import { DaemonLogger } from './common/logging';
import { writeClientError } from './common/response-writer';
import { createValidationPipe } from './common/validation';
import { assignRequestId } from './common/request-id';
import { ConfigError, parseConfig } from './config/config';
import { AppConfig } from './config/app-config';
import { runMigrations } from './database/migrate';

export interface RunningDaemon {
  app: NestFastifyApplication;
  url: string;
  firstBoot: string[] | null;
  stop: () => Promise<void>;
}

function note(message: string, level: NoteLevel = 'info'): void {
  daemonNotes.note(message, level);
}

// Exit status of a daemon that found its data folder owned by a live daemon (EX_TEMPFAIL: try again later).
export const EXIT_FOLDER_TAKEN = 75;
export const EXIT_PORT_BUSY = 69;
// On shutdown, how long requests in flight (not streams) may take to finish before the pool closes under them.
const IN_FLIGHT_GRACE_MS = 10_000;

async function resolveDatabase(config: AppConfig): Promise<{ url: string; embedded: EmbeddedServer | null }> {
  if (config.databaseUrl) return { url: config.databaseUrl, embedded: null };
  const embedded = new EmbeddedServer({ home: config.home, log: note });
  const connection = await embedded.start();
  try {
    await embedded.ensureDatabase('svc');
  } catch (err) {
    await embedded.stop();
    throw err;
  }
  return { url: connection.url('svc'), embedded };
}

// A fixed heap growth trades a few more full GCs for memory: a 100k project's writes otherwise leave mostly garbage
// (docs/adr/0045). V8 reads the flag at every full GC.
export function applyHeapGrowth(percent: number): void {
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${percent}`);
}

export async function startDaemon(config: AppConfig): Promise<RunningDaemon> {
  applyHeapGrowth(config.heapGrowthPercent);
  // The lock comes before the embedded server is looked at, so a second daemon leaves the first one's server alone
  // (an external SVC_DATABASE_URL needs none); then the port, before the database is touched.
  const intended = `http://${config.host}:${config.port}`;
  const lock = config.databaseUrl ? null : DaemonLock.acquire(config.home, intended);
  let databaseUrl: string;
  let embedded: EmbeddedServer | null;
  try {
    await assertPortFree(config.host, config.port);
    ({ url: databaseUrl, embedded } = await resolveDatabase(config));
  } catch (err) {
    lock?.release();
    throw err;
  }
  try {
    const applied = await runMigrations(databaseUrl);
    if (applied.length > 0) {
      note(
        `applied ${applied.length} migration${applied.length === 1 ? '' : 's'} (latest ${applied[applied.length - 1]})`,
      );
    }
    const adapter = new FastifyAdapter({
      bodyLimit: config.bodyLimit,
      trustProxy: false,
      requestIdHeader: false,
      genReqId: assignRequestId,
      onProtoPoisoning: 'error',
      onConstructorPoisoning: 'error',
      // while closing, the drain hook answers its own JSON 503 shutting_down (common/drain.ts)
      return503OnClosing: false,
      clientErrorHandler: writeClientError,
    });
    const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config, databaseUrl), adapter, {
      bufferLogs: true,
      abortOnError: false,
      logger: new BootLogger(),
    });
    app.useLogger(new DaemonLogger(app.get(Logger)));
    drain.reset();
    registerDrainHooks(app.getHttpAdapter().getInstance() as unknown as FastifyInstance);
    registerBodyParsers(app, { importBodyLimit: config.importBodyLimit });
    app.useGlobalPipes(createValidationPipe());
    await app.listen({ port: config.port, host: config.host });
    const address = app.getHttpServer().address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const url = `http://${config.host}:${port}`;
    lock?.update(url);
    embedded?.watch();
    // the token is shown only on a terminal: `svc daemon > file` (or 2> file) leaves it in the credential file only
    const onTerminal = Boolean(process.stdout.isTTY) && Boolean(process.stderr.isTTY);
    const firstBoot = app.get(BootstrapService).announce(url, onTerminal);
    // CPU only, in short steps between requests (see frontier-warm-up.ts)
    void warmUpFrontier().catch((err: unknown) => note(`frontier warm-up: ${(err as Error).message}`, 'warn'));
    let stopping: Promise<void> | null = null;
    const stop = () => {
      drain.begin();
      stopping ??= drain
        .settle(config.drainSeconds * 1000)
        .then(() => drain.finishInFlight(IN_FLIGHT_GRACE_MS))
        .then(() => app.close())
        .catch((err: unknown) => note(`shutdown: ${(err as Error).message}`, 'warn'))
        .then(() => embedded?.stop())
        .then(() => lock?.release());
      return stopping;
    };
    return { app, url, firstBoot, stop };
  } catch (err) {
    await embedded?.stop();
    lock?.release();
    throw err;
  }
}

async function main(): Promise<void> {
  let config: AppConfig;
  try {
    config = parseConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      note(err.message, 'fatal');
      process.exit(78);
    }
    throw err;
  }
  const started = Date.now();
  let daemon: RunningDaemon;
  try {
    daemon = await startDaemon(config);
  } catch (err) {
    if (err instanceof DaemonLockHeldError) {
      note(err.message, 'fatal');
      process.exit(EXIT_FOLDER_TAKEN);
    }
    if (err instanceof PortBusyError) {
      note(err.message, 'fatal');
      process.exit(EXIT_PORT_BUSY);
    }
    throw err;
  }
  // One write, so the first-boot banner follows "listening" at once and is the last thing on the terminal.
  const listening = `listening on ${daemon.url} (ready in ${Date.now() - started} ms)`;
  if (daemonNotes.format === 'pretty') {
    const banner = daemon.firstBoot ? `\n${frameBanner(daemon.firstBoot, process.stderr.columns)}` : '';
    process.stderr.write(`svc daemon: ${listening}\n${banner}`);
  } else {
    const bootNote = daemon.firstBoot
      ? formatNote('json', 'info', daemon.firstBoot.filter(Boolean).join(' '), { first_boot: true })
      : '';
    process.stderr.write(formatNote('json', 'info', listening, { url: daemon.url }) + bootNote);
  }
  // Later signals (Ctrl-C reaches svc and this process both) must not cut the drain short.
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      note(`${signal} received, already shutting down`);
      return;
    }
    stopping = true;
    note(`${signal} received, shutting down`);
    void daemon.stop().then(() => process.exit(0));
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

// A fault nothing caught ends the process as Node would (status 1), reported as one log line, not a bare stack trace.
function fatal(what: string) {
  return (err: unknown) => {
    daemonNotes.note(`${what}: ${err instanceof Error ? err.message : String(err)}`, 'fatal', {
      stack: err instanceof Error ? err.stack : undefined,
    });
    process.exit(1);
  };
}

if (require.main === module) {
  process.on('uncaughtException', fatal('uncaught exception'));
  process.on('unhandledRejection', fatal('unhandled rejection'));
  main().catch((err: unknown) => {
    daemonNotes.note(`failed to start: ${err instanceof Error ? err.message : String(err)}`, 'fatal', {
      stack: err instanceof Error ? err.stack : undefined,
    });
    process.exit(1);
  });
}
