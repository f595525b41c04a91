import type { EntityManager } from 'typeorm';

import { WorkflowDefinition } from '@app/contracts/backlog';

import { DbClaimProseGate, proseGateApplies } from './db-claim-prose.gate';
import { DbClaimsRepository, ItemProse } from './db-claims.repository';

const stage = (id: string, terminal = false) => ({
  id,
  name: id,
  adapter: terminal ? 'skip' : 'refine',
  entrypoint: terminal ? null : '/svc refine {ref}',
  gates: [],
  terminal,
});

function definition(gate?: WorkflowDefinition['db_claim_prose_gate']): WorkflowDefinition {
  return {
    id: 'issue',
    name: 'Issue',
    initial_stage: 'idea',
    stages: [
      stage('idea'),
      stage('refining-idea'),
      stage('refined-idea'),
      stage('polishing-implementation'),
      stage('done', true),
      stage('cancelled', true),
      stage('stopped', true),
      stage('failed', true),
    ],
    ...(gate ? { db_claim_prose_gate: gate } : {}),
  };
}

const GATED = definition({ enter: ['refined-idea'], exit: ['polishing-implementation'] });

describe('proseGateApplies', () => {
  it('should apply when entering a stage listed under enter', () => {
    expect(proseGateApplies(GATED, 'refining-idea', 'refined-idea')).toBe(true);
  });

  it('should apply when leaving a stage listed under exit, done included', () => {
    expect(proseGateApplies(GATED, 'polishing-implementation', 'done')).toBe(true);
    expect(proseGateApplies(GATED, 'polishing-implementation', 'refining-idea')).toBe(true);
  });

  it('should not apply to other transitions', () => {
    expect(proseGateApplies(GATED, 'idea', 'refining-idea')).toBe(false);
    expect(proseGateApplies(GATED, 'refined-idea', 'polishing-implementation')).toBe(false);
  });

  it('should not apply to a write that keeps the stage', () => {
    expect(proseGateApplies(GATED, 'refined-idea', 'refined-idea')).toBe(false);
  });

  it.each(['cancelled', 'stopped', 'failed'])('should never gate abandoning the item (%s)', (to) => {
    expect(proseGateApplies(GATED, 'polishing-implementation', to)).toBe(false);
    expect(proseGateApplies(definition({ enter: [to], exit: [] }), 'idea', to)).toBe(false);
  });

  it('should apply on entering a stage that lists the gate, except when abandoning', () => {
    expect(proseGateApplies(definition(), 'idea', 'refining-idea', true)).toBe(true);
    expect(proseGateApplies(definition(), 'idea', 'cancelled', true)).toBe(false);
  });

  it('should not apply when the definition configures no prose gate or empty lists', () => {
    expect(proseGateApplies(definition(), 'refining-idea', 'refined-idea')).toBe(false);
    expect(proseGateApplies(definition({ enter: [], exit: [] }), 'refining-idea', 'refined-idea')).toBe(false);
  });
});

describe(DbClaimProseGate.name, () => {
  function makeSut(prose: ItemProse | null) {
    const repository = { findProse: jest.fn(async () => prose) };
    return { sut: new DbClaimProseGate(repository as unknown as DbClaimsRepository), repository };
  }

  const input = {
    item: { id: 1 },
    fromStage: 'refining-idea',
    toStage: 'refined-idea',
    definition: GATED,
    gate: null,
    manager: {} as EntityManager,
  };

  it('should refuse a bare default claim when the spec declares governed DB work', async () => {
    const { sut } = makeSut({
      spec: 'Add a nullable deploy_stage column to items.',
      body: null,
      profileText: '{"state":"none"}',
    });
    const err = await sut.check(input);
    expect(err).toMatchObject({
      code: 'GATE_DB_CLAIM_PROSE_MISMATCH',
      status: 409,
      extra: { recovery: 'run db-claim-amend', trigger: { field: 'spec', rule: 'add_column' } },
    });
    expect(err?.message).toContain('deploy_stage column');
  });

  it('should name the body when only the body declares the work', async () => {
    const { sut } = makeSut({ spec: 'Faster frontier.', body: 'We need a data migration.', profileText: null });
    expect((await sut.check(input))?.extra).toMatchObject({ trigger: { field: 'body', rule: 'data_migration' } });
  });

  it.each([
    ['a reviewed negative', '{"state":"none","reviewed_negative":true}'],
    ['a declared claim', '{"state":"declared"}'],
  ])('should pass with %s', async (_label, profileText) => {
    const { sut } = makeSut({ spec: 'Add a migration', body: null, profileText });
    expect(await sut.check(input)).toBeNull();
  });

  it('should refuse malformed profile JSON like the bare default', async () => {
    const { sut } = makeSut({ spec: 'Add a migration', body: null, profileText: '{"state":' });
    expect((await sut.check(input))?.code).toBe('GATE_DB_CLAIM_PROSE_MISMATCH');
  });

  it('should pass when the text declares no DB work', async () => {
    const { sut } = makeSut({ spec: 'No migration needed.', body: 'Copy change in the help text.', profileText: null });
    expect(await sut.check(input)).toBeNull();
  });

  it('should check entering a stage that lists the gate even without db_claim_prose_gate', async () => {
    const { sut } = makeSut({ spec: 'Add a migration', body: null, profileText: null });
    const listed = { ...input, definition: definition(), fromStage: 'idea', gate: { type: 'check_db_claim_prose' } };
    expect((await sut.check(listed))?.code).toBe('GATE_DB_CLAIM_PROSE_MISMATCH');
  });

  it('should read under the status write transaction', async () => {
    const { sut, repository } = makeSut({ spec: null, body: null, profileText: null });
    await sut.check(input);
    expect(repository.findProse).toHaveBeenCalledWith(1, input.manager);
  });

  it('should not read the item for a transition it does not watch', async () => {
    const { sut, repository } = makeSut(null);
    expect(await sut.check({ ...input, toStage: 'refining-idea', fromStage: 'idea' })).toBeNull();
    expect(repository.findProse).not.toHaveBeenCalled();
  });
});
