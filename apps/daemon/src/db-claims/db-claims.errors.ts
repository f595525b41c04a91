import { HttpStatus } from '@nestjs/common';

import { DbClaimValidationError, ProseMismatch } from '@app/core';

import { DomainError, errorFactory, ErrorStatusTable } from '../common/domain-error';

export enum DbClaimErrorCode {
  Invalid = 'db_claim_invalid',
  UnknownKey = 'db_claim_unknown_key',
  ReservedKey = 'db_claim_reserved_key',
  ProseMismatch = 'GATE_DB_CLAIM_PROSE_MISMATCH',
}

export const DB_CLAIM_ERROR_STATUS: ErrorStatusTable<DbClaimErrorCode> = {
  [DbClaimErrorCode.Invalid]: HttpStatus.BAD_REQUEST,
  [DbClaimErrorCode.UnknownKey]: HttpStatus.BAD_REQUEST,
  [DbClaimErrorCode.ReservedKey]: HttpStatus.BAD_REQUEST,
  [DbClaimErrorCode.ProseMismatch]: HttpStatus.CONFLICT,
};

const dbClaimError = errorFactory(DB_CLAIM_ERROR_STATUS);

export function dbClaimErrorStatus(code: DbClaimErrorCode): number {
  return DB_CLAIM_ERROR_STATUS[code];
}

// The most specific code names the refusal; `fields` lists every problem with its own code.
export function refusalCode(errors: readonly DbClaimValidationError[]): DbClaimErrorCode {
  if (errors.some((e) => e.code === DbClaimErrorCode.ReservedKey)) return DbClaimErrorCode.ReservedKey;
  if (errors.some((e) => e.code === DbClaimErrorCode.UnknownKey)) return DbClaimErrorCode.UnknownKey;
  return DbClaimErrorCode.Invalid;
}

export function dbClaimRefused(errors: readonly DbClaimValidationError[]): DomainError {
  const code = refusalCode(errors);
  const problems = errors.map((e) => e.message).join('; ');
  const noun = errors.length === 1 ? 'problem' : 'problems';
  return dbClaimError(code, `the DB claim was refused (${errors.length} ${noun}): ${problems}`, {
    fields: errors.map((e) => ({ field: e.field, code: e.code, message: e.message })),
  });
}

export function proseMismatchRefused(mismatch: ProseMismatch): DomainError {
  return dbClaimError(DbClaimErrorCode.ProseMismatch, mismatch.message, {
    recovery: mismatch.recovery,
    trigger: mismatch.trigger,
  });
}
