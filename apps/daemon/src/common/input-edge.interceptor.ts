import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { Observable } from 'rxjs';

import { checkRequestPart } from './input-limits';
import { multiLineFieldsOf, RouteParams } from './text-fields';

// Runs before any pipe, so bodies read without a DTO are checked too; each route's own filter shapes the refusal.
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
