import { BlockerFacts, DependencyEdge } from '@app/core';

import { AuthenticatedActor } from '../auth/actor';
import { testActor } from '../auth/test-actor';
import { DomainError } from '../common/domain-error';
import { DependencyFactsService } from '../dependencies/dependency-facts.service';
import { ProjectAccessService } from '../projects/project-access.service';
import { StageGateContext, StageGateRegistry } from '../workflows/stage-gates';
import { HARD_BLOCKS_GATE } from '../workflows/workflow-definition';
import { GatesRepository } from './gates.repository';
import { GatesService } from './gates.service';

const ACTOR = testActor();
const EDGE: DependencyEdge = { blocker: 2, dependent: 1, gatePoint: 'activation', satisfaction: 'fact:merged' };

function blocker(mergedAt: string | null): BlockerFacts {
  return {
    status: mergedAt ? 'done' : 'implementing',
    mergedAt,
    deployedEnvironments: new Set(),
    registeredEnvironments: new Set(),
    ref: 'ATL-2',
    title: 'the blocker',
  };
}

function makeSut(edges: DependencyEdge[] = [EDGE], facts = new Map([[2, blocker(null)]])) {
  const dependencyFacts = {
    edgesFor: jest.fn(async (_ids: number[], _gatePoint: string, _manager?: unknown) => edges),
    facts: jest.fn(async () => facts),
  };
  const access = {
    resolveItem: jest.fn(async () => ({ id: 1, ref: 'ATL-1', project: 'atl' })),
    resolveItems: jest.fn(
      async (_a: AuthenticatedActor, refs: string[]) => new Map(refs.map((r, i) => [r, { id: i + 1, ref: r }])),
    ),
    assertProject: jest.fn(async () => undefined),
  };
  const registry = { register: jest.fn() };
  const repository = { openItemsOf: jest.fn(async () => [{ id: 1, ref: 'ATL-1' }]) };
  const sut = new GatesService(
    dependencyFacts as unknown as DependencyFactsService,
    access as unknown as ProjectAccessService,
    registry as unknown as StageGateRegistry,
    repository as unknown as GatesRepository,
  );
  return { sut, dependencyFacts, access, registry, repository };
}

const ctx = (over: Partial<StageGateContext> = {}): StageGateContext =>
  ({
    item: { id: 1, ref: 'ATL-1' },
    fromStage: 'planned',
    toStage: 'implementing',
    gate: null,
    manager: { tx: true },
    ...over,
  }) as unknown as StageGateContext;

describe(GatesService.name, () => {
  it('should register the hard-blocks gate on start', () => {
    const { sut, registry } = makeSut();
    sut.onModuleInit();
    expect(registry.register).toHaveBeenCalledWith(HARD_BLOCKS_GATE, expect.any(Function));
  });

  describe('checkHardBlocks', () => {
    it('should refuse a move past an unsatisfied hard block with each blocker', async () => {
      const { sut, dependencyFacts } = makeSut();
      const err = await sut.checkHardBlocks(ctx());
      expect(err).toBeInstanceOf(DomainError);
      expect(err).toMatchObject({ code: 'blocked_by_dependencies', status: 409 });
      expect(err!.message).toMatch(/^ATL-1 cannot move to implementing: 1 unsatisfied activation dependency \(/);
      expect(err!.extra).toMatchObject({
        item_id: 'ATL-1',
        stage: 'implementing',
        gate_stage: 'implementing',
        write: 'status',
        gate_point: 'activation',
        blockers: [expect.objectContaining({ blocker: 'ATL-2' })],
      });
      expect(dependencyFacts.edgesFor).toHaveBeenCalledWith([1], 'activation', { tx: true });
    });

    it('should name the gate stage a merged_at write passes', async () => {
      const { sut } = makeSut();
      const err = await sut.checkHardBlocks(ctx({ write: 'merged_at', gateStage: 'merge' }));
      expect(err!.message).toMatch(/^ATL-1 cannot record merged_at: /);
      expect(err!.extra).toMatchObject({ write: 'merged_at', gate_stage: 'merge' });
    });

    it('should say which gate a move past another stage met', async () => {
      const { sut } = makeSut();
      const err = await sut.checkHardBlocks(ctx({ toStage: 'done', gateStage: 'review' }));
      expect(err!.message).toMatch(/^ATL-1 cannot move to done \(past the gate on review\)/);
    });

    it('should let the move through when the blocker is satisfied', async () => {
      const { sut } = makeSut([EDGE], new Map([[2, blocker('2026-11-01T00:00:00.000Z')]]));
      expect(await sut.checkHardBlocks(ctx())).toBeNull();
    });

    it('should not read blocker facts when the item has no edges at the gate point', async () => {
      const { sut, dependencyFacts } = makeSut([]);
      expect(await sut.checkHardBlocks(ctx({ gate: { gate_point: 'merge' } } as Partial<StageGateContext>))).toBeNull();
      expect(dependencyFacts.edgesFor).toHaveBeenCalledWith([1], 'merge', { tx: true });
      expect(dependencyFacts.facts).not.toHaveBeenCalled();
    });
  });

  describe('evaluateBatch', () => {
    it.each([
      ['neither', {}],
      ['both', { items: ['ATL-1'], project: 'atl' }],
    ])('should refuse %s of items and project before reading anything', async (_case, body) => {
      const { sut, dependencyFacts, access } = makeSut();
      const err = await sut.evaluateBatch(ACTOR, { gate_point: 'activation', ...body }).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'invalid_request', status: 400 });
      expect(access.assertProject).not.toHaveBeenCalled();
      expect(dependencyFacts.edgesFor).not.toHaveBeenCalled();
    });

    it('should evaluate every open item of a project the caller sees', async () => {
      const { sut, access, repository } = makeSut();
      const response = await sut.evaluateBatch(ACTOR, { gate_point: 'activation', project: 'atl' });
      expect(access.assertProject).toHaveBeenCalledWith(ACTOR, 'atl');
      expect(repository.openItemsOf).toHaveBeenCalledWith('atl');
      expect(response.evaluations).toEqual([expect.objectContaining({ item_id: 'ATL-1', satisfied: false })]);
    });
  });

  describe('plan', () => {
    it('should block a candidate whose blocker is outside the plan and unsatisfied', async () => {
      const { sut } = makeSut();
      const plan = await sut.plan(ACTOR, { gate_point: 'activation', items: ['ATL-1'] });
      expect(plan.eligible).toEqual([]);
      expect(plan.blocked).toEqual([expect.objectContaining({ item_id: 'ATL-1', cycle: null })]);
    });

    it('should order a blocker in the plan before its dependent', async () => {
      const { sut } = makeSut();
      const plan = await sut.plan(ACTOR, { gate_point: 'activation', items: ['ATL-1', 'ATL-2'] });
      expect(plan.eligible).toEqual(['ATL-2', 'ATL-1']);
      expect(plan.blocked).toEqual([]);
    });
  });
});
