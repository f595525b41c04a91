// The refusals of ../shared/spec/machine-authorization.md; codes are the contract's wire codes.

export type StoredAuthorizationStatus = 'pending' | 'approved' | 'denied' | 'consumed';
export type AuthorizationDecision = 'pending' | 'approved' | 'denied' | 'expired' | 'consumed';

export const MACHINE_AUTHORIZATION_REFUSAL_CODES = [
  'authorization_pending',
  'authorization_poll_rate_limited',
  'authorization_denied',
  'authorization_expired',
  'authorization_consumed',
  'authorization_client_capacity',
  'authorization_capacity',
  'machine_credential_refused',
  'machine_identity_mismatch',
  'organization_membership_required',
  'actor_disabled',
  'authorization_claimed',
  'authorization_already_decided',
  'invalid_request',
] as const;

export type MachineAuthorizationRefusalCode = (typeof MACHINE_AUTHORIZATION_REFUSAL_CODES)[number];

export interface MachineAuthorizationRefusal {
  code: MachineAuthorizationRefusalCode;
  message: string;
  retryAfter?: number;
}

const refuse = (code: MachineAuthorizationRefusalCode, message: string): MachineAuthorizationRefusal => ({
  code,
  message,
});

// Denied and consumed are final; an undecided or approved code past its expiry is expired.
export function authorizationDecision(row: {
  status: StoredAuthorizationStatus;
  live: boolean;
}): AuthorizationDecision {
  if (row.status === 'consumed' || row.status === 'denied') return row.status;
  return row.live ? row.status : 'expired';
}

// A code started without a machine (hosted) takes the identity of its first poll while it can still be consumed.
export function bindsMachineAtPoll(row: { status: StoredAuthorizationStatus; machineId: string }): boolean {
  return row.machineId === '' && (row.status === 'pending' || row.status === 'approved');
}

// Over the per-client poll budget the poll is throttled (the spec's slow_down), whatever the code's state.
export function pollBudgetRefusal(count: { hits: number; retryAfter: number }, limit: number) {
  if (count.hits <= limit) return null;
  return {
    code: 'authorization_poll_rate_limited',
    message: `too many polls from this address; retry in ${count.retryAfter} s`,
    retryAfter: count.retryAfter,
  } satisfies MachineAuthorizationRefusal;
}

export type PollVerdict = { consume: true } | { refuse: MachineAuthorizationRefusal };

// A poll of a code: unknown (or another organization's) and every final state answer 410 before the machine's
// identity is compared, so a stranger learns nothing more; only the starting machine may wait or consume.
export function pollVerdict(
  code: { decision: AuthorizationDecision; machineId: string } | null,
  polledMachineId: string,
): PollVerdict {
  if (code === null) {
    return { refuse: refuse('authorization_expired', 'this code is unknown or has expired; start a new connection') };
  }
  switch (code.decision) {
    case 'consumed':
      return { refuse: CONSUMED_AT_POLL };
    case 'denied':
      return {
        refuse: refuse('authorization_denied', 'the approver denied this machine; start a new connection'),
      };
    case 'expired':
      return { refuse: EXPIRED_AT_POLL };
    default:
      break;
  }
  if (code.machineId !== polledMachineId) {
    return {
      refuse: refuse(
        'machine_identity_mismatch',
        'this code was started by another machine; start a new connection from this machine',
      ),
    };
  }
  if (code.decision === 'pending') return { refuse: refuse('authorization_pending', 'waiting for approval') };
  return { consume: true };
}

const CONSUMED_AT_POLL = refuse('authorization_consumed', 'this code was already used; start a new connection');
const EXPIRED_AT_POLL = refuse('authorization_expired', 'this code has expired; start a new connection');
export const CREDENTIAL_UNAVAILABLE_MESSAGE = 'the credential could not be issued yet; poll again';

// Consumption lost its race (another poll consumed it, it expired, or the write failed): what the code is now tells.
export function lostConsumptionRefusal(
  now: { status: StoredAuthorizationStatus; live: boolean } | null,
): MachineAuthorizationRefusal | 'retry' {
  if (now?.status === 'consumed') return CONSUMED_AT_POLL;
  if (!now || !now.live) return EXPIRED_AT_POLL;
  return 'retry';
}

// An approver's code lookup: codes another person decided are theirs; expired and used ones of others answer like
// unknown ones (so a code's history is not probed).
export function lookupVerdict(input: {
  visible: boolean;
  decision: AuthorizationDecision;
  decidedByCaller: boolean;
}): 'show' | 'unknown' | { refuse: MachineAuthorizationRefusal } {
  if (!input.visible) return 'unknown';
  if (input.decidedByCaller) return 'show';
  if (input.decision === 'expired' || input.decision === 'consumed') return 'unknown';
  if (input.decision === 'approved' || input.decision === 'denied') return { refuse: CLAIMED };
  return 'show';
}

const CLAIMED = refuse(
  'authorization_claimed',
  'another person already decided this code; a person approves only their own machine',
);

export function requestTargetGone(input: {
  visible: boolean;
  decision: AuthorizationDecision;
  decidedByCaller: boolean;
}): boolean {
  if (!input.visible) return true;
  return (input.decision === 'expired' || input.decision === 'consumed') && !input.decidedByCaller;
}

export type DecisionVerdict =
  | { record: { organizationId: number } }
  | { answer: 'approved' | 'denied' }
  | 'unknown'
  | { refuse: MachineAuthorizationRefusal };

// Approve or deny. A pending code is recorded in the code's organization, else the approver's (hosted, unscoped:
// none, so the approver must name one). A second decision by the same person repeats an equal answer and refuses a
// different one; another person's decision is theirs; expired and used codes of others answer like unknown ones.
export function decisionVerdict(input: {
  decision: AuthorizationDecision;
  decidedByCaller: boolean;
  wanted: 'approved' | 'denied';
  organizationId: number | null;
}): DecisionVerdict {
  const { decision, decidedByCaller: mine, wanted } = input;
  switch (decision) {
    case 'expired':
      return mine
        ? {
            refuse: refuse('authorization_expired', 'this code has expired; the machine must start a new connection'),
          }
        : 'unknown';
    case 'consumed':
      return mine
        ? { refuse: refuse('authorization_consumed', 'the machine already received its credential') }
        : 'unknown';
    case 'approved':
    case 'denied':
      if (!mine) return { refuse: CLAIMED };
      if (decision === wanted) return { answer: decision };
      return {
        refuse: refuse('authorization_already_decided', `you already ${decision} this code; a decision is final`),
      };
    case 'pending':
      if (input.organizationId === null) {
        return {
          refuse: refuse(
            'invalid_request',
            'choose the organization this machine joins: resolve through /api/orgs/<slug> (svc machine-authorization resolve --org <slug>)',
          ),
        };
      }
      return { record: { organizationId: input.organizationId } };
  }
}

export interface ApproverMembership {
  role: 'admin' | 'member';
  status: 'active' | 'disabled';
}

// Who decides codes: self-host, an active member of the server's organization; hosted, an active admin of the
// organization. A request confined to an organization decides only that organization's codes.
export function approverRefusal(input: {
  hosted: boolean;
  organization: { id: number; slug: string } | null;
  membership: ApproverMembership | null;
  confinedTo: number | null;
}): MachineAuthorizationRefusal | null {
  const { hosted, organization, membership, confinedTo } = input;
  const outsideConfinement = organization !== null && confinedTo !== null && confinedTo !== organization.id;
  if (!hosted) {
    if (organization === null || membership?.status !== 'active' || outsideConfinement) {
      return refuse(
        'organization_membership_required',
        'only active members of this server’s organization decide machine codes; ask an organization admin to add you',
      );
    }
    return null;
  }
  if (organization === null) return null;
  if (membership?.status !== 'active' || membership.role !== 'admin' || outsideConfinement) {
    return refuse(
      'organization_membership_required',
      `only active admins of ${organization.slug} decide its machine codes; ask one of its admins`,
    );
  }
  return null;
}

// The approver's standing is checked again when the credential is issued: a credential never outlives the
// approver's authority. Hosted answers every such refusal as machine_credential_refused.
export function approverStandingRefusal(input: {
  hosted: boolean;
  slug: string;
  actorStatus: 'active' | 'disabled' | null;
  membershipStatus: 'active' | 'disabled' | null;
  role: 'admin' | 'member' | null;
}): MachineAuthorizationRefusal | null {
  const { hosted } = input;
  const as = (code: MachineAuthorizationRefusalCode, message: string) =>
    refuse(hosted ? 'machine_credential_refused' : code, message);
  if (input.actorStatus === null) {
    return as(
      'organization_membership_required',
      'the approver no longer exists; start a new connection and have an active member approve it',
    );
  }
  if (input.actorStatus === 'disabled') {
    return as(
      'actor_disabled',
      'the approver is disabled; ask an organization admin to re-enable them, or start a new connection',
    );
  }
  if (input.membershipStatus !== 'active' || (hosted && input.role !== 'admin')) {
    return as(
      'organization_membership_required',
      `the approver is not an active ${hosted ? 'admin' : 'member'} of ${input.slug}; ask an organization admin to restore it, or start a new connection`,
    );
  }
  return null;
}

// A machine approved with a credential gets a child of it; that credential revoked or expired since refuses.
export const REVOKED_PARENT_REFUSAL = refuse(
  'machine_credential_refused',
  'the credential this machine was approved with has been revoked or has expired; start a new connection and approve it again',
);

export interface CapacityLimits {
  client: number;
  network: number;
  wideNetwork: number;
}

// Which pool refused a start: the client's, its network's and its wider network's are the caller's side (the
// server still has room for others), so they answer the client code and name the pool; else the server is full.
export function capacityRefusal(
  open: { clientOpen: number; networkOpen: number; wideNetworkOpen: number },
  keys: { networkKey: string; wideNetworkKey: string },
  limits: CapacityLimits,
): MachineAuthorizationRefusal {
  if (open.clientOpen >= limits.client) {
    return refuse(
      'authorization_client_capacity',
      `this address already has ${limits.client} codes waiting: finish one of those approvals or retry after they expire`,
    );
  }
  if (open.networkOpen >= limits.network) {
    return refuse(
      'authorization_client_capacity',
      `the network of this address (${keys.networkKey}) already has ${limits.network} codes waiting: retry after some of them are approved or expire`,
    );
  }
  if (open.wideNetworkOpen >= limits.wideNetwork) {
    return refuse(
      'authorization_client_capacity',
      `the wider network of this address (${keys.wideNetworkKey}) already has ${limits.wideNetwork} codes waiting: retry after some of them are approved or expire`,
    );
  }
  return refuse(
    'authorization_capacity',
    'the server has too many codes waiting: retry after some approvals finish or expire',
  );
}

// Who may list and revoke a machine credential: its own actor, an unconfined server admin, or an active admin of
// its organization; a request confined to an organization reaches only that organization's credentials, where a
// confined server admin counts as its admin.
export interface MachineManager {
  actorId: number;
  serverAdmin: boolean;
  scope: number | null;
  scopeAdmin: boolean;
}

export function machineManager(actor: {
  actorId: number;
  isAdmin: boolean;
  isServerAdmin: boolean;
  organizationScope: number | null;
}): MachineManager {
  return {
    actorId: actor.actorId,
    serverAdmin: actor.isServerAdmin,
    scope: actor.organizationScope,
    scopeAdmin: actor.isAdmin && actor.organizationScope !== null,
  };
}
