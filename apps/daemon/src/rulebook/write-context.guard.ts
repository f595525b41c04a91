import { CanActivate, ExecutionContext, Injectable, NestMiddleware } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';

import { CLIENT_HEADER, CLIENT_PATHS, SESSION_HEADER, WritePath } from '@app/contracts';

import { RequestWithActor } from '../auth/actor';
import { actorWriter, anonymousWriter, currentWrite, runInWrite, WriteContext } from '../database/write-context';
import { writerSessionEnded, writerSessionNotFound } from './rulebook.errors';
import { RulebookRepository } from './rulebook.repository';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

type Headers = IncomingMessage['headers'];

// Every request runs in a write context of its own, opened here, before Nest's pipeline, with an anonymous writer:
// whatever a request does runs inside it, however late it is awaited. WriteContextGuard fills it in once the caller
// is known (ADR 0107: the context was an interceptor's, and Nest wraps each interceptor of every request in an rxjs
// `defer` over an `AsyncResource.bind`).
@Injectable()
export class WriteScopeMiddleware implements NestMiddleware {
  use(request: IncomingMessage, _response: unknown, next: () => void): void {
    const write: WriteContext = {
      writer: anonymousWriter(clientPath(request.headers)),
      mutation: !READS.has(request.method ?? 'GET'),
      passed: new Set(),
    };
    runInWrite(write, next);
  }
}

// Who is writing (actor, credential, x-svc-session, x-svc-client), read by the change-record triggers and the claim
// rule. A session named must be the caller's own and live. Runs after BearerAuthGuard (app.module lists the guards in
// order).
@Injectable()
export class WriteContextGuard implements CanActivate {
  constructor(private readonly repository: RulebookRepository) {}

  // Synchronous unless the request names a session (no promise for Nest to await on every request).
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const write = currentWrite();
    if (context.getType() !== 'http' || !write) return true;
    const request = context.switchToHttp().getRequest<FastifyRequest & RequestWithActor>();
    const actor = request.actor;
    if (!actor) return true;
    write.writer = actorWriter(actor, write.writer.path);
    const named = header(request.headers, SESSION_HEADER);
    return named ? this.nameSession(write, actor.id, named) : true;
  }

  private async nameSession(write: WriteContext, actorId: number, named: string): Promise<true> {
    const id = /^[1-9][0-9]{0,9}$/.test(named) ? Number(named) : NaN;
    const session = Number.isSafeInteger(id) ? await this.repository.session(id) : null;
    if (!session || session.actor_id !== actorId) throw writerSessionNotFound(named);
    if (session.ended_at !== null && write.mutation) throw writerSessionEnded(id);
    write.writer.session_id = session.id;
    write.writer.harness = session.harness;
    return true;
  }
}

function clientPath(headers: Headers): WritePath {
  const client = header(headers, CLIENT_HEADER);
  return CLIENT_PATHS.includes(client as WritePath) ? (client as WritePath) : 'http';
}

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
