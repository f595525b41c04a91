import {
  anything,
  array,
  boolean,
  extend,
  Infer,
  jsonValue,
  literal,
  nullable,
  number,
  object,
  oneOf,
  oneOfNumbers,
  optional,
  record,
  string,
  stringOrNumber,
} from './json-schema';

import type {
  DependencyAddWire,
  DependencyWire,
  GateBlockerWire,
  ItemCommentWire,
  ItemDetailWire,
  ItemSectionWire,
} from '../backlog';
import { CHARGE_REASONS } from '../charge/charge';
import type { ChargeDecisionDetail, DispatchResponse, ScheduleResponse, ScheduleStep } from '../charge/charge';
import type { DbClaimJsonValueWire, DbClaimRecordWire, DbClaimResponse } from '../db-claims/db-claims';
import type {
  ExplainResponse,
  FrontierItemWire,
  FrontierResultWire,
  RankNeighbourWire,
  UnsatisfiedFactWire,
} from '../frontier/frontier';
import { WRITE_PATHS } from '../history/history';
import type { OuroborosEntryWire } from '../records/records';
import type {
  ClaimResponse,
  RegisterSessionResponse,
  ReleaseClaimResponse,
  SessionResponse,
} from '../sessions/sessions';

// Each schema is checked against its wire interface at compile time (`sameShape`), so the interfaces stay the one
// definition of the wire. Imported as '@app/contracts/mcp': only the MCP server needs them.

type Exact<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
function sameShape<A, B>(ok: Exact<A, B>): void {
  void ok;
}

const nullableString = nullable(string());

// ---- charge.schedule and dispatch (libs/contracts/src/charge)
export const stepErrorSchema = object({
  code: literal('entrypoint_unavailable'),
  message: string(),
  recovery: string(),
});

export const scheduleStepSchema = object({
  position: number(),
  item_id: string(),
  title: string(),
  project: string(),
  status: string(),
  priority: string(),
  adapter: string(),
  lane: string(),
  next_step: nullable(object({ stage: string(), adapter: string(), entrypoint: nullableString })),
  entrypoint: nullableString,
  wait: boolean(),
  wip_slot: boolean(),
  claimed_by_session: boolean(),
  unblocks_count: number(),
  downstream_depth: number(),
  error: optional(stepErrorSchema),
});
sameShape<Infer<typeof scheduleStepSchema>, ScheduleStep>(true);

export const scheduleProjectSummarySchema = object({
  project: string(),
  wip_cap: number(),
  wip_active: number(),
  wip_claimed: number(),
  wip_remaining: number(),
  runnable: number(),
  blocked: number(),
  frozen: number(),
  claimed_elsewhere: number(),
  wip_suppressed: number(),
  other_lanes: number(),
});

export const scheduleResponseSchema = object({
  session_id: nullable(number()),
  lane: nullableString,
  scope: array(string()),
  steps: array(scheduleStepSchema),
  projects: array(scheduleProjectSummarySchema),
  runnable_elsewhere: nullable(array(object({ project: string(), runnable: number() }))),
});
sameShape<Infer<typeof scheduleResponseSchema>, ScheduleResponse>(true);

export const chargeDecisionDetailSchema = object({
  item_id: nullableString,
  adapter: nullableString,
  dispatched: boolean(),
  reason: oneOf(CHARGE_REASONS),
  project: nullableString,
  target_bucket: optional(string()),
});
sameShape<Infer<typeof chargeDecisionDetailSchema>, ChargeDecisionDetail>(true);

export const dispatchResponseSchema = object({
  dispatched: literal(true),
  item_id: string(),
  project: string(),
  adapter: string(),
  entrypoint: string(),
  session_id: number(),
  wip_slot: boolean(),
  claim: object({ claimed_at: string(), expires_at: string() }),
  decision: chargeDecisionDetailSchema,
  event_id: string(),
});
sameShape<Infer<typeof dispatchResponseSchema>, DispatchResponse>(true);

// ---- frontier and explain (libs/contracts/src/frontier)
export const frontierBucketSchema = oneOf(['runnable', 'blocked', 'frozen', 'not_candidate']);

export const frontierItemSchema = object({
  item_id: string(),
  title: string(),
  status: string(),
  priority: string(),
  project: string(),
  workflow_id: string(),
  workflow_version_id: number(),
  adapter: string(),
  blocked_by: array(string()),
  blocked_reasons: array(string()),
  unblocks_count: number(),
  downstream_depth: number(),
  created_at: string(),
});
sameShape<Infer<typeof frontierItemSchema>, FrontierItemWire>(true);

export const frontierResultSchema = object({
  runnable: array(frontierItemSchema),
  blocked: array(frontierItemSchema),
  frozen: array(frontierItemSchema),
  wip_cap: number(),
  wip_active: number(),
  conduct_eligible: array(frontierItemSchema),
});
sameShape<Infer<typeof frontierResultSchema>, FrontierResultWire>(true);

export const unsatisfiedFactSchema = object({
  blocker: nullableString,
  satisfaction: string(),
  form: string(),
  state: nullableString,
  blocker_bucket: frontierBucketSchema,
  reason: string(),
  need: string(),
});
sameShape<Infer<typeof unsatisfiedFactSchema>, UnsatisfiedFactWire>(true);

export const rankNeighbourSchema = object({
  item_id: string(),
  position: number(),
  deciding_key: string(),
  item_value: stringOrNumber(),
  neighbour_value: stringOrNumber(),
  summary: string(),
});
sameShape<Infer<typeof rankNeighbourSchema>, RankNeighbourWire>(true);

export const explainResponseSchema = object({
  item_id: string(),
  project: string(),
  status: string(),
  bucket: frontierBucketSchema,
  position: nullable(number()),
  adapter: nullableString,
  summary: array(string()),
  operator_block: nullableString,
  unsatisfied: array(unsatisfiedFactSchema),
  critical_path: array(string()),
  unblock_roots: array(string()),
  stuck: array(string()),
  ranking: nullable(
    object({
      keys: object({
        priority: string(),
        downstream_depth: number(),
        unblocks_count: number(),
        lifecycle_stage: string(),
        created_at: string(),
      }),
      above: nullable(rankNeighbourSchema),
      below: nullable(rankNeighbourSchema),
    }),
  ),
  conduct: nullable(oneOf(['eligible', 'suppressed'])),
  wip_cap: number(),
  wip_active: number(),
});
sameShape<Infer<typeof explainResponseSchema>, ExplainResponse>(true);

// ---- sessions and claims (libs/contracts/src/sessions)
export const claimResponseSchema = object({
  item_id: string(),
  project: string(),
  entrypoint: nullableString,
  adapter: nullableString,
  wip_slot: boolean(),
  claimed_at: string(),
  renewed_at: string(),
  expires_at: string(),
});
sameShape<Infer<typeof claimResponseSchema>, ClaimResponse>(true);

export const sessionResponseSchema = object({
  session_id: number(),
  harness: string(),
  model: string(),
  project: nullableString,
  lane: string(),
  label: nullableString,
  created_at: string(),
  last_seen_at: string(),
  ended_at: nullableString,
  claims: array(claimResponseSchema),
});
sameShape<Infer<typeof sessionResponseSchema>, SessionResponse>(true);

export const registerSessionResponseSchema = extend(sessionResponseSchema, {
  lane_source: string(),
  lane_scope: string(),
  lane_key: nullableString,
});
sameShape<Infer<typeof registerSessionResponseSchema>, RegisterSessionResponse>(true);

export const releaseClaimResponseSchema = object({
  session_id: number(),
  item_id: string(),
  released: boolean(),
});
sameShape<Infer<typeof releaseClaimResponseSchema>, ReleaseClaimResponse>(true);

// ---- items and dependencies (libs/contracts/src/backlog)
export const itemSectionSchema = object({
  section_name: string(),
  content: nullableString,
  ordering: number(),
  created_at: string(),
  updated_at: string(),
});
sameShape<Infer<typeof itemSectionSchema>, ItemSectionWire>(true);

export const itemCommentSchema = object({
  id: string(),
  item_id: string(),
  author: nullableString,
  session_id: nullable(number()),
  harness: nullableString,
  path: oneOf(WRITE_PATHS),
  body: string(),
  created_at: string(),
});
sameShape<Infer<typeof itemCommentSchema>, ItemCommentWire>(true);

const flag = oneOfNumbers([0, 1]);

export const itemDetailSchema = object({
  item_id: string(),
  title: string(),
  project: string(),
  workflow_id: string(),
  workflow_version_id: number(),
  workflow_version: number(),
  workflow_posture: string(),
  status: string(),
  priority: string(),
  frozen: flag,
  blocked: flag,
  blocked_reason: nullableString,
  github_issue: nullableString,
  deployed_to: nullableString,
  body: string(),
  merged_at: nullableString,
  created_at: string(),
  updated_at: string(),
  source: string(),
  owner: nullableString,
  deployment_flow: nullableString,
  deploy_stage: nullableString,
  spec: nullableString,
  design_spec: nullableString,
  technical_plan: nullableString,
  worktree_plan: nullableString,
  shepherd_log: nullableString,
  shepherd_caveats: nullableString,
  test_results: nullableString,
  deploy_log: nullableString,
  db_mutation_profile: string(),
  db_compatibility_attestation: string(),
  spec_updated_at: nullableString,
  spec_updated_by: nullableString,
  resolution: nullableString,
  resolution_ref: nullableString,
  resolution_comment: nullableString,
  depends_on: nullableString,
  sections: array(itemSectionSchema),
  comments: array(itemCommentSchema),
  comment_count: number(),
});
sameShape<Infer<typeof itemDetailSchema>, ItemDetailWire>(true);

export const dependencySchema = object({
  dependent: nullableString,
  blocker: nullableString,
  gate_point: string(),
  satisfaction: string(),
  source: string(),
  session_id: nullable(number()),
  rationale: string(),
  evidence: record(anything()),
  created_at: string(),
});
sameShape<Infer<typeof dependencySchema>, DependencyWire>(true);

export const dependencyAddSchema = object({ created: boolean(), dependency: dependencySchema });
sameShape<Infer<typeof dependencyAddSchema>, DependencyAddWire>(true);

export const gateBlockerSchema = object({
  blocker: nullableString,
  gate_point: string(),
  satisfaction: string(),
  reason: string(),
  need: string(),
  blocker_status: nullableString,
  blocker_title: nullableString,
  blocking_terminal: boolean(),
  blocking_abandoned: boolean(),
});
sameShape<Infer<typeof gateBlockerSchema>, GateBlockerWire>(true);

// ---- the DB claim (libs/contracts/src/db-claims)
export const dbClaimJsonValueSchema = jsonValue<DbClaimJsonValueWire>();

const stringsOrNull = nullable(array(string()));

export const dbClaimRecordSchema = object({
  state: nullable(oneOf(['declared', 'none'])),
  model_name: nullableString,
  mutation_intent: nullableString,
  migration_modules: stringsOrNull,
  migration_strategy: nullableString,
  migration_strategy_justification: nullableString,
  schema_kinds: stringsOrNull,
  affected_surfaces: nullable(array(object({ table: string(), columns: array(string()) }))),
  reviewed_negative: nullable(boolean()),
  validated_at: nullableString,
  reason: nullableString,
  compatibility_class: nullableString,
  pre_merge_readers_writers: nullable(array(object({ path: string(), role: oneOf(['reader', 'writer']) }))),
  invariants: stringsOrNull,
  rehearsal_commands: stringsOrNull,
  residual_risk_notes: nullableString,
  frozen_at: nullableString,
  rehearsal_outcomes: nullable(dbClaimJsonValueSchema),
  class_escalations: nullable(dbClaimJsonValueSchema),
});
sameShape<Infer<typeof dbClaimRecordSchema>, DbClaimRecordWire>(true);

export const dbClaimResponseSchema = object({
  item_id: string(),
  claim: dbClaimRecordSchema,
  reviewed: boolean(),
  reviewed_reason: oneOf([
    'reviewed_negative',
    'declared',
    'bare_default',
    'reviewed_negative_not_true',
    'malformed_profile',
  ]),
  malformed: boolean(),
  malformed_halves: array(oneOf(['db_mutation_profile', 'db_compatibility_attestation'])),
  db_mutation_profile: nullableString,
  db_compatibility_attestation: nullableString,
});
sameShape<Infer<typeof dbClaimResponseSchema>, DbClaimResponse>(true);

// ---- records: an ouroboros entry (libs/contracts/src/records; POST /v1/records/ouroboros answers this row)
export const ouroborosEntrySchema = object({
  id: number(),
  organization: string(),
  timestamp: string(),
  agent: string(),
  context: nullableString,
  category: string(),
  body: string(),
  reviewed_at: nullableString,
  archived_at: nullableString,
  created_at: string(),
});
sameShape<Infer<typeof ouroborosEntrySchema>, OuroborosEntryWire>(true);
