import { parse as parseQueryString } from 'node:querystring';

import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';

import { jsonShapeProblem, MAX_OBJECT_KEYS, tooManyKeys } from './input-limits';

// The routes anyone may call without a credential: the device-code flow's machine side and the approval page.
// Their bodies are a few short fields (the longest, a poll, stays under 3 KB even with every character escaped), so
// they take at most PUBLIC_BODY_LIMIT bytes: a stranger cannot make the daemon read, parse or validate a megabyte.
export const PUBLIC_BODY_LIMIT = 8 * 1024;
const PUBLIC_ROUTE = /^\/(?:machine-approval(?:\/|$)|api\/machine\/|api\/orgs\/[^/]+\/api\/machine\/)/;

export function isPublicBodyRoute(url: string): boolean {
  return PUBLIC_ROUTE.test(url);
}

// The request body parsers, in place of Nest's defaults (same content types, same proto-poisoning refusal): JSON
// is scanned for the shape limits (input-limits.ts) before JSON.parse, a form stops counting past the key limit.
// A refusal is a coded 400/413 like any other. Call before listen: the onRoute hook must see the routes.
// POST /v1/import takes a whole backlog document (a migration from beads or Taskwarrior is several MiB), so it has
// a limit of its own (SVC_IMPORT_BODY_LIMIT) above the general SVC_BODY_LIMIT.
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
