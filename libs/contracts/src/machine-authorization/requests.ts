// Pending machine-authorization requests a caller may decide (GET /v1/machine-authorizations), and the
// request-scoped resolve the TUI uses (POST /v1/machine-authorizations/requests/:request_id/resolve).
// Extensions of the v1 contract (documented in docs/adr/0005); no secret is ever listed: user codes are
// stored as digests only, so an approver types the code the machine shows.

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
  // true when the caller already claimed this request (decided it or opened it)
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

// Announced on the event stream (`event: machine_authorization`) on every state change; a hint to refetch.
export const MACHINE_AUTHORIZATION_CHANGES = ['started', 'decided', 'consumed', 'expired'] as const;
export type MachineAuthorizationChange = (typeof MACHINE_AUTHORIZATION_CHANGES)[number];

export interface MachineAuthorizationChangeNotice {
  type: 'machine_authorization';
  op: MachineAuthorizationChange;
  request_id: string;
  org: string | null;
}
