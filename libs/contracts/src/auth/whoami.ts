// GET /v1/whoami
export interface WhoAmIResponse {
  actor_id: number;
  name: string;
  is_admin: boolean;
  via: string;
  machine_id: string | null;
  // the credential's expiry (API tokens may expire); null when it never does
  expires_at: string | null;
}

// GET /readyz: 200 when the database answers, 503 while it does not.
export interface ReadyResponse {
  ok: boolean;
}
