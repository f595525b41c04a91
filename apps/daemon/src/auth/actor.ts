import { createParamDecorator, ExecutionContext } from '@nestjs/common';

export interface AuthenticatedActor {
  id: number;
  name: string;
  isAdmin: boolean;
  status: 'active' | 'disabled';
  // How this request authenticated: an API token or an approved machine's credential. The approval page's session
  // acts with the API token it was signed in with, or with NO_CREDENTIAL (company sign-in).
  via: 'api_token' | 'machine_credential';
  credentialId: number;
  machineId: string | null;
  organizationId: number | null;
  // When the credential expires (null: never). A credential made by another (a minted token, a machine approved with
  // a token or a machine credential) expires no later than it.
  expiresAt?: Date | null;
  // Set by the hosted /api/orgs/<slug> forward (see RequestScopeService): this request may see only that
  // organization's projects, whoever the caller is.
  scopeOrganizationId?: number | null;
  // What the credential may do: everything its actor may (full), or read GET /metrics only (an API token minted
  // with scope metrics, issue 40). Absent: full.
  scope?: CredentialScope;
}

export type CredentialScope = 'full' | 'metrics';

// The one organization a request is confined to, or null when it is not confined: the hosted path's organization,
// else the credential's own: a machine credential acts only in the organization it was approved for, and so does
// every API token minted from one (api_tokens.organization_id, carried down the lineage).
export function organizationScope(actor: AuthenticatedActor): number | null {
  return actor.scopeOrganizationId ?? actor.organizationId;
}

// Server administration (creating organizations, making server admins, reaching people, tokens, machines and
// sessions of every organization, /metrics, the doctor, registering workflows) takes a server admin whose request
// is not confined to one organization. Confined to an organization, a server admin has the powers of an admin of
// that organization and none beyond it. Every "is the caller a server admin" question asks this, never
// actor.isAdmin.
export function isServerAdmin(actor: AuthenticatedActor): boolean {
  return actor.isAdmin && organizationScope(actor) === null && actor.scope !== 'metrics';
}

// Every project, no filter: a server admin whose request is not confined to one organization.
export function seesEveryProject(actor: AuthenticatedActor): boolean {
  return isServerAdmin(actor);
}

// The approval page's session signed in with company sign-in: no credential stands behind its decisions.
export const NO_CREDENTIAL = 0;

// The credential a request acts with, as the parent of what it makes (a minted API token, an approved machine's
// credential): the child expires no later than it and is revoked with it. null: none (company sign-in).
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
