import type {
  ActorListResponse,
  ActorWire,
  AddMemberRequest,
  CreateActorRequest,
  CreatedTokenResponse,
  CreateTokenRequest,
  MemberListResponse,
  MembershipWire,
  RemoveMemberRequest,
  RemoveMemberResponse,
  RevokeTokenResponse,
  TokenListResponse,
} from '@app/contracts';

import { connectedCredentials } from './connection';
import { SvcClient } from './http-client';

export interface WhoAmIWire {
  actor_id: number;
  name: string;
  is_admin: boolean;
  via: string;
  machine_id: string | null;
}

// Typed calls for people, memberships and API tokens (docs/api-team.md).
export class TeamApi {
  constructor(readonly http: SvcClient) {}

  whoami(): Promise<WhoAmIWire> {
    return this.http.get('v1/whoami');
  }

  actors(): Promise<ActorListResponse> {
    return this.http.get('v1/actors');
  }

  actor(name: string): Promise<ActorWire> {
    return this.http.get(`v1/actors/${encodeURIComponent(name)}`);
  }

  createActor(body: CreateActorRequest): Promise<ActorWire> {
    return this.http.post('v1/actors', body);
  }

  setActorStatus(name: string, status: 'active' | 'disabled'): Promise<ActorWire> {
    return this.http.post(`v1/actors/${encodeURIComponent(name)}/${status === 'active' ? 'enable' : 'disable'}`);
  }

  members(org?: string): Promise<MemberListResponse> {
    return this.http.get('v1/members', { org });
  }

  addMember(body: AddMemberRequest): Promise<MembershipWire> {
    return this.http.post('v1/members', body);
  }

  removeMember(body: RemoveMemberRequest): Promise<RemoveMemberResponse> {
    return this.http.post('v1/members/remove', body);
  }

  tokens(query: { actor?: string; all?: boolean; include_revoked?: boolean } = {}): Promise<TokenListResponse> {
    return this.http.get('v1/tokens', query);
  }

  createToken(body: CreateTokenRequest): Promise<CreatedTokenResponse> {
    return this.http.post('v1/tokens', body);
  }

  revokeToken(id: number): Promise<RevokeTokenResponse> {
    return this.http.post(`v1/tokens/${id}/revoke`);
  }
}

// For a command: the connection its global options name (NotConnectedError without any credential).
export function teamApiFor(options: { url?: string; token?: string }): TeamApi {
  const { url, token } = connectedCredentials(options);
  return new TeamApi(new SvcClient(url, token));
}
