import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const REQUEST_ID_HEADER = 'x-request-id';

// A token a log line can carry as is (UUID, ULID, Caddy's and nginx's ids fit).
const ACCEPTED = /^[A-Za-z0-9._:@-]{1,128}$/;

export function acceptedRequestId(header: string | string[] | undefined): string | null {
  const value = Array.isArray(header) ? header[0] : header;
  return typeof value === 'string' && ACCEPTED.test(value) ? value : null;
}

// Kept on the raw request too, so pino-http tags every line of the request with it.
export function assignRequestId(req: IncomingMessage): string {
  const id = acceptedRequestId(req.headers[REQUEST_ID_HEADER]) ?? randomUUID();
  (req as IncomingMessage & { id?: string }).id = id;
  return id;
}
