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
  // Set by the hosted /api/orgs/<slug> forward (see RequestScopeService): this request may see only that
  // organization's projects, whoever the caller is.
  scopeOrganizationId?: number | null;
}

// The one organization a request is confined to, or null when it is not confined: the hosted path's organization,
// else the credential's own: a machine credential acts only in the organization it was approved for, and so does
// every API token minted from one (api_tokens.organization_id, carried down the lineage).
export function organizationScope(actor: AuthenticatedActor): number | null {
  return actor.scopeOrganizationId ?? actor.organizationId;
}

// Every project, no filter: a server admin whose request is not confined to one organization.
export function seesEveryProject(actor: AuthenticatedActor): boolean {
  return actor.isAdmin && organizationScope(actor) === null;
}

export interface RequestWithActor {
  actor?: AuthenticatedActor;
}

export const CurrentActor = createParamDecorator((_data: unknown, ctx: ExecutionContext): AuthenticatedActor => {
  const request = ctx.switchToHttp().getRequest<RequestWithActor>();
  return request.actor!;
});
