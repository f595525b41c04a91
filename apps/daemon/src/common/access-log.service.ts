import { Injectable, OnModuleInit } from '@nestjs/common';
import type { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';

import { InjectHttpAdapterHost } from './inject-http-adapter-host';
import { ACCESS, AccessActor, AccessNotes } from './logging';
import { REQUEST_ID_HEADER } from './request-id';

export function refusalCode(payload: unknown): string | null {
  const text = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : null;
  if (text === null || text.length > 4096) return null;
  try {
    const code = (JSON.parse(text) as { code?: unknown }).code;
    return typeof code === 'string' && /^[a-z][a-z0-9_]{0,63}$/.test(code) ? code : null;
  } catch {
    return null;
  }
}

// Fastify hooks, added before listen. The route is the matched pattern, never the URL (it may carry a code).
@Injectable()
export class AccessLogService implements OnModuleInit {
  constructor(@InjectHttpAdapterHost() private readonly adapterHost: HttpAdapterHost) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.addHook('onRequest', (request, reply, done) => {
      void reply.header(REQUEST_ID_HEADER, request.id);
      const notes: AccessNotes = { route: request.routeOptions.url ?? null };
      Object.defineProperty(notes, 'actor', {
        enumerable: true,
        get: () => (request as FastifyRequest & { actor?: AccessActor }).actor,
      });
      (request.raw as { [ACCESS]?: AccessNotes })[ACCESS] = notes;
      done();
    });
    fastify.addHook('onSend', (request, reply, payload, done) => {
      if (reply.statusCode >= 400) {
        const notes = (request.raw as { [ACCESS]?: AccessNotes })[ACCESS];
        const code = refusalCode(payload);
        if (notes && code !== null) notes.code = code;
      }
      done(null, payload);
    });
  }
}
