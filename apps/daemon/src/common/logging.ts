import { LoggerService, RequestMethod } from '@nestjs/common';
import type { Params } from 'nestjs-pino';
import type { IncomingMessage } from 'node:http';

import { stdSerializers } from 'pino';
import type { Options as HttpLoggerOptions } from 'pino-http';
import pinoPretty from 'pino-pretty';

import { PINO_REDACT_PATHS } from '@app/contracts';

import { clientAddress, compileTrust, TrustFunction } from './client-identity';

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

// Waiting machines poll thousands of times a second: not request-logged (the filter still logs failures).
const UNLOGGED_ROUTES = [
  { method: RequestMethod.POST, path: 'api/machine/authorizations/token' },
  { method: RequestMethod.POST, path: 'api/orgs/:slug/machine/authorizations/token' },
];

export type LogFormat = 'json' | 'pretty';

export function resolveLogFormat(setting: 'auto' | LogFormat, stdoutIsTty: boolean): LogFormat {
  if (setting !== 'auto') return setting;
  return stdoutIsTty ? 'pretty' : 'json';
}

// A 503 is the daemon's own retryable answer (with Retry-After), never a fault of its code: warn.
export function requestLogLevel(statusCode: number, err?: unknown): 'error' | 'warn' | 'info' {
  if (statusCode === 503) return 'warn';
  if (err || statusCode >= 500) return 'error';
  if (statusCode >= 400) return 'warn';
  return 'info';
}

export const ACCESS = Symbol('svc.access');

// Read structurally: common/ imports no feature.
export interface AccessActor {
  id: number;
  name: string;
  via: string;
  credentialId: number;
}

export interface AccessNotes {
  route: string | null;
  actor?: AccessActor;
  code?: string | null;
}

type RawRequest = IncomingMessage & { id?: unknown; [ACCESS]?: AccessNotes };

export const UNMATCHED_ROUTE = '(unmatched)';

// The access line's fields: never the URL, a header or a body, so a token or code in them is never logged.
export function accessFields(
  req: RawRequest,
  res: { statusCode: number },
  responseTimeMs: number,
  trust: TrustFunction,
): Record<string, unknown> {
  const notes = req[ACCESS];
  const actor = notes?.actor;
  let client: string | null = null;
  try {
    client = clientAddress(req, trust);
  } catch {
    client = req.socket?.remoteAddress ?? null;
  }
  return {
    method: req.method,
    route: notes?.route ?? UNMATCHED_ROUTE,
    status: res.statusCode,
    duration_ms: Math.round(responseTimeMs * 10) / 10,
    actor: actor ? { id: actor.id, name: actor.name, via: actor.via, credential_id: actor.credentialId } : null,
    code: notes?.code ?? null,
    client,
    peer: req.socket?.remoteAddress ?? null,
  };
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
  method?: string;
  route?: string;
  status?: number;
  duration_ms?: number;
}

export function prettyMessage(log: Record<string, unknown>, messageKey: string): string {
  const { context, method, route, status, duration_ms } = log as RequestLogFields;
  const message = String(log[messageKey] ?? '');
  if (method && status !== undefined) {
    const took = typeof duration_ms === 'number' ? ` (${Math.round(duration_ms)} ms)` : '';
    return `${method} ${route ?? ''} → ${status}${took}`;
  }
  return typeof context === 'string' && context ? `[${context}] ${message}` : message;
}

// Synchronous, in-process pretty printing: lines keep their order with what the daemon writes to the terminal.
export function prettyStream(colorize: boolean) {
  return pinoPretty({
    colorize,
    sync: true,
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname,context,reqId,method,route,status,duration_ms,actor,code,client,peer,err',
    messageFormat: prettyMessage,
    singleLine: true,
  });
}

export function loggerParams(
  level: string,
  format: LogFormat = 'json',
  colorize = false,
  trustedProxies: readonly string[] = [],
): Params {
  const trust = compileTrust(trustedProxies);
  const options: HttpLoggerOptions = {
    level,
    redact: { paths: [...new Set([...LOG_REDACT_PATHS, ...PINO_REDACT_PATHS])], censor: '[redacted]' },
    autoLogging: {
      ignore: (req) => HEALTH_PATHS.has((req as { originalUrl?: string }).originalUrl ?? req.url ?? ''),
    },
    // lines logged during a request carry only reqId; the access line at its end carries the rest
    genReqId: (req) => (req as RawRequest).id as string,
    quietReqLogger: true,
    quietResLogger: true,
    // pino-http binds a child logger to the serialized, redacted request on every request, used only by loggers the
    // two quiet flags above replace: the request serializes to nothing (ADR 0107). pino still runs its redaction over
    // every binding and logged field that is not an object too (its `strict` is off): with the wildcard paths, a walk
    // of every path per field, about 12 KB of garbage for the request id's child alone.
    wrapSerializers: false,
    serializers: { req: () => undefined, res: stdSerializers.res, err: stdSerializers.err },
    customSuccessMessage: () => 'request completed',
    customErrorMessage: (_req, res) => (res.statusCode === 503 ? 'request deferred (retryable)' : 'request failed'),
    customSuccessObject: (req, res, value: { responseTime: number }) =>
      accessFields(req as RawRequest, res, value.responseTime, trust),
    customErrorObject: (req, res, err, value: { responseTime: number }) => ({
      ...accessFields(req as RawRequest, res, value.responseTime, trust),
      err: { type: (err as Error).name, message: (err as Error).message },
    }),
    customLogLevel: (_req, res, err) => requestLogLevel(res.statusCode, err),
  };
  return {
    exclude: UNLOGGED_ROUTES,
    pinoHttp: format === 'pretty' ? [options, prettyStream(colorize)] : options,
  };
}

// Colour only on a terminal and not under NO_COLOR (colorette's rule, which pino-pretty uses).
export function daemonLoggerParams(
  config: { logLevel: string; logFormat: 'auto' | LogFormat; trustedProxies?: readonly string[] },
  stdoutIsTty = process.stdout.isTTY === true,
): Params {
  const format = resolveLogFormat(config.logFormat, stdoutIsTty);
  return loggerParams(config.logLevel, format, stdoutIsTty && pinoPretty.isColorSupported, config.trustedProxies);
}
