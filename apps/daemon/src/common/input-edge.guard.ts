import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

import { checkRequestPart } from './input-limits';
import { multiLineFieldsOf, RouteParams } from './text-fields';

// Runs after the caller is known and before any pipe, so bodies read without a DTO are checked too; each route's own
// filter shapes the refusal. A guard, not an interceptor: Nest wraps each interceptor of every request in an rxjs
// `defer` over an `AsyncResource.bind`, measurable per write (ADR 0107).
@Injectable()
export class InputEdgeGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const params = (request.params ?? {}) as RouteParams;
    checkRequestPart(request.params, 'path');
    checkRequestPart(request.query, 'query');
    const multiLine = multiLineFieldsOf(request.method, request.routeOptions?.url, params);
    checkRequestPart(request.body, 'request body', '', multiLine);
    return true;
  }
}
