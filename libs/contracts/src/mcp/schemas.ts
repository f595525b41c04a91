import { z } from 'zod';

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

// The wire types of the daemon as zod schemas, for the MCP tools' structured output (issue 29). Each schema is
// checked against its interface at compile time (`sameShape` below): a field added to, removed from or retyped in
// the interface fails the build here, so the interfaces stay the one definition of the wire and these follow them.
// Imported as '@app/contracts/mcp' (not from the contracts index: only the MCP server loads zod).

type Exact<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
// A compile-time check only; the call does nothing at run time.
function sameShape<A, B>(ok: Exact<A, B>): void {
  void ok;
}

const nullableString = z.string().nullable();

// ---- charge.schedule and dispatch (libs/contracts/src/charge)
export const stepErrorSchema = z.object({
  code: z.literal('entrypoint_unavailable'),
  message: z.string(),
  recovery: z.string(),
});

export const scheduleStepSchema = z.object({
  position: z.number(),
  item_id: z.string(),
  title: z.string(),
  project: z.string(),
  status: z.string(),
  priority: z.string(),
  adapter: z.string(),
  lane: z.string(),
  next_step: z.object({ stage: z.string(), adapter: z.string(), entrypoint: nullableString }).nullable(),
  entrypoint: nullableString,
  wait: z.boolean(),
  wip_slot: z.boolean(),
  claimed_by_session: z.boolean(),
  unblocks_count: z.number(),
  downstream_depth: z.number(),
  error: stepErrorSchema.optional(),
});
sameShape<z.infer<typeof scheduleStepSchema>, ScheduleStep>(true);

export const scheduleProjectSummarySchema = z.object({
  project: z.string(),
  wip_cap: z.number(),
  wip_active: z.number(),
  wip_claimed: z.number(),
  wip_remaining: z.number(),
  runnable: z.number(),
  blocked: z.number(),
  frozen: z.number(),
  claimed_elsewhere: z.number(),
  wip_suppressed: z.number(),
  other_lanes: z.number(),
});

export const scheduleResponseSchema = z.object({
  session_id: z.number().nullable(),
  lane: nullableString,
  scope: z.array(z.string()),
  steps: z.array(scheduleStepSchema),
  projects: z.array(scheduleProjectSummarySchema),
  runnable_elsewhere: z.array(z.object({ project: z.string(), runnable: z.number() })).nullable(),
});
sameShape<z.infer<typeof scheduleResponseSchema>, ScheduleResponse>(true);

export const chargeDecisionDetailSchema = z.object({
  item_id: nullableString,
  adapter: nullableString,
  dispatched: z.boolean(),
  reason: z.enum(CHARGE_REASONS),
  project: nullableString,
  target_bucket: z.string().optional(),
});
sameShape<z.infer<typeof chargeDecisionDetailSchema>, ChargeDecisionDetail>(true);

export const dispatchResponseSchema = z.object({
  dispatched: z.literal(true),
  item_id: z.string(),
  project: z.string(),
  adapter: z.string(),
  entrypoint: z.string(),
  session_id: z.number(),
  wip_slot: z.boolean(),
  claim: z.object({ claimed_at: z.string(), expires_at: z.string() }),
  decision: chargeDecisionDetailSchema,
  event_id: z.string(),
});
sameShape<z.infer<typeof dispatchResponseSchema>, DispatchResponse>(true);

// ---- frontier and explain (libs/contracts/src/frontier)
export const frontierBucketSchema = z.enum(['runnable', 'blocked', 'frozen', 'not_candidate']);

export const frontierItemSchema = z.object({
  item_id: z.string(),
  title: z.string(),
  status: z.string(),
  priority: z.string(),
  project: z.string(),
  workflow_id: z.string(),
  workflow_version_id: z.number(),
  adapter: z.string(),
  blocked_by: z.array(z.string()),
  blocked_reasons: z.array(z.string()),
  unblocks_count: z.number(),
  downstream_depth: z.number(),
  created_at: z.string(),
});
sameShape<z.infer<typeof frontierItemSchema>, FrontierItemWire>(true);

export const frontierResultSchema = z.object({
  runnable: z.array(frontierItemSchema),
  blocked: z.array(frontierItemSchema),
  frozen: z.array(frontierItemSchema),
  wip_cap: z.number(),
  wip_active: z.number(),
  conduct_eligible: z.array(frontierItemSchema),
});
sameShape<z.infer<typeof frontierResultSchema>, FrontierResultWire>(true);

export const unsatisfiedFactSchema = z.object({
  blocker: nullableString,
  satisfaction: z.string(),
  form: z.string(),
  state: nullableString,
  blocker_bucket: frontierBucketSchema,
  reason: z.string(),
  need: z.string(),
});
sameShape<z.infer<typeof unsatisfiedFactSchema>, UnsatisfiedFactWire>(true);

export const rankNeighbourSchema = z.object({
  item_id: z.string(),
  position: z.number(),
  deciding_key: z.string(),
  item_value: z.union([z.string(), z.number()]),
  neighbour_value: z.union([z.string(), z.number()]),
  summary: z.string(),
});
sameShape<z.infer<typeof rankNeighbourSchema>, RankNeighbourWire>(true);

export const explainResponseSchema = z.object({
  item_id: z.string(),
  project: z.string(),
  status: z.string(),
  bucket: frontierBucketSchema,
  position: z.number().nullable(),
  adapter: nullableString,
  summary: z.array(z.string()),
  operator_block: nullableString,
  unsatisfied: z.array(unsatisfiedFactSchema),
  critical_path: z.array(z.string()),
  unblock_roots: z.array(z.string()),
  stuck: z.array(z.string()),
  ranking: z
    .object({
      keys: z.object({
        priority: z.string(),
        downstream_depth: z.number(),
        unblocks_count: z.number(),
        lifecycle_stage: z.string(),
        created_at: z.string(),
      }),
      above: rankNeighbourSchema.nullable(),
      below: rankNeighbourSchema.nullable(),
    })
    .nullable(),
  conduct: z.enum(['eligible', 'suppressed']).nullable(),
  wip_cap: z.number(),
  wip_active: z.number(),
});
sameShape<z.infer<typeof explainResponseSchema>, ExplainResponse>(true);

// ---- sessions and claims (libs/contracts/src/sessions)
export const claimResponseSchema = z.object({
  item_id: z.string(),
  project: z.string(),
  entrypoint: nullableString,
  adapter: nullableString,
  wip_slot: z.boolean(),
  claimed_at: z.string(),
  renewed_at: z.string(),
  expires_at: z.string(),
});
sameShape<z.infer<typeof claimResponseSchema>, ClaimResponse>(true);

export const sessionResponseSchema = z.object({
  session_id: z.number(),
  harness: z.string(),
  model: z.string(),
  project: nullableString,
  lane: z.string(),
  label: nullableString,
  created_at: z.string(),
  last_seen_at: z.string(),
  ended_at: nullableString,
  claims: z.array(claimResponseSchema),
});
sameShape<z.infer<typeof sessionResponseSchema>, SessionResponse>(true);

export const registerSessionResponseSchema = sessionResponseSchema.extend({
  lane_source: z.string(),
  lane_scope: z.string(),
  lane_key: nullableString,
});
sameShape<z.infer<typeof registerSessionResponseSchema>, RegisterSessionResponse>(true);

export const releaseClaimResponseSchema = z.object({
  session_id: z.number(),
  item_id: z.string(),
  released: z.boolean(),
});
sameShape<z.infer<typeof releaseClaimResponseSchema>, ReleaseClaimResponse>(true);

// ---- items and dependencies (libs/contracts/src/backlog)
export const itemSectionSchema = z.object({
  section_name: z.string(),
  content: nullableString,
  ordering: z.number(),
  created_at: z.string(),
  updated_at: z.string(),
});
sameShape<z.infer<typeof itemSectionSchema>, ItemSectionWire>(true);

export const itemCommentSchema = z.object({
  id: z.string(),
  item_id: z.string(),
  author: nullableString,
  session_id: z.number().nullable(),
  harness: nullableString,
  path: z.enum(WRITE_PATHS),
  body: z.string(),
  created_at: z.string(),
});
sameShape<z.infer<typeof itemCommentSchema>, ItemCommentWire>(true);

const flag = z.union([z.literal(0), z.literal(1)]);

export const itemDetailSchema = z.object({
  item_id: z.string(),
  title: z.string(),
  project: z.string(),
  workflow_id: z.string(),
  workflow_version_id: z.number(),
  workflow_version: z.number(),
  workflow_posture: z.string(),
  status: z.string(),
  priority: z.string(),
  frozen: flag,
  blocked: flag,
  blocked_reason: nullableString,
  github_issue: nullableString,
  deployed_to: nullableString,
  body: z.string(),
  merged_at: nullableString,
  created_at: z.string(),
  updated_at: z.string(),
  source: z.string(),
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
  db_mutation_profile: z.string(),
  db_compatibility_attestation: z.string(),
  spec_updated_at: nullableString,
  spec_updated_by: nullableString,
  resolution: nullableString,
  resolution_ref: nullableString,
  resolution_comment: nullableString,
  depends_on: nullableString,
  sections: z.array(itemSectionSchema),
  comments: z.array(itemCommentSchema),
  comment_count: z.number(),
});
sameShape<z.infer<typeof itemDetailSchema>, ItemDetailWire>(true);

export const dependencySchema = z.object({
  dependent: nullableString,
  blocker: nullableString,
  gate_point: z.string(),
  satisfaction: z.string(),
  source: z.string(),
  session_id: z.number().nullable(),
  rationale: z.string(),
  evidence: z.record(z.unknown()),
  created_at: z.string(),
});
sameShape<z.infer<typeof dependencySchema>, DependencyWire>(true);

export const dependencyAddSchema = z.object({ created: z.boolean(), dependency: dependencySchema });
sameShape<z.infer<typeof dependencyAddSchema>, DependencyAddWire>(true);

export const gateBlockerSchema = z.object({
  blocker: nullableString,
  gate_point: z.string(),
  satisfaction: z.string(),
  reason: z.string(),
  need: z.string(),
  blocker_status: nullableString,
  blocker_title: nullableString,
  blocking_terminal: z.boolean(),
  blocking_abandoned: z.boolean(),
});
sameShape<z.infer<typeof gateBlockerSchema>, GateBlockerWire>(true);

// ---- the DB claim (libs/contracts/src/db-claims)
export const dbClaimJsonValueSchema: z.ZodType<DbClaimJsonValueWire> = z.lazy(() =>
  z.union([
    z.string(),
    z.number(),
    z.boolean(),
    z.null(),
    z.array(dbClaimJsonValueSchema),
    z.record(dbClaimJsonValueSchema),
  ]),
);

const stringsOrNull = z.array(z.string()).nullable();

export const dbClaimRecordSchema = z.object({
  state: z.enum(['declared', 'none']).nullable(),
  model_name: nullableString,
  mutation_intent: nullableString,
  migration_modules: stringsOrNull,
  migration_strategy: nullableString,
  migration_strategy_justification: nullableString,
  schema_kinds: stringsOrNull,
  affected_surfaces: z.array(z.object({ table: z.string(), columns: z.array(z.string()) })).nullable(),
  reviewed_negative: z.boolean().nullable(),
  validated_at: nullableString,
  reason: nullableString,
  compatibility_class: nullableString,
  pre_merge_readers_writers: z.array(z.object({ path: z.string(), role: z.enum(['reader', 'writer']) })).nullable(),
  invariants: stringsOrNull,
  rehearsal_commands: stringsOrNull,
  residual_risk_notes: nullableString,
  frozen_at: nullableString,
  rehearsal_outcomes: dbClaimJsonValueSchema.nullable(),
  class_escalations: dbClaimJsonValueSchema.nullable(),
});
sameShape<z.infer<typeof dbClaimRecordSchema>, DbClaimRecordWire>(true);

export const dbClaimResponseSchema = z.object({
  item_id: z.string(),
  claim: dbClaimRecordSchema,
  reviewed: z.boolean(),
  reviewed_reason: z.enum([
    'reviewed_negative',
    'declared',
    'bare_default',
    'reviewed_negative_not_true',
    'malformed_profile',
  ]),
  malformed: z.boolean(),
  malformed_halves: z.array(z.enum(['db_mutation_profile', 'db_compatibility_attestation'])),
  db_mutation_profile: nullableString,
  db_compatibility_attestation: nullableString,
});
sameShape<z.infer<typeof dbClaimResponseSchema>, DbClaimResponse>(true);

// ---- records: an ouroboros entry (libs/contracts/src/records; POST /v1/records/ouroboros answers this row)
export const ouroborosEntrySchema = z.object({
  id: z.number(),
  organization: z.string(),
  timestamp: z.string(),
  agent: z.string(),
  context: nullableString,
  category: z.string(),
  body: z.string(),
  reviewed_at: nullableString,
  archived_at: nullableString,
  created_at: z.string(),
});
sameShape<z.infer<typeof ouroborosEntrySchema>, OuroborosEntryWire>(true);
