export interface MachineCredentialResponse {
  machine_id: string;
  machine_name: string;
  actor: string;
  org: string;
  token_prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface MachineListResponse {
  machines: MachineCredentialResponse[];
}

export interface RevokeMachineResponse {
  machine_id: string;
  revoked: number;
}
