import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';

import { DomainError, GENERIC_ERROR_CODES } from '../common/domain-error';
import { RequestWithActor } from './actor';
import { AuthRepository } from './auth.repository';
import { IS_PUBLIC } from './public.decorator';
import { hashToken } from './tokens';

const UNAUTHORIZED = () =>
  new DomainError(
    GENERIC_ERROR_CODES.unauthorized,
    'a valid bearer token is required (svc connect, or SVC_TOKEN)',
    401,
    {},
    {
      'www-authenticate': 'Bearer',
    },
  );

// Every route needs a bearer token (API token or machine credential) unless it is marked @Public().
// The lookup is one indexed query per request, so a revoked credential is refused at once on every replica.
@Injectable()
export class BearerAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly repository: AuthRepository,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()])) return true;
    const request = context
      .switchToHttp()
      .getRequest<RequestWithActor & { headers: Record<string, string | undefined> }>();
    const header = request.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match) throw UNAUTHORIZED();
    const actor = await this.repository.findActorByCredentialHash(hashToken(match[1]));
    if (!actor) throw UNAUTHORIZED();
    if (actor.status !== 'active') {
      throw new DomainError('actor_disabled', 'this actor is disabled; ask an organization admin to re-enable it', 403);
    }
    request.actor = actor;
    void this.repository.touchCredential(actor).catch(() => undefined);
    return true;
  }
}
