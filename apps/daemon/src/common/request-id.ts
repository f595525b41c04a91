import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const REQUEST_ID_HEADER = 'x-request-id';

// What a caller (or the proxy in front) may name a request with: a plain token a log line can carry as is, no
// spaces, quotes or control characters, at most 128 characters (a UUID, a ULID, Caddy's or nginx's ids all fit).
const ACCEPTED = /^[A-Za-z0-9._:@-]{1,128}$/;

export function acceptedRequestId(header: string | string[] | undefined): string | null {
  const value = Array.isArray(header) ? header[0] : header;
  return typeof value === 'string' && ACCEPTED.test(value) ? value : null;
}

// Fastify's genReqId: the caller's X-Request-Id when acceptable, else a new UUID. It is kept on the raw request too,
// where the request logger (pino-http) reads it, so every line logged during the request carries the same id, and
// the answer returns it (X-Request-Id, see AccessLogService).
export function assignRequestId(req: IncomingMessage): string {
  const id = acceptedRequestId(req.headers[REQUEST_ID_HEADER]) ?? randomUUID();
  (req as IncomingMessage & { id?: string }).id = id;
  return id;
}
