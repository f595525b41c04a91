import { GATE_DB_CLAIM_PROSE_MISMATCH } from '@app/core';

import { DbClaimErrorCode, dbClaimErrorStatus, dbClaimRefused, proseMismatchRefused } from './db-claims.errors';

describe('dbClaimRefused', () => {
  it('should prefer db_claim_reserved_key, then db_claim_unknown_key, then db_claim_invalid', () => {
    const invalid = { field: 'state', code: 'db_claim_invalid' as const, message: 'state is required' };
    const unknown = { field: 'x', code: 'db_claim_unknown_key' as const, message: 'x is unknown' };
    const reserved = { field: 'validated_at', code: 'db_claim_reserved_key' as const, message: 'reserved' };
    expect(dbClaimRefused([invalid]).code).toBe('db_claim_invalid');
    expect(dbClaimRefused([invalid, unknown]).code).toBe('db_claim_unknown_key');
    const err = dbClaimRefused([invalid, unknown, reserved]);
    expect(err).toMatchObject({ code: 'db_claim_reserved_key', status: 400 });
    expect(err.extra.fields).toEqual([invalid, unknown, reserved]);
    expect(err.message).toContain('3 problems');
  });
});

describe('proseMismatchRefused', () => {
  it('should answer 409 with the recovery and the trigger', () => {
    const err = proseMismatchRefused({
      code: GATE_DB_CLAIM_PROSE_MISMATCH,
      message: 'the spec declares governed DB work',
      recovery: 'run db-claim-amend',
      trigger: { field: 'spec', excerpt: 'add a migration', rule: 'migration' },
    });
    expect(err).toMatchObject({
      code: 'GATE_DB_CLAIM_PROSE_MISMATCH',
      status: 409,
      extra: {
        recovery: 'run db-claim-amend',
        trigger: { field: 'spec', excerpt: 'add a migration', rule: 'migration' },
      },
    });
  });

  it('should keep the enum value equal to the core wire code', () => {
    expect(DbClaimErrorCode.ProseMismatch).toBe(GATE_DB_CLAIM_PROSE_MISMATCH);
    expect(dbClaimErrorStatus(DbClaimErrorCode.ProseMismatch)).toBe(409);
  });
});
