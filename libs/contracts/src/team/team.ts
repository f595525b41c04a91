export type ActorKind = 'person' | 'agent';
export type ActorStatus = 'active' | 'disabled';
export type MembershipRole = 'admin' | 'member';

export interface MembershipWire {
  org: string;
  actor: string;
  role: MembershipRole;
  status: ActorStatus;
  created_at: string;
}

export interface ActorWire {
  actor_id: number;
  name: string;
  email: string | null;
  kind: ActorKind | 'system';
  status: ActorStatus;
  is_admin: boolean;
  company_sign_in: boolean;
  created_at: string;
  memberships: { org: string; role: MembershipRole; status: ActorStatus }[];
}

export interface ActorListResponse {
  actors: ActorWire[];
}

export interface CreateActorRequest {
  name: string;
  email?: string;
  kind?: ActorKind;
  admin?: boolean;
  org?: string;
}

export interface MemberListResponse {
  members: MembershipWire[];
}

export interface AddMemberRequest {
  actor: string;
  role?: MembershipRole;
  org?: string;
}

export interface RemoveMemberRequest {
  actor: string;
  org?: string;
}

export interface RemoveMemberResponse {
  org: string;
  actor: string;
  removed: boolean;
}

export interface TokenWire {
  token_id: number;
  name: string;
  actor: string;
  token_prefix: string;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
  // an API token's id or a machine's id; both null for the first-boot token. The token expires no later than that
  // credential and is revoked with it.
  parent_token_id: number | null;
  parent_machine_id: string | null;
  // metrics: GET /metrics only
  scope: 'full' | 'metrics';
}

export interface TokenListResponse {
  tokens: TokenWire[];
}

export interface CreateTokenRequest {
  actor?: string;
  name?: string;
  // seconds
  expires_in?: number;
  // metrics: a token that reads GET /metrics and nothing else (a server admin mints it); default full
  scope?: 'full' | 'metrics';
}

// The only response that ever carries a raw API token: shown once, never stored in clear.
export interface CreatedTokenResponse extends TokenWire {
  token: string;
}

export interface RevokeTokenResponse {
  token_id: number;
  revoked: boolean;
}

export interface OrganizationWire {
  slug: string;
  name: string;
  created_at: string;
  member_count: number;
  admin_count: number;
  // the caller's role in it; null: not an active member (a server admin looking at another organization)
  role: MembershipRole | null;
}

export interface OrganizationListResponse {
  organizations: OrganizationWire[];
}

export interface OrganizationDetailWire extends OrganizationWire {
  members: MembershipWire[];
}

export interface CreateOrganizationRequest {
  slug: string;
  name?: string;
}
