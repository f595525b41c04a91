import {
  BARE_DEFAULT_PROFILE_TEXT,
  DbClaimPayload,
  DbClaimValidationError,
  EMPTY_ATTESTATION_TEXT,
  negativeClaim,
  readClaim,
  serializeStoredClaim,
  splitClaim,
  summarizeClaim,
  validateDbClaimPayload,
  validateNegativeReason,
} from './db-claim';

const NOW = '2025-03-01T12:00:00.000Z';
const LATER = '2025-03-02T08:30:00.000Z';

function declaredPayload(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    state: 'declared',
    model_name: 'BacklogItem',
    mutation_intent: 'apply',
    migration_modules: ['apps/daemon/src/database/migrations/1700000000000-AddDeployStage.ts'],
    migration_strategy: 'additive_only',
    migration_strategy_justification: 'new nullable column, no rewrite',
    compatibility_class: 'pre_merge_safe',
    schema_kinds: ['additive'],
    affected_surfaces: [{ table: 'items', columns: ['deploy_stage'] }],
    pre_merge_readers_writers: [
      { path: 'apps/daemon/src/database/migrations/1700000000000-AddDeployStage.ts', role: 'writer' },
      { path: 'apps/daemon/src/frontier/frontier.repository.ts', role: 'reader' },
    ],
    invariants: ['old readers ignore deploy_stage'],
    rehearsal_commands: ['npm run typeorm migration:run'],
    residual_risk_notes: 'none known',
    ...overrides,
  };
}

function errorsOf(raw: unknown): DbClaimValidationError[] {
  const result = validateDbClaimPayload(raw);
  if (result.ok) throw new Error('expected the payload to be refused');
  return result.errors;
}

function claimOf(raw: unknown): DbClaimPayload {
  const result = validateDbClaimPayload(raw);
  if (!result.ok) throw new Error(`expected the payload to pass: ${JSON.stringify(result.errors)}`);
  return result.claim;
}

function fields(raw: unknown): string[] {
  return errorsOf(raw).map((error) => error.field);
}

describe('validateDbClaimPayload', () => {
  describe('accepted payloads', () => {
    it('should accept a full declared pre_merge_safe claim', () => {
      expect(claimOf(declaredPayload())).toEqual(declaredPayload());
    });

    it('should accept a minimal state none claim', () => {
      expect(claimOf({ state: 'none' })).toEqual({ state: 'none' });
    });

    it('should accept a minimal declared claim without apply or pre_merge_safe', () => {
      expect(claimOf({ state: 'declared', mutation_intent: 'plan' })).toEqual({
        state: 'declared',
        mutation_intent: 'plan',
      });
    });

    it('should accept values beyond the named enumerations for open string fields', () => {
      const claim = claimOf(
        declaredPayload({
          compatibility_class: 'post_merge_only',
          schema_kinds: ['destructive'],
          mutation_intent: 'x',
        }),
      );
      expect(claim.compatibility_class).toBe('post_merge_only');
    });

    it('should accept empty optional arrays and an affected surface with no columns', () => {
      const claim = claimOf({ state: 'none', schema_kinds: [], affected_surfaces: [{ table: 'items', columns: [] }] });
      expect(claim.affected_surfaces).toEqual([{ table: 'items', columns: [] }]);
    });

    it('should return copies, not the caller arrays', () => {
      const raw = declaredPayload();
      const claim = claimOf(raw);
      expect(claim.invariants).not.toBe(raw.invariants);
      expect(claim.affected_surfaces).not.toBe(raw.affected_surfaces);
    });

    it('should accept an object without a prototype', () => {
      const raw = Object.assign(Object.create(null) as object, { state: 'none' });
      expect(claimOf(raw)).toEqual({ state: 'none' });
    });
  });

  describe('non-object payloads', () => {
    it.each([
      ['null', null],
      ['undefined', undefined],
      ['a string', 'declared'],
      ['a number', 42],
      ['a boolean', true],
      ['an array', [{ state: 'none' }]],
      ['an empty array', []],
      ['a Date', new Date()],
      ['a Map', new Map([['state', 'none']])],
    ])('should refuse %s as db_claim_invalid on $', (_label, raw) => {
      expect(errorsOf(raw)).toEqual([{ field: '$', code: 'db_claim_invalid', message: expect.any(String) }]);
    });
  });

  describe('state', () => {
    it('should require state', () => {
      expect(errorsOf({})).toEqual([
        { field: 'state', code: 'db_claim_invalid', message: expect.stringMatching(/required/) },
      ]);
    });

    it.each([['DECLARED'], ['unknown'], [''], [null], [1], [true], [['declared']], [{}]])(
      'should refuse state %p',
      (state) => {
        expect(fields({ state })).toEqual(['state']);
      },
    );
  });

  describe('string fields', () => {
    it.each([
      'model_name',
      'mutation_intent',
      'migration_strategy',
      'migration_strategy_justification',
      'compatibility_class',
      'residual_risk_notes',
    ])('should refuse a non-string, null, blank or empty %s', (field) => {
      for (const value of [1, null, true, ['x'], { a: 1 }, '', '   ']) {
        const errors = errorsOf({ state: 'none', [field]: value });
        expect(errors).toEqual([{ field, code: 'db_claim_invalid', message: expect.stringContaining(field) }]);
      }
    });

    it('should not crash on a bigint value', () => {
      expect(fields({ state: 'none', model_name: BigInt(1) })).toEqual(['model_name']);
    });
  });

  describe('string array fields', () => {
    it.each(['migration_modules', 'schema_kinds', 'invariants', 'rehearsal_commands'])(
      'should refuse %s when it is not an array',
      (field) => {
        for (const value of ['x', 1, null, { 0: 'x' }]) {
          expect(fields({ state: 'none', [field]: value })).toEqual([field]);
        }
      },
    );

    it.each(['migration_modules', 'schema_kinds', 'invariants', 'rehearsal_commands'])(
      'should name every bad item of %s',
      (field) => {
        expect(fields({ state: 'none', [field]: ['ok', 1, '', null, 'ok'] })).toEqual([
          `${field}[1]`,
          `${field}[2]`,
          `${field}[3]`,
        ]);
      },
    );

    it('should refuse holes in a sparse array', () => {
      const sparse: unknown[] = [];
      sparse[1] = 'x';
      expect(fields({ state: 'none', invariants: sparse })).toEqual(['invariants[0]']);
    });
  });

  describe('affected_surfaces', () => {
    it('should refuse a non-array', () => {
      expect(fields({ state: 'none', affected_surfaces: { table: 'items', columns: [] } })).toEqual([
        'affected_surfaces',
      ]);
    });

    it('should refuse non-object entries', () => {
      expect(fields({ state: 'none', affected_surfaces: ['items', null, ['items']] })).toEqual([
        'affected_surfaces[0]',
        'affected_surfaces[1]',
        'affected_surfaces[2]',
      ]);
    });

    it('should require table and columns', () => {
      expect(fields({ state: 'none', affected_surfaces: [{}] })).toEqual([
        'affected_surfaces[0].table',
        'affected_surfaces[0].columns',
      ]);
    });

    it('should type-check table and columns', () => {
      expect(fields({ state: 'none', affected_surfaces: [{ table: 3, columns: 'a' }] })).toEqual([
        'affected_surfaces[0].table',
        'affected_surfaces[0].columns',
      ]);
      expect(fields({ state: 'none', affected_surfaces: [{ table: 'items', columns: ['a', 2] }] })).toEqual([
        'affected_surfaces[0].columns[1]',
      ]);
    });

    it('should refuse unknown keys inside an entry', () => {
      const errors = errorsOf({
        state: 'none',
        affected_surfaces: [{ table: 'items', columns: [], schema: 'public' }],
      });
      expect(errors).toEqual([
        { field: 'affected_surfaces[0].schema', code: 'db_claim_unknown_key', message: expect.any(String) },
      ]);
    });
  });

  describe('pre_merge_readers_writers', () => {
    it('should refuse a non-array and non-object entries', () => {
      expect(fields({ state: 'none', pre_merge_readers_writers: 'a.ts' })).toEqual(['pre_merge_readers_writers']);
      expect(fields({ state: 'none', pre_merge_readers_writers: ['a.ts'] })).toEqual(['pre_merge_readers_writers[0]']);
    });

    it.each([['owner'], ['Reader'], ['WRITER'], ['read'], [''], [null], [1]])('should refuse role %p', (role) => {
      expect(errorsOf({ state: 'none', pre_merge_readers_writers: [{ path: 'a.ts', role }] })).toEqual([
        {
          field: 'pre_merge_readers_writers[0].role',
          code: 'db_claim_invalid',
          message: expect.stringMatching(/reader or writer/),
        },
      ]);
    });

    it('should accept reader and writer', () => {
      const entries = [
        { path: 'a.ts', role: 'reader' },
        { path: 'b.ts', role: 'writer' },
      ];
      expect(claimOf({ state: 'none', pre_merge_readers_writers: entries }).pre_merge_readers_writers).toEqual(entries);
    });

    it('should require path and role', () => {
      expect(fields({ state: 'none', pre_merge_readers_writers: [{}] })).toEqual([
        'pre_merge_readers_writers[0].path',
        'pre_merge_readers_writers[0].role',
      ]);
    });

    it('should refuse a blank path and unknown keys inside an entry', () => {
      const errors = errorsOf({
        state: 'none',
        pre_merge_readers_writers: [{ path: ' ', role: 'reader', mode: 'rw' }],
      });
      expect(errors.map((e) => [e.field, e.code])).toEqual([
        ['pre_merge_readers_writers[0].mode', 'db_claim_unknown_key'],
        ['pre_merge_readers_writers[0].path', 'db_claim_invalid'],
      ]);
    });

    it('should refuse a migration module listed as a reader', () => {
      const module = 'apps/daemon/src/database/migrations/1700000000000-AddDeployStage.ts';
      const raw = declaredPayload({ pre_merge_readers_writers: [{ path: module, role: 'reader' }] });
      expect(fields(raw)).toEqual(['pre_merge_readers_writers[0].role']);
    });
  });

  describe('migration_strategy requirement', () => {
    it('should require migration_strategy when state = declared and mutation_intent = apply', () => {
      const raw = declaredPayload();
      delete raw.migration_strategy;
      expect(errorsOf(raw)).toEqual([
        { field: 'migration_strategy', code: 'db_claim_invalid', message: expect.stringMatching(/required when/) },
      ]);
    });

    it('should report only the type error when a declared apply claim has a bad migration_strategy', () => {
      expect(errorsOf(declaredPayload({ migration_strategy: '' }))).toHaveLength(1);
    });

    it('should not require migration_strategy for state none with apply', () => {
      expect(claimOf({ state: 'none', mutation_intent: 'apply' })).toEqual({ state: 'none', mutation_intent: 'apply' });
    });

    it('should not require migration_strategy for a declared claim with another intent', () => {
      expect(claimOf({ state: 'declared', mutation_intent: 'read_only' }).state).toBe('declared');
    });
  });

  describe('pre_merge_safe requirement', () => {
    const required = ['pre_merge_readers_writers', 'invariants', 'rehearsal_commands', 'residual_risk_notes'];

    it.each(required)('should require %s when state = declared and compatibility_class = pre_merge_safe', (field) => {
      const raw = declaredPayload();
      delete raw[field];
      expect(errorsOf(raw)).toEqual([
        { field, code: 'db_claim_invalid', message: expect.stringMatching(/required when state = declared/) },
      ]);
    });

    it('should list all four when all are missing', () => {
      expect(fields({ state: 'declared', compatibility_class: 'pre_merge_safe' })).toEqual(required);
    });

    it.each(['pre_merge_readers_writers', 'invariants', 'rehearsal_commands'])(
      'should refuse an empty %s for a declared pre_merge_safe claim',
      (field) => {
        expect(errorsOf(declaredPayload({ [field]: [] }))).toEqual([
          { field, code: 'db_claim_invalid', message: expect.stringMatching(/must not be empty/) },
        ]);
      },
    );

    it('should not require them for state none with pre_merge_safe', () => {
      expect(claimOf({ state: 'none', compatibility_class: 'pre_merge_safe' }).compatibility_class).toBe(
        'pre_merge_safe',
      );
    });

    it('should not require them for another compatibility class', () => {
      expect(claimOf({ state: 'declared', compatibility_class: 'requires_downtime' }).state).toBe('declared');
    });
  });

  describe('unknown and reserved keys', () => {
    it('should refuse an unknown key', () => {
      expect(errorsOf({ state: 'none', colour: 'blue' })).toEqual([
        { field: 'colour', code: 'db_claim_unknown_key', message: expect.stringContaining('colour') },
      ]);
    });

    it.each(['reviewed_negative', 'validated_at'])(
      'should refuse reserved key %s with db_claim_reserved_key',
      (key) => {
        expect(errorsOf({ state: 'none', [key]: key === 'reviewed_negative' ? true : NOW })).toEqual([
          { field: key, code: 'db_claim_reserved_key', message: expect.stringContaining(key) },
        ]);
      },
    );

    it.each(['frozen_at', 'rehearsal_outcomes', 'class_escalations', 'reason'])(
      'should refuse stored-only key %s as an unknown key',
      (key) => {
        expect(errorsOf({ state: 'declared', [key]: 'x' })).toEqual([
          { field: key, code: 'db_claim_unknown_key', message: expect.any(String) },
        ]);
      },
    );

    it.each(['__proto__', 'constructor', 'prototype', 'hasOwnProperty'])(
      'should refuse an own %s key as unknown and not pollute the claim',
      (key) => {
        const raw: unknown = JSON.parse(`{"state":"none",${JSON.stringify(key)}:{"polluted":true}}`);
        expect(errorsOf(raw)).toEqual([{ field: key, code: 'db_claim_unknown_key', message: expect.any(String) }]);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      },
    );

    it('should not read fields from the prototype chain', () => {
      const raw = Object.create({ state: 'declared', reviewed_negative: true }) as object;
      expect(fields(raw)).toEqual(['state']);
    });
  });

  describe('multiple errors', () => {
    it('should list every failed field, not only the first', () => {
      const errors = errorsOf({
        state: 'declared',
        mutation_intent: 'apply',
        compatibility_class: 'pre_merge_safe',
        model_name: 7,
        schema_kinds: 'additive',
        affected_surfaces: [{ table: 'items' }],
        reviewed_negative: true,
        validated_at: NOW,
        extra: 1,
      });
      expect(errors.map((e) => [e.field, e.code])).toEqual([
        ['reviewed_negative', 'db_claim_reserved_key'],
        ['validated_at', 'db_claim_reserved_key'],
        ['extra', 'db_claim_unknown_key'],
        ['model_name', 'db_claim_invalid'],
        ['schema_kinds', 'db_claim_invalid'],
        ['affected_surfaces[0].columns', 'db_claim_invalid'],
        ['migration_strategy', 'db_claim_invalid'],
        ['pre_merge_readers_writers', 'db_claim_invalid'],
        ['invariants', 'db_claim_invalid'],
        ['rehearsal_commands', 'db_claim_invalid'],
        ['residual_risk_notes', 'db_claim_invalid'],
      ]);
    });
  });
});

describe('splitClaim', () => {
  it('should put the profile fields in the profile and the attestation fields in the attestation', () => {
    const { profile, attestation } = splitClaim(claimOf(declaredPayload()), { now: NOW });
    expect(Object.keys(profile)).toEqual([
      'state',
      'model_name',
      'mutation_intent',
      'migration_modules',
      'migration_strategy',
      'migration_strategy_justification',
      'schema_kinds',
      'affected_surfaces',
    ]);
    expect(Object.keys(attestation)).toEqual([
      'compatibility_class',
      'pre_merge_readers_writers',
      'invariants',
      'rehearsal_commands',
      'residual_risk_notes',
      'frozen_at',
    ]);
  });

  it('should stamp frozen_at = now for state declared', () => {
    expect(splitClaim(claimOf({ state: 'declared' }), { now: NOW }).attestation.frozen_at).toBe(NOW);
  });

  it('should restamp frozen_at on a later declared amendment', () => {
    const previous = JSON.stringify({ frozen_at: NOW });
    const split = splitClaim(claimOf({ state: 'declared' }), { now: LATER, previousAttestation: previous });
    expect(split.attestation.frozen_at).toBe(LATER);
  });

  it('should not write frozen_at for state none', () => {
    expect(splitClaim(claimOf({ state: 'none' }), { now: NOW })).toEqual({
      profile: { state: 'none' },
      attestation: {},
    });
  });

  it('should drop an earlier frozen_at when the amendment is state none', () => {
    const previous = JSON.stringify({ compatibility_class: 'pre_merge_safe', frozen_at: NOW });
    expect(splitClaim(claimOf({ state: 'none' }), { now: LATER, previousAttestation: previous }).attestation).toEqual(
      {},
    );
  });

  it('should carry rehearsal_outcomes and class_escalations over from the previous attestation', () => {
    const previous = JSON.stringify({
      compatibility_class: 'pre_merge_safe',
      frozen_at: NOW,
      rehearsal_outcomes: [{ command: 'x', ok: true }],
      class_escalations: [{ from: 'pre_merge_safe', to: 'post_merge' }],
    });
    const { attestation } = splitClaim(claimOf({ state: 'declared', compatibility_class: 'other' }), {
      now: LATER,
      previousAttestation: previous,
    });
    expect(attestation).toEqual({
      compatibility_class: 'other',
      frozen_at: LATER,
      rehearsal_outcomes: [{ command: 'x', ok: true }],
      class_escalations: [{ from: 'pre_merge_safe', to: 'post_merge' }],
    });
  });

  it.each([['not json'], ['[1]'], ['null'], [null]])(
    'should carry nothing from previous attestation %p',
    (previous) => {
      expect(
        splitClaim(claimOf({ state: 'declared' }), { now: NOW, previousAttestation: previous }).attestation,
      ).toEqual({
        frozen_at: NOW,
      });
    },
  );

  it('should replace a reviewed-negative profile with a declared one without reviewed_negative', () => {
    const negative = negativeClaim('docs only', NOW);
    const declared = splitClaim(claimOf(declaredPayload()), {
      now: LATER,
      previousAttestation: JSON.stringify(negative.attestation),
    });
    expect(declared.profile).not.toHaveProperty('reviewed_negative');
    expect(declared.profile).not.toHaveProperty('validated_at');
    expect(declared.profile).not.toHaveProperty('reason');
    const reading = readClaim(JSON.stringify(declared.profile), JSON.stringify(declared.attestation));
    expect(reading.reviewed).toBe(false);
    expect(reading.reviewed_reason).toBe('declared');
  });

  it('should drop reviewed_negative on a later state none payload amendment too', () => {
    const none = splitClaim(claimOf({ state: 'none' }), { now: LATER });
    expect(readClaim(JSON.stringify(none.profile), null).reviewed).toBe(false);
  });

  it.each([['yesterday'], [''], ['2025-03-01'], ['2025-13-45T99:00:00Z']])('should refuse now = %p', (now) => {
    expect(() => splitClaim(claimOf({ state: 'none' }), { now })).toThrow(RangeError);
  });
});

describe('negativeClaim', () => {
  it('should store state none, reviewed_negative true, validated_at and the reason on the profile', () => {
    expect(negativeClaim('docs-only change', NOW)).toEqual({
      profile: { state: 'none', reviewed_negative: true, validated_at: NOW, reason: 'docs-only change' },
      attestation: {},
    });
  });

  it('should drop the previous declared attestation but keep the workflow evidence', () => {
    const previous = JSON.stringify({
      compatibility_class: 'pre_merge_safe',
      invariants: ['x'],
      frozen_at: NOW,
      rehearsal_outcomes: ['passed'],
      class_escalations: [],
    });
    expect(negativeClaim('reverted', LATER, previous).attestation).toEqual({
      rehearsal_outcomes: ['passed'],
      class_escalations: [],
    });
  });

  it('should read back as reviewed', () => {
    const { profileText, attestationText } = serializeStoredClaim(negativeClaim('no DB', NOW));
    expect(readClaim(profileText, attestationText)).toMatchObject({
      reviewed: true,
      reviewed_reason: 'reviewed_negative',
    });
  });

  it.each([[''], ['   ']])('should refuse reason %p', (reason) => {
    expect(() => negativeClaim(reason, NOW)).toThrow(RangeError);
  });

  it('should refuse an invalid timestamp', () => {
    expect(() => negativeClaim('x', 'now')).toThrow(RangeError);
  });
});

describe('validateNegativeReason', () => {
  it('should accept a non-empty reason', () => {
    expect(validateNegativeReason('docs only')).toEqual([]);
  });

  it.each([[undefined], [null], [''], ['  '], [3], [['x']]])('should refuse %p', (reason) => {
    expect(validateNegativeReason(reason)).toEqual([
      { field: 'reason', code: 'db_claim_invalid', message: expect.any(String) },
    ]);
  });
});

describe('serializeStoredClaim', () => {
  it('should produce the column texts', () => {
    expect(serializeStoredClaim({ profile: { state: 'none' }, attestation: {} })).toEqual({
      profileText: BARE_DEFAULT_PROFILE_TEXT,
      attestationText: EMPTY_ATTESTATION_TEXT,
    });
  });
});

describe('readClaim', () => {
  it('should read the bare default as not reviewed', () => {
    expect(readClaim(BARE_DEFAULT_PROFILE_TEXT, EMPTY_ATTESTATION_TEXT)).toMatchObject({
      reviewed: false,
      reviewed_reason: 'bare_default',
      malformed: false,
      malformed_halves: [],
    });
  });

  it('should read null columns as their defaults', () => {
    const reading = readClaim(null, null);
    expect(reading).toMatchObject({ reviewed: false, reviewed_reason: 'bare_default', malformed: false });
    expect(reading.claim.state).toBe('none');
  });

  it('should read state none with claim fields but no reviewed_negative as the bare default', () => {
    expect(readClaim('{"state":"none","model_name":"Item"}', '{}').reviewed_reason).toBe('bare_default');
  });

  it('should read state none with reviewed_negative === true as reviewed', () => {
    const profile = JSON.stringify({ state: 'none', reviewed_negative: true, validated_at: NOW, reason: 'docs' });
    const reading = readClaim(profile, '{}');
    expect(reading).toMatchObject({ reviewed: true, reviewed_reason: 'reviewed_negative', malformed: false });
    expect(reading.claim).toMatchObject({ state: 'none', reviewed_negative: true, validated_at: NOW, reason: 'docs' });
  });

  it('should not require validated_at for reviewed', () => {
    expect(readClaim('{"state":"none","reviewed_negative":true}', null).reviewed).toBe(true);
  });

  it.each([['"true"'], ['1'], ['false'], ['null'], ['{}'], ['[true]']])(
    'should read reviewed_negative = %s as not reviewed',
    (value) => {
      const reading = readClaim(`{"state":"none","reviewed_negative":${value}}`, '{}');
      expect(reading).toMatchObject({ reviewed: false, reviewed_reason: 'reviewed_negative_not_true' });
    },
  );

  it('should read a declared state as not reviewed, even with reviewed_negative true', () => {
    const reading = readClaim('{"state":"declared","reviewed_negative":true}', '{}');
    expect(reading).toMatchObject({ reviewed: false, reviewed_reason: 'declared' });
  });

  it.each([
    ['not json', 'not json'],
    ['empty text', ''],
    ['a JSON array', '[]'],
    ['a JSON string', '"none"'],
    ['JSON null', 'null'],
    ['a missing state', '{"reviewed_negative":true}'],
    ['an unknown state', '{"state":"maybe","reviewed_negative":true}'],
    ['a non-string state', '{"state":0}'],
  ])('should read a profile with %s as malformed and not reviewed', (_label, text) => {
    const reading = readClaim(text, '{}');
    expect(reading).toMatchObject({
      reviewed: false,
      reviewed_reason: 'malformed_profile',
      malformed: true,
      malformed_halves: ['db_mutation_profile'],
    });
    expect(reading.claim.state).toBeNull();
    expect(reading.claim.reviewed_negative).toBeNull();
  });

  it('should null every field when both halves are malformed', () => {
    const reading = readClaim('{', '{');
    expect(Object.values(reading.claim).every((value) => value === null)).toBe(true);
    expect(reading.malformed_halves).toEqual(['db_mutation_profile', 'db_compatibility_attestation']);
  });

  it('should keep the profile when only the attestation is malformed', () => {
    const reading = readClaim('{"state":"none","reviewed_negative":true}', 'oops');
    expect(reading).toMatchObject({
      reviewed: true,
      malformed: true,
      malformed_halves: ['db_compatibility_attestation'],
    });
    expect(reading.claim.compatibility_class).toBeNull();
  });

  it('should merge both halves into one flat claim', () => {
    const stored = splitClaim(claimOf(declaredPayload()), { now: NOW });
    const { profileText, attestationText } = serializeStoredClaim(stored);
    expect(readClaim(profileText, attestationText).claim).toEqual({
      ...declaredPayload(),
      reviewed_negative: null,
      validated_at: null,
      reason: null,
      frozen_at: NOW,
      rehearsal_outcomes: null,
      class_escalations: null,
    });
  });

  it('should read each field only from its own half', () => {
    const reading = readClaim('{"state":"none","compatibility_class":"x"}', '{"model_name":"y","state":"declared"}');
    expect(reading.claim).toMatchObject({ state: 'none', compatibility_class: null, model_name: null });
  });

  it('should read wrongly typed stored fields as null', () => {
    const reading = readClaim(
      '{"state":"declared","model_name":3,"migration_modules":["a",1],"affected_surfaces":[{"table":"t"}]}',
      '{"pre_merge_readers_writers":[{"path":"a","role":"owner"}],"frozen_at":5}',
    );
    expect(reading.claim).toMatchObject({
      state: 'declared',
      model_name: null,
      migration_modules: null,
      affected_surfaces: null,
      pre_merge_readers_writers: null,
      frozen_at: null,
    });
    expect(reading.malformed).toBe(false);
  });

  it('should accept a state none row with a frozen_at as inert', () => {
    const reading = readClaim('{"state":"none","reviewed_negative":true}', JSON.stringify({ frozen_at: NOW }));
    expect(reading).toMatchObject({ reviewed: true, malformed: false });
    expect(reading.claim.frozen_at).toBe(NOW);
    expect(summarizeClaim(reading).frozen_at).toBeNull();
  });

  it('should ignore inherited and unknown stored keys', () => {
    const reading = readClaim('{"state":"none","__proto__":{"reviewed_negative":true},"x":1}', '{}');
    expect(reading.reviewed).toBe(false);
    expect(reading.claim).not.toHaveProperty('x');
  });
});

describe('summarizeClaim', () => {
  it('should summarize a declared claim', () => {
    const { profileText, attestationText } = serializeStoredClaim(splitClaim(claimOf(declaredPayload()), { now: NOW }));
    expect(summarizeClaim(readClaim(profileText, attestationText))).toEqual({
      state: 'declared',
      mutation_intent: 'apply',
      compatibility_class: 'pre_merge_safe',
      reviewed: false,
      frozen_at: NOW,
      malformed: false,
    });
  });

  it('should summarize a reviewed negative', () => {
    const { profileText, attestationText } = serializeStoredClaim(negativeClaim('docs', NOW));
    expect(summarizeClaim(readClaim(profileText, attestationText))).toEqual({
      state: 'none',
      mutation_intent: null,
      compatibility_class: null,
      reviewed: true,
      frozen_at: null,
      malformed: false,
    });
  });

  it('should summarize a malformed profile', () => {
    expect(summarizeClaim(readClaim('{', null))).toEqual({
      state: null,
      mutation_intent: null,
      compatibility_class: null,
      reviewed: false,
      frozen_at: null,
      malformed: true,
    });
  });
});
