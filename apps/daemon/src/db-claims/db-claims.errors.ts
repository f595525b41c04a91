import { assertUnreachable } from '@app/contracts';
import { DbClaimValidationError, ProseMismatch } from '@app/core';

import { DomainError } from '../common/domain-error';

export enum DbClaimErrorCode {
  Invalid = 'db_claim_invalid',
  UnknownKey = 'db_claim_unknown_key',
  ReservedKey = 'db_claim_reserved_key',
  ProseMismatch = 'GATE_DB_CLAIM_PROSE_MISMATCH',
}

export function dbClaimErrorStatus(code: DbClaimErrorCode): number {
  switch (code) {
    case DbClaimErrorCode.Invalid:
    case DbClaimErrorCode.UnknownKey:
    case DbClaimErrorCode.ReservedKey:
      return 400;
    case DbClaimErrorCode.ProseMismatch:
      return 409;
    default:
      return assertUnreachable(code, 'DB claim error code');
  }
}

// The most specific code names the refusal: a reserved key, else an unknown key, else an invalid value. Every
// problem is listed in `fields` with its own code.
export function refusalCode(errors: readonly DbClaimValidationError[]): DbClaimErrorCode {
  if (errors.some((e) => e.code === 'db_claim_reserved_key')) return DbClaimErrorCode.ReservedKey;
  if (errors.some((e) => e.code === 'db_claim_unknown_key')) return DbClaimErrorCode.UnknownKey;
  return DbClaimErrorCode.Invalid;
}

export function dbClaimRefused(errors: readonly DbClaimValidationError[]): DomainError {
  const code = refusalCode(errors);
  const problems = errors.map((e) => e.message).join('; ');
  const noun = errors.length === 1 ? 'problem' : 'problems';
  return new DomainError(
    code,
    `the DB claim was refused (${errors.length} ${noun}): ${problems}`,
    dbClaimErrorStatus(code),
    {
      fields: errors.map((e) => ({ field: e.field, code: e.code, message: e.message })),
    },
  );
}

export function proseMismatchRefused(mismatch: ProseMismatch): DomainError {
  return new DomainError(mismatch.code, mismatch.message, dbClaimErrorStatus(DbClaimErrorCode.ProseMismatch), {
    recovery: mismatch.recovery,
    trigger: mismatch.trigger,
  });
}
