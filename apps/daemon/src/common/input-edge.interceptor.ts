import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { Observable } from 'rxjs';

import { checkRequestPart } from './input-limits';

// Every route, before any pipe reads the request: the body's nesting depth and every string of the body, the query
// and the path that PostgreSQL could not store. Bodies read without a DTO are covered too; each route's own
// exception filter shapes the refusal (JSON, the machine-authorization contract, the approval page's HTML).
@Injectable()
export class InputEdgeInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    checkRequestPart(request.params, 'path');
    checkRequestPart(request.query, 'query');
    checkRequestPart(request.body, 'request body');
    return next.handle();
  }
}
