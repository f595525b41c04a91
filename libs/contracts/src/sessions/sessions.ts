export interface ClaimResponse {
  item_id: string;
  project: string;
  entrypoint: string | null;
  adapter: string | null;
  wip_slot: boolean;
  claimed_at: string;
  renewed_at: string;
  expires_at: string;
}

export interface SessionResponse {
  session_id: number;
  harness: string;
  model: string;
  project: string | null;
  lane: string;
  label: string | null;
  created_at: string;
  last_seen_at: string;
  ended_at: string | null;
  claims: ClaimResponse[];
}

export interface RegisterSessionResponse extends SessionResponse {
  lane_source: string;
  lane_scope: string;
  lane_key: string | null;
}

export interface HeartbeatResponse {
  session_id: number;
  renewed: ClaimResponse[];
}

export interface ReleaseClaimResponse {
  session_id: number;
  item_id: string;
  // false: the session held no live claim on the item (already released, expired, or never its own)
  released: boolean;
}

export const SESSION_STATES = ['live', 'ended', 'all'] as const;
export type SessionState = (typeof SESSION_STATES)[number];
export const DEFAULT_SESSIONS_LIMIT = 100;
export const MAX_SESSIONS_LIMIT = 1000;

export interface SessionListResponse {
  sessions: SessionResponse[];
}
