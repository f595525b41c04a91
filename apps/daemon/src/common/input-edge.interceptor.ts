import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { Observable } from 'rxjs';

import { checkRequestPart } from './input-limits';
import { multiLineFieldsOf, RouteParams } from './text-fields';

// Every route, before any pipe reads the request: the body's nesting depth and every string of the body, the query
// and the path that PostgreSQL could not store or that carries control characters (only the body fields listed in
// text-fields.ts may hold newlines and tabs). Bodies read without a DTO are covered too; each route's own exception
// filter shapes the refusal (JSON, the machine-authorization contract, the approval page's HTML).
@Injectable()
export class InputEdgeInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const params = (request.params ?? {}) as RouteParams;
    checkRequestPart(request.params, 'path');
    checkRequestPart(request.query, 'query');
    const multiLine = multiLineFieldsOf(request.method, request.routeOptions?.url, params);
    checkRequestPart(request.body, 'request body', '', multiLine);
    return next.handle();
  }
}
