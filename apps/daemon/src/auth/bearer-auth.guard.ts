import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';

import { forbidden } from '../common/domain-error';
import { RequestWithActor } from './actor';
import { bearerRequired, callerDisabled } from './auth.errors';
import { AuthRepository } from './auth.repository';
import { IS_PUBLIC, METRICS_SCOPE } from './public.decorator';
import { RequestScopeService, SCOPE_HEADER } from './request-scope.service';
import { hashToken } from './tokens';

// One indexed query per request, so a revoked credential is refused at once on every replica.
@Injectable()
export class BearerAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly repository: AuthRepository,
    private readonly scope: RequestScopeService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()])) return true;
    const request = context
      .switchToHttp()
      .getRequest<RequestWithActor & { headers: Record<string, string | undefined> }>();
    const header = request.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match) throw bearerRequired();
    const actor = await this.repository.findActorByCredentialHash(hashToken(match[1]));
    if (!actor) throw bearerRequired();
    if (actor.status !== 'active') {
      throw callerDisabled();
    }
    // A metrics-only token reads the @MetricsScope() routes and nothing else.
    if (
      actor.scope === 'metrics' &&
      !this.reflector.getAllAndOverride<boolean>(METRICS_SCOPE, [context.getHandler(), context.getClass()])
    ) {
      throw forbidden('this token reads GET /metrics only (scope metrics)');
    }
    const scope = this.scope.read(request.headers[SCOPE_HEADER]);
    if (scope !== null) {
      if (actor.organizationId !== null && actor.organizationId !== scope) throw bearerRequired();
      actor.scopeOrganizationId = scope;
    }
    request.actor = actor;
    void this.repository.touchCredential(actor).catch(() => undefined);
    return true;
  }
}
