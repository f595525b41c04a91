import { parse as parseQueryString } from 'node:querystring';

import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';

import { jsonShapeProblem, MAX_OBJECT_KEYS, tooManyKeys } from './input-limits';

// Unauthenticated routes take small bodies: a stranger cannot make the daemon read or parse a megabyte.
export const PUBLIC_BODY_LIMIT = 8 * 1024;
const PUBLIC_ROUTE = /^\/(?:machine-approval(?:\/|$)|api\/machine\/|api\/orgs\/[^/]+\/api\/machine\/)/;

export function isPublicBodyRoute(url: string): boolean {
  return PUBLIC_ROUTE.test(url);
}

// Replaces Nest's parsers: JSON is scanned for shape limits (input-limits.ts) before JSON.parse. Call before
// listen: the onRoute hook must see the routes. /v1/import has a larger limit of its own (multi-MiB backlogs).
export function registerBodyParsers(app: NestFastifyApplication, limits: { importBodyLimit?: number } = {}): void {
  const fastify = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;
  fastify.addHook('onRoute', (route) => {
    if (isPublicBodyRoute(route.url))
      route.bodyLimit = Math.min(route.bodyLimit ?? PUBLIC_BODY_LIMIT, PUBLIC_BODY_LIMIT);
    else if (route.url === '/v1/import' && limits.importBodyLimit !== undefined)
      route.bodyLimit = Math.max(route.bodyLimit ?? 0, limits.importBodyLimit);
  });
  const { onProtoPoisoning, onConstructorPoisoning } = fastify.initialConfig;
  const parseJson = fastify.getDefaultJsonParser(onProtoPoisoning ?? 'error', onConstructorPoisoning ?? 'error');
  app.useBodyParser('application/json', {}, (request, body, done) => {
    const text = body.toString('utf8');
    const problem = jsonShapeProblem(text);
    if (problem) {
      done(problem, undefined);
      return;
    }
    void parseJson(request as unknown as Parameters<typeof parseJson>[0], text, done);
  });
  app.useBodyParser('application/x-www-form-urlencoded', {}, (_request, body, done) => {
    const form = parseQueryString(body.toString('utf8'), '&', '=', { maxKeys: MAX_OBJECT_KEYS + 1 });
    if (Object.keys(form).length > MAX_OBJECT_KEYS) {
      done(tooManyKeys('request body', ''), undefined);
      return;
    }
    done(null, form);
  });
}
