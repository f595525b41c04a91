import { createParamDecorator, ExecutionContext } from '@nestjs/common';

export interface AuthenticatedActor {
  id: number;
  name: string;
  isAdmin: boolean;
  status: 'active' | 'disabled';
  // The approval page's session acts with its sign-in token, or NO_CREDENTIAL (company sign-in).
  via: 'api_token' | 'machine_credential';
  credentialId: number;
  machineId: string | null;
  organizationId: number | null;
  // null: never. A credential made by another expires no later than it.
  expiresAt?: Date | null;
  // Set by the hosted forward (RequestScopeService): confined to that organization's projects.
  scopeOrganizationId?: number | null;
  // metrics: GET /metrics only. Absent: full.
  scope?: CredentialScope;
}

export type CredentialScope = 'full' | 'metrics';

// A machine credential, and every token minted from it, acts only in its organization; so does the hosted path.
export function organizationScope(actor: AuthenticatedActor): number | null {
  return actor.scopeOrganizationId ?? actor.organizationId;
}

// Confined to an organization, a server admin has only that organization's admin powers. Every "is the caller a
// server admin" question asks this, never actor.isAdmin.
export function isServerAdmin(actor: AuthenticatedActor): boolean {
  return actor.isAdmin && organizationScope(actor) === null && actor.scope !== 'metrics';
}

export function seesEveryProject(actor: AuthenticatedActor): boolean {
  return isServerAdmin(actor);
}

// The approval page's session signed in with company sign-in: no credential stands behind its decisions.
export const NO_CREDENTIAL = 0;

// The parent of what a request makes: the child expires no later than it and is revoked with it.
export function actingCredential(
  actor: AuthenticatedActor,
): { via: 'api_token' | 'machine_credential'; id: number } | null {
  return actor.credentialId === NO_CREDENTIAL ? null : { via: actor.via, id: actor.credentialId };
}

export interface RequestWithActor {
  actor?: AuthenticatedActor;
}

export const CurrentActor = createParamDecorator((_data: unknown, ctx: ExecutionContext): AuthenticatedActor => {
  const request = ctx.switchToHttp().getRequest<RequestWithActor>();
  return request.actor!;
});
