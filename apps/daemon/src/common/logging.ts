import { RequestMethod } from '@nestjs/common';
import type { Params } from 'nestjs-pino';

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

const HEALTH_PATHS = new Set(['/healthz', '/readyz']);

// Waiting machines poll thousands of times a second; those requests are not request-logged (their failures are,
// by the exception filter), which keeps the hot path cheap.
const UNLOGGED_ROUTES = [
  { method: RequestMethod.POST, path: 'api/machine/authorizations/token' },
  { method: RequestMethod.POST, path: 'api/orgs/:slug/machine/authorizations/token' },
];

export function loggerParams(level: string): Params {
  return {
    exclude: UNLOGGED_ROUTES,
    pinoHttp: {
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
      customLogLevel: (_req, res, err) =>
        err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info',
    },
  };
}
