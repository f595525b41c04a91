import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { from, mergeMap, Observable } from 'rxjs';

import { CLIENT_HEADER, CLIENT_PATHS, SESSION_HEADER, WritePath } from '@app/contracts';
import type { Rule } from '@app/core';

import { RequestWithActor } from '../auth/actor';
import { anonymousWriter, runInWrite, WriteContext } from '../database/write-context';
import { writerSessionEnded, writerSessionNotFound } from './rulebook.errors';
import { RulebookRepository } from './rulebook.repository';
import { WRITES } from './writes.decorator';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

// Who is writing (actor, credential, x-svc-session, x-svc-client), read by the change-record triggers and the claim
// rule. A session named must be the caller's own and live.
@Injectable()
export class WriteContextInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly repository: RulebookRepository,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const request = context.switchToHttp().getRequest<FastifyRequest & RequestWithActor>();
    const declared = this.reflector.get<Rule[] | undefined>(WRITES, context.getHandler()) ?? null;
    const write: WriteContext = {
      writer: this.writer(request),
      mutation: !READS.has(request.method),
      declared,
      passed: new Set(),
    };
    const actor = request.actor;
    const named = actor ? header(request, SESSION_HEADER) : undefined;
    return runInWrite(write, () => {
      // `handle()` keeps the write's context for the handler, however late it is subscribed
      const handled = next.handle();
      if (!actor || !named) return handled;
      return from(this.nameSession(write, actor.id, named)).pipe(mergeMap(() => handled));
    });
  }

  private writer(request: FastifyRequest & RequestWithActor): WriteContext['writer'] {
    const client = header(request, CLIENT_HEADER);
    const path: WritePath = CLIENT_PATHS.includes(client as WritePath) ? (client as WritePath) : 'http';
    const actor = request.actor;
    if (!actor) return anonymousWriter(path);
    return {
      actor_id: actor.id,
      actor_name: actor.name,
      credential_kind: actor.via,
      credential_id: actor.credentialId,
      session_id: null,
      harness: null,
      path,
      forced: false,
    };
  }

  private async nameSession(write: WriteContext, actorId: number, named: string): Promise<void> {
    const id = /^[1-9][0-9]{0,9}$/.test(named) ? Number(named) : NaN;
    const session = Number.isSafeInteger(id) ? await this.repository.session(id) : null;
    if (!session || session.actor_id !== actorId) throw writerSessionNotFound(named);
    if (session.ended_at !== null && write.mutation) throw writerSessionEnded(id);
    write.writer.session_id = session.id;
    write.writer.harness = session.harness;
  }
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
