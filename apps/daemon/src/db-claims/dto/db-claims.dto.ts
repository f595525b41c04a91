import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, MaxLength, Min, MinLength } from 'class-validator';

import { DbClaimResponse } from '@app/contracts';
import { DbClaimReading } from '@app/core';

import { StoredClaimTexts } from '../db-claims.repository';

export const REASON_MAX_LENGTH = 2000;

// Metadata of an amendment, kept out of the body because the claim payload refuses every key it does not know.
export class DbClaimAmendQueryDto {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  session_id?: number;

  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(REASON_MAX_LENGTH)
  reason?: string;

  @IsOptional() @IsIn(['true', 'false']) force?: string;
}

export function toDbClaimResponse(itemRef: string, reading: DbClaimReading, stored: StoredClaimTexts): DbClaimResponse {
  return {
    item_id: itemRef,
    claim: reading.claim,
    reviewed: reading.reviewed,
    reviewed_reason: reading.reviewed_reason,
    malformed: reading.malformed,
    malformed_halves: reading.malformed_halves,
    db_mutation_profile: stored.profileText,
    db_compatibility_attestation: stored.attestationText,
  };
}
