import { LoggerService, RequestMethod } from '@nestjs/common';
import type { Params } from 'nestjs-pino';
import type { Options as HttpLoggerOptions } from 'pino-http';
import pinoPretty from 'pino-pretty';

import { PINO_REDACT_PATHS } from '@app/contracts';

// Paths in a log line that may carry a secret; pino replaces their values.
export const LOG_REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-csrf-token"]',
  'res.headers["set-cookie"]',
  'token',
  'device_code',
  'user_code',
  'password',
  '*.token',
  '*.device_code',
  '*.user_code',
  '*.password',
  '*.secret',
];

// Codes travel in some paths (/machine-approval/<CODE>, /v1/machine-authorizations/<CODE>): log the route shape.
const CODE_IN_PATH = /(\/(?:machine-approval|machine-authorizations|machines)\/)[^/?#]+/gi;

export function redactUrl(url: string): string {
  const [path, query] = url.split('?', 2);
  const safePath = path.replace(CODE_IN_PATH, (_m, prefix: string) => `${prefix}[redacted]`);
  return query === undefined ? safePath : `${safePath}?[query]`;
}

const HEALTH_PATHS = new Set(['/healthz', '/readyz', '/livez']);

// Waiting machines poll thousands of times a second; those requests are not request-logged (their failures are,
// by the exception filter), which keeps the hot path cheap.
const UNLOGGED_ROUTES = [
  { method: RequestMethod.POST, path: 'api/machine/authorizations/token' },
  { method: RequestMethod.POST, path: 'api/orgs/:slug/machine/authorizations/token' },
];

export type LogFormat = 'json' | 'pretty';

// auto: a person at a terminal reads lines; anything else (a pipe, a file, a container's log) gets JSON lines.
export function resolveLogFormat(setting: 'auto' | LogFormat, stdoutIsTty: boolean): LogFormat {
  if (setting !== 'auto') return setting;
  return stdoutIsTty ? 'pretty' : 'json';
}

// Successful requests are routine: debug. Refusals are worth a look (warn); failures of the server are errors.
export function requestLogLevel(statusCode: number, err?: unknown): 'error' | 'warn' | 'debug' {
  if (err || statusCode >= 500) return 'error';
  if (statusCode >= 400) return 'warn';
  return 'debug';
}

// Nest's own start-up chatter (one line per module, controller and route): debug, so a boot shows what matters.
export const NEST_BOOT_CONTEXTS: ReadonlySet<string> = new Set([
  'NestFactory',
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestApplication',
]);

export function nestLogLevel(context: unknown): 'debug' | 'info' {
  return typeof context === 'string' && NEST_BOOT_CONTEXTS.has(context) ? 'debug' : 'info';
}

// Wraps nestjs-pino's logger so Nest's start-up lines are logged at debug instead of info.
export class DaemonLogger implements LoggerService {
  constructor(private readonly inner: LoggerService) {}

  log(message: unknown, ...params: unknown[]): void {
    if (nestLogLevel(params[params.length - 1]) === 'debug') this.inner.debug?.(message, ...params);
    else this.inner.log(message, ...params);
  }
  error(message: unknown, ...params: unknown[]): void {
    this.inner.error(message, ...params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.inner.warn(message, ...params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.inner.debug?.(message, ...params);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    this.inner.verbose?.(message, ...params);
  }
  fatal(message: unknown, ...params: unknown[]): void {
    this.inner.fatal?.(message, ...params);
  }
}

interface RequestLogFields {
  context?: unknown;
  req?: { method?: string; url?: string };
  res?: { statusCode?: number };
  responseTime?: number;
}

// One readable line per record: "[Context] message", and "GET /v1/items → 200 (3 ms)" for a request.
export function prettyMessage(log: Record<string, unknown>, messageKey: string): string {
  const { context, req, res, responseTime } = log as RequestLogFields;
  const message = String(log[messageKey] ?? '');
  if (req?.method && res?.statusCode !== undefined) {
    const took = typeof responseTime === 'number' ? ` (${Math.round(responseTime)} ms)` : '';
    return `${req.method} ${req.url ?? ''} → ${res.statusCode}${took}`;
  }
  return typeof context === 'string' && context ? `[${context}] ${message}` : message;
}

// Synchronous, in-process pretty printing: lines keep their order with what the daemon writes to the terminal.
export function prettyStream(colorize: boolean) {
  return pinoPretty({
    colorize,
    sync: true,
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname,context,req,res,responseTime,reqId',
    messageFormat: prettyMessage,
    singleLine: true,
  });
}

export function loggerParams(level: string, format: LogFormat = 'json', colorize = false): Params {
  const options: HttpLoggerOptions = {
    level,
    redact: { paths: [...new Set([...LOG_REDACT_PATHS, ...PINO_REDACT_PATHS])], censor: '[redacted]' },
    autoLogging: {
      ignore: (req) => HEALTH_PATHS.has((req as { originalUrl?: string }).originalUrl ?? req.url ?? ''),
    },
    serializers: {
      req: (req: { id?: unknown; method?: string; url?: string; remoteAddress?: string }) => ({
        id: req.id,
        method: req.method,
        url: redactUrl(req.url ?? ''),
        remoteAddress: req.remoteAddress,
      }),
      res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
    },
    customLogLevel: (_req, res, err) => requestLogLevel(res.statusCode, err),
  };
  return {
    exclude: UNLOGGED_ROUTES,
    pinoHttp: format === 'pretty' ? [options, prettyStream(colorize)] : options,
  };
}

// The daemon's logger: the format follows SVC_LOG_FORMAT (auto: stdout a terminal or not); colour only on a terminal
// and not under NO_COLOR (colorette's rule, which pino-pretty uses).
export function daemonLoggerParams(
  config: { logLevel: string; logFormat: 'auto' | LogFormat },
  stdoutIsTty = process.stdout.isTTY === true,
): Params {
  const format = resolveLogFormat(config.logFormat, stdoutIsTty);
  return loggerParams(config.logLevel, format, stdoutIsTty && pinoPretty.isColorSupported);
}
