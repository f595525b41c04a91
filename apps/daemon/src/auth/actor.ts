import { createParamDecorator, ExecutionContext } from '@nestjs/common';

export interface AuthenticatedActor {
  id: number;
  name: string;
  isAdmin: boolean;
  status: 'active' | 'disabled';
  // How this request authenticated: an API token or an approved machine's credential.
  via: 'api_token' | 'machine_credential';
  credentialId: number;
  machineId: string | null;
  organizationId: number | null;
  // API tokens may expire; machine credentials do not (they are revoked or rotated).
  expiresAt?: Date | null;
}

export interface RequestWithActor {
  actor?: AuthenticatedActor;
}

export const CurrentActor = createParamDecorator((_data: unknown, ctx: ExecutionContext): AuthenticatedActor => {
  const request = ctx.switchToHttp().getRequest<RequestWithActor>();
  return request.actor!;
});
