// Mirrors libs/core's DB-claim reading (contracts import nothing from core); the daemon's mapper assigns core's
// record to this wire type, so a drift fails the type check there.

export type DbClaimStateWire = 'declared' | 'none';
export type DbClaimHalf = 'db_mutation_profile' | 'db_compatibility_attestation';
export type ReviewedReason =
  'reviewed_negative' | 'declared' | 'bare_default' | 'reviewed_negative_not_true' | 'malformed_profile';
export type DbClaimJsonValueWire =
  string | number | boolean | null | DbClaimJsonValueWire[] | { [key: string]: DbClaimJsonValueWire };

export interface DbClaimRecordWire {
  state: DbClaimStateWire | null;
  model_name: string | null;
  mutation_intent: string | null;
  migration_modules: string[] | null;
  migration_strategy: string | null;
  migration_strategy_justification: string | null;
  schema_kinds: string[] | null;
  affected_surfaces: { table: string; columns: string[] }[] | null;
  reviewed_negative: boolean | null;
  validated_at: string | null;
  reason: string | null;
  compatibility_class: string | null;
  pre_merge_readers_writers: { path: string; role: 'reader' | 'writer' }[] | null;
  invariants: string[] | null;
  rehearsal_commands: string[] | null;
  residual_risk_notes: string | null;
  frozen_at: string | null;
  rehearsal_outcomes: DbClaimJsonValueWire | null;
  class_escalations: DbClaimJsonValueWire | null;
}

export interface DbClaimResponse {
  item_id: string;
  claim: DbClaimRecordWire;
  reviewed: boolean;
  reviewed_reason: ReviewedReason;
  malformed: boolean;
  malformed_halves: DbClaimHalf[];
  db_mutation_profile: string | null;
  db_compatibility_attestation: string | null;
}
