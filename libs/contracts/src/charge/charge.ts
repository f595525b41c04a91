export const CHARGE_REASONS = [
  'dispatched',
  'no_runnable_items',
  'dry_run',
  'requested_item_unavailable',
  'operator_cancelled',
  'wait_adapter_encountered',
  // documented extension: a runnable step whose pinned stage exposes no entrypoint
  'entrypoint_unavailable',
] as const;
export type ChargeReason = (typeof CHARGE_REASONS)[number];

export interface ChargeDecisionDetail {
  item_id: string | null;
  adapter: string | null;
  dispatched: boolean;
  reason: ChargeReason;
  project: string | null;
  target_bucket?: string;
}

export interface ChargeDecisionResponse {
  event_id: string;
  detail: ChargeDecisionDetail;
}

export interface StepError {
  code: 'entrypoint_unavailable';
  message: string;
  recovery: string;
}

export interface ScheduleStep {
  position: number;
  item_id: string;
  title: string;
  project: string;
  status: string;
  priority: string;
  adapter: string;
  lane: string;
  // the binding-derived next step of the pinned stage; null for a wait step
  next_step: { stage: string; adapter: string; entrypoint: string | null } | null;
  entrypoint: string | null;
  wait: boolean;
  wip_slot: boolean;
  claimed_by_session: boolean;
  unblocks_count: number;
  downstream_depth: number;
  error?: StepError;
}

export interface ScheduleProjectSummary {
  project: string;
  wip_cap: number;
  wip_active: number;
  wip_claimed: number;
  wip_remaining: number;
  runnable: number;
  blocked: number;
  frozen: number;
  claimed_elsewhere: number;
  wip_suppressed: number;
  other_lanes: number;
}

export interface ScheduleResponse {
  session_id: number | null;
  lane: string | null;
  scope: string[];
  steps: ScheduleStep[];
  projects: ScheduleProjectSummary[];
  runnable_elsewhere: { project: string; runnable: number }[] | null;
}

export interface DispatchResponse {
  dispatched: true;
  item_id: string;
  project: string;
  adapter: string;
  entrypoint: string;
  session_id: number;
  wip_slot: boolean;
  claim: { claimed_at: string; expires_at: string };
  decision: ChargeDecisionDetail;
  event_id: string;
}

// The frontier views show it beside each row.
export interface ClaimHolder {
  item_id: string;
  project: string;
  session_id: number;
  harness: string;
  model: string;
  lane: string;
  actor: string | null;
  adapter: string | null;
  wip_slot: boolean;
  claimed_at: string;
  expires_at: string;
}

export interface ClaimsResponse {
  project: string;
  claims: ClaimHolder[];
}
