import type { DbClaimHalf, DbClaimRecord, ReviewedReason } from '@app/core';

export interface DbClaimResponse {
  item_id: string;
  claim: DbClaimRecord;
  reviewed: boolean;
  reviewed_reason: ReviewedReason;
  malformed: boolean;
  malformed_halves: DbClaimHalf[];
  db_mutation_profile: string | null;
  db_compatibility_attestation: string | null;
}
