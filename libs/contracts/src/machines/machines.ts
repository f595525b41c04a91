export interface MachineCredentialResponse {
  machine_id: string;
  machine_name: string;
  actor: string;
  org: string;
  token_prefix: string;
  created_at: string;
  last_used_at: string | null;
  // A machine approved with a credential expires with it (null: no expiry; approved through company sign-in or
  // with a credential that has none).
  expires_at: string | null;
  revoked_at: string | null;
}

export interface MachineListResponse {
  machines: MachineCredentialResponse[];
}

export interface RevokeMachineResponse {
  machine_id: string;
  revoked: number;
}
