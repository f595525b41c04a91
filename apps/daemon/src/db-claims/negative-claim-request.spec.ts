import { validateNegativeClaimRequest } from './negative-claim-request';

describe('validateNegativeClaimRequest', () => {
  it('should accept a reason', () => {
    expect(validateNegativeClaimRequest({ reason: 'docs only' })).toEqual({
      ok: true,
      request: { reason: 'docs only' },
    });
  });

  it('should accept state none beside the reason', () => {
    expect(validateNegativeClaimRequest({ state: 'none', reason: 'x' }).ok).toBe(true);
  });

  it.each([[null], [[]], ['x'], [3]])('should refuse a non-object body %p', (body) => {
    expect(validateNegativeClaimRequest(body)).toEqual({
      ok: false,
      errors: [{ field: '$', code: 'db_claim_invalid', message: expect.any(String) }],
    });
  });

  it('should list every problem with its own code', () => {
    const result = validateNegativeClaimRequest({ state: 'declared', validated_at: 'x', model_name: 'Item' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((e) => [e.field, e.code])).toEqual([
      ['validated_at', 'db_claim_reserved_key'],
      ['model_name', 'db_claim_unknown_key'],
      ['state', 'db_claim_invalid'],
      ['reason', 'db_claim_invalid'],
    ]);
  });

  it('should not read a reason from the prototype chain', () => {
    expect(validateNegativeClaimRequest(Object.create({ reason: 'inherited' }) as object).ok).toBe(false);
  });
});
