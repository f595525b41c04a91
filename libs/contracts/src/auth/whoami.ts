export interface WhoAmIResponse {
  actor_id: number;
  name: string;
  is_admin: boolean;
  via: string;
  machine_id: string | null;
  // the credential's expiry (API tokens may expire); null when it never does
  expires_at: string | null;
}

// 503 while the database does not answer.
export interface ReadyResponse {
  ok: boolean;
}
