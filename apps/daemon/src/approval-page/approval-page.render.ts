import type { FastifyReply } from 'fastify';

import type { PageResponse } from './approval-page.service';

export const PAGE_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
};

export function render(reply: FastifyReply, page: PageResponse): string {
  for (const [name, value] of Object.entries(PAGE_HEADERS)) void reply.header(name, value);
  if (page.cookie) void reply.header('set-cookie', page.cookie);
  if (page.location) void reply.header('location', page.location);
  void reply.status(page.status);
  return page.html ?? '';
}
