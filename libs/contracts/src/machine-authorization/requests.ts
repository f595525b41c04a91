// Extensions of the v1 contract (docs/adr/0005). No secret is ever listed: user codes are stored as digests only, so
// an approver types the code the machine shows.

export interface MachineAuthorizationRequest {
  // opaque, stable id of the pending request (not the user code, not a database id)
  request_id: string;
  machine_name: string;
  machine_id: string;
  // the requesting client's address as budgeted (IPv4, or the IPv6 /64)
  client_address: string;
  // organization slug the code waits for; null when a hosted code waits for any organization
  org: string | null;
  created_at: string;
  expires_at: string;
  claimed_by_caller: boolean;
}

export interface MachineAuthorizationRequestList {
  requests: MachineAuthorizationRequest[];
}

export interface MachineAuthorizationRequestResolveBody {
  code: string;
  action: 'approve' | 'deny';
}

// POST /v1/machine-authorizations/requests/:request_id/deny: an approver denies a listed request without its code
// (a request nobody expected, from a machine nobody can ask for its code). Approval still needs the code.
export interface MachineAuthorizationRequestDenyResponse {
  request_id: string;
  decision: 'denied';
}

// A hint to refetch, not a record.
export const MACHINE_AUTHORIZATION_CHANGES = ['started', 'decided', 'consumed', 'expired'] as const;
export type MachineAuthorizationChange = (typeof MACHINE_AUTHORIZATION_CHANGES)[number];

export interface MachineAuthorizationChangeNotice {
  type: 'machine_authorization';
  op: MachineAuthorizationChange;
  request_id: string;
  org: string | null;
}
