import { BlockerFacts, DEPENDENCY_EVIDENCE_LIMIT, GrowingActivationGraph } from '@app/core';
import type { EntityManager } from 'typeorm';

import { AuthenticatedActor } from '../auth/actor';
import { testActor } from '../auth/test-actor';
import { DomainError } from '../common/domain-error';
import type { ProjectAccessService } from '../projects/project-access.service';
import { itemNotFound } from '../refs/refs.service';
import type { RefsService } from '../refs/refs.service';
import type { ActivationGraphCache } from './activation-graph-cache';
import type { DependenciesRepository } from './dependencies.repository';
import { DependenciesService, EdgeInput } from './dependencies.service';
import type { DependencyFactsService } from './dependency-facts.service';

const ACTOR = testActor();
const MANAGER = {} as EntityManager;
const A = { id: 1, ref: 'ATL-1' };
const B = { id: 2, ref: 'ATL-2' };
const C = { id: 3, ref: 'ATL-3' };
const STAGES = ['idea', 'implementing', 'done'];

const edge = (over: Partial<EdgeInput> = {}): EdgeInput => ({
  dependent: A,
  blocker: B,
  gatePoint: 'activation',
  satisfaction: 'status:done',
  source: 'operator',
  sessionId: null,
  rationale: '',
  evidence: {},
  ...over,
});

const STORED = {
  dependent_ref: A.ref,
  blocker_ref: B.ref,
  gate_point: 'activation',
  satisfaction: 'status:done',
  source: 'operator',
  session_id: null,
  rationale: '',
  evidence_json: '{}',
  created_at: '2025-03-01T12:00:00.000Z',
};

interface Ends {
  organization: number | null;
  crosses: boolean;
  blockerStages: string[];
}
const ENDS: Ends = { organization: 9, crosses: false, blockerStages: [...STAGES] };

function makeSut() {
  const repository = {
    transaction: jest.fn(async <T>(work: (manager: EntityManager) => Promise<T>) => work(MANAGER)),
    insertAtEnds: jest.fn(async (): Promise<{ ends: Ends | null; added: typeof STORED | null }> => ({
      ends: ENDS,
      added: STORED,
    })),
    firstCrossingOrganization: jest.fn(async (): Promise<number | null> => null),
    lockActivationGraph: jest.fn(async () => undefined),
    activationPairs: jest.fn(async () => []),
    insertMany: jest.fn(async (edges: readonly unknown[]) => edges.length),
    find: jest.fn(async () => STORED),
    edgesOf: jest.fn(async () => []),
    removeByRefs: jest.fn(
      async (dependent: { prefix: string; sequence: number }, blocker: { prefix: string; sequence: number }) =>
        ({
          dependent: `${dependent.prefix}-${dependent.sequence}`,
          blocker: `${blocker.prefix}-${blocker.sequence}`,
        }) as {
          dependent: string;
          blocker: string;
        } | null,
    ),
  };
  const facts = {
    facts: jest.fn(
      async (ids: readonly number[]) =>
        new Map<number, BlockerFacts>(
          ids.map((id): [number, BlockerFacts] => [
            id,
            {
              status: 'idea',
              mergedAt: null,
              deployedEnvironments: new Set(),
              registeredEnvironments: new Set(),
              stageOrder: STAGES,
            },
          ]),
        ),
    ),
  };
  const access = {
    resolveItems: jest.fn(async (_actor: AuthenticatedActor, refs: string[]) => {
      const all = [A, B, C];
      return new Map(refs.map((ref) => [ref, all.find((i) => i.ref === ref)!]));
    }),
    resolveItem: jest.fn(async () => A),
    visibleProjects: jest.fn(async (): Promise<string[] | null> => null),
  };
  const refs = {
    refsOf: jest.fn(
      async (ids: readonly number[]) => new Map(ids.filter((id) => id !== 99).map((id) => [id, `ATL-${id}`])),
    ),
  };
  const graphs = { cycleIfAdded: jest.fn(async (): Promise<number[] | null> => null) };
  const sut = new DependenciesService(
    repository as unknown as DependenciesRepository,
    facts as unknown as DependencyFactsService,
    access as unknown as ProjectAccessService,
    refs as unknown as RefsService,
    graphs as unknown as ActivationGraphCache,
  );
  return { sut, repository, facts, access, refs, graphs };
}

async function refusal(run: Promise<unknown>): Promise<DomainError> {
  const error = await run.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DomainError);
  return error as DomainError;
}

describe(DependenciesService.name, () => {
  describe('addIn', () => {
    it('should insert an edge that breaks no rule', async () => {
      const { sut, repository } = makeSut();
      await expect(sut.addIn(edge(), MANAGER)).resolves.toBe(STORED);
      expect(repository.insertAtEnds).toHaveBeenCalledWith(
        expect.objectContaining({ dependent: 1, blocker: 2, satisfaction: 'status:done', evidenceJson: '{}' }),
        true,
        MANAGER,
      );
    });

    it('should refuse an item depending on itself before reading anything', async () => {
      const { sut, repository } = makeSut();
      const error = await refusal(sut.addIn(edge({ blocker: A }), MANAGER));
      expect(error.code).toBe('self_dependency');
      expect(error.message).toBe('ATL-1 cannot depend on itself');
      expect(repository.insertAtEnds).not.toHaveBeenCalled();
    });

    it('should refuse an edge across two organizations, naming both items', async () => {
      const { sut, repository } = makeSut();
      // the statement inserts nothing across organizations
      repository.insertAtEnds.mockResolvedValueOnce({ ends: { ...ENDS, crosses: true }, added: null });
      const error = await refusal(sut.addIn(edge(), MANAGER));
      expect(error.code).toBe('dependency_crosses_organization');
      expect(error.status).toBe(409);
      expect(error.extra).toEqual({ dependent: 'ATL-1', blocker: 'ATL-2' });
    });

    it("should refuse a status form naming no stage of the blocker's workflow", async () => {
      const { sut, graphs } = makeSut();
      const error = await refusal(sut.addIn(edge({ satisfaction: 'status:released' }), MANAGER));
      expect(error.code).toBe('invalid_satisfaction');
      expect(error.message).toContain("released is not a stage of ATL-2's workflow");
      // thrown inside the transaction, which rolls the insert back; no cycle check
      expect(graphs.cycleIfAdded).not.toHaveBeenCalled();
    });

    it("should read the blocker's stages with the two organizations, and no delivery facts", async () => {
      const { sut, repository, facts } = makeSut();
      await sut.addIn(edge(), MANAGER);
      expect(repository.insertAtEnds).toHaveBeenCalledTimes(1);
      expect(facts.facts).not.toHaveBeenCalled();
    });

    it('should answer item_not_found and insert nothing when an item is gone before the check', async () => {
      const { sut, repository } = makeSut();
      repository.insertAtEnds.mockResolvedValueOnce({ ends: null, added: null });
      const error = await refusal(sut.addIn(edge(), MANAGER));
      expect(error.code).toBe('item_not_found');
    });

    it('should refuse evidence past the limit as invalid_value', async () => {
      const { sut, repository } = makeSut();
      const error = await refusal(
        sut.addIn(edge({ evidenceJson: JSON.stringify('x'.repeat(DEPENDENCY_EVIDENCE_LIMIT)) }), MANAGER),
      );
      expect(error.code).toBe('invalid_value');
      expect(error.extra).toEqual({ field: 'evidence' });
      // not storable: the statement reads the ends and inserts nothing
      expect(repository.insertAtEnds).toHaveBeenCalledWith(expect.anything(), false, MANAGER);
    });

    it('should refuse an activation edge that closes a cycle, naming the cycle by refs', async () => {
      const { sut, repository, graphs } = makeSut();
      graphs.cycleIfAdded.mockResolvedValueOnce([2, 3, 99, 1]);
      const error = await refusal(sut.addIn(edge(), MANAGER));
      expect(graphs.cycleIfAdded).toHaveBeenCalledWith(MANAGER, 9, 2, 1);
      expect(error.code).toBe('dependency_cycle');
      expect(error.status).toBe(409);
      // an id the refs lookup does not answer is named by its number
      expect(error.extra).toEqual({ cycle: ['ATL-2', 'ATL-3', '#99', 'ATL-1'] });
      expect(error.message).toBe('ATL-1 waiting on ATL-2 would close an activation cycle: ATL-2 → ATL-3 → #99 → ATL-1');
      // inserted first, under no lock (the check takes the dependent's organization's); the refusal rolls it back
      expect(repository.insertAtEnds.mock.invocationCallOrder[0]).toBeLessThan(
        graphs.cycleIfAdded.mock.invocationCallOrder[0],
      );
    });

    it('should neither lock nor check an edge that is already there', async () => {
      const { sut, repository, graphs } = makeSut();
      repository.insertAtEnds.mockResolvedValueOnce({ ends: ENDS, added: null });
      await expect(sut.addIn(edge(), MANAGER)).resolves.toBeNull();
      expect(graphs.cycleIfAdded).not.toHaveBeenCalled();
    });

    it('should not look for cycles on an edge at another gate', async () => {
      const { sut, graphs } = makeSut();
      await expect(sut.addIn(edge({ gatePoint: 'closure' }), MANAGER)).resolves.toBe(STORED);
      expect(graphs.cycleIfAdded).not.toHaveBeenCalled();
    });
  });

  describe('add', () => {
    it('should refuse before any transaction when the caller cannot see an item', async () => {
      const { sut, access, repository } = makeSut();
      access.resolveItems.mockRejectedValueOnce(itemNotFound('ATL-2'));
      const error = await refusal(sut.add(ACTOR, 'ATL-1', { blocker: 'ATL-2' }));
      expect(error.code).toBe('item_not_found');
      expect(repository.transaction).not.toHaveBeenCalled();
    });

    it('should default the gate, form and source and answer the row its insert returned', async () => {
      const { sut, repository } = makeSut();
      const answer = await sut.add(ACTOR, 'ATL-1', { blocker: 'ATL-2' });
      expect(answer.created).toBe(true);
      expect(answer.dependency).toMatchObject({ dependent: 'ATL-1', blocker: 'ATL-2' });
      expect(repository.insertAtEnds).toHaveBeenCalledWith(
        expect.objectContaining({ gatePoint: 'activation', source: 'operator' }),
        true,
        MANAGER,
      );
      expect(repository.find).not.toHaveBeenCalled();
    });

    it('should answer the stored row, read after, for an edge that was already there', async () => {
      const { sut, repository } = makeSut();
      repository.insertAtEnds.mockResolvedValueOnce({ ends: ENDS, added: null });
      const answer = await sut.add(ACTOR, 'ATL-1', { blocker: 'ATL-2' });
      expect(answer.created).toBe(false);
      expect(repository.find).toHaveBeenCalledWith(1, 2, 'activation');
    });
  });

  describe('addManyIn', () => {
    it('should refuse the first edge crossing organizations, by its position in the file', async () => {
      const { sut, repository } = makeSut();
      repository.firstCrossingOrganization.mockResolvedValueOnce(1);
      const graph = new GrowingActivationGraph([]);
      const error = await refusal(sut.addManyIn([edge(), edge({ dependent: C })], MANAGER, graph));
      expect(error.code).toBe('dependency_crosses_organization');
      expect(error.extra).toEqual({ dependent: 'ATL-3', blocker: 'ATL-2' });
      expect(repository.insertMany).not.toHaveBeenCalled();
    });

    it('should refuse a cycle closed by two edges of the same file', async () => {
      const { sut, repository } = makeSut();
      const graph = new GrowingActivationGraph([]);
      const error = await refusal(
        sut.addManyIn([edge({ dependent: A, blocker: B }), edge({ dependent: B, blocker: A })], MANAGER, graph),
      );
      expect(error.code).toBe('dependency_cycle');
      expect(new Set(error.extra.cycle as string[])).toEqual(new Set(['ATL-1', 'ATL-2']));
      expect(repository.insertMany).not.toHaveBeenCalled();
    });

    it('should insert every accepted edge in one statement', async () => {
      const { sut, repository } = makeSut();
      const graph = new GrowingActivationGraph([]);
      await expect(sut.addManyIn([edge(), edge({ dependent: C })], MANAGER, graph)).resolves.toBe(2);
      expect(repository.insertMany).toHaveBeenCalledTimes(1);
    });
  });

  describe('remove', () => {
    it('should find the refs and remove the edge in one statement, resolving nothing', async () => {
      const { sut, repository, access } = makeSut();
      access.visibleProjects.mockResolvedValueOnce(['atl']);
      await expect(sut.remove(ACTOR, 'atl-1', 'ATL-2', undefined)).resolves.toEqual({
        removed: true,
        dependent: 'ATL-1',
        blocker: 'ATL-2',
        gate_point: 'activation',
      });
      expect(repository.removeByRefs).toHaveBeenCalledWith(
        { prefix: 'ATL', sequence: 1 },
        { prefix: 'ATL', sequence: 2 },
        'activation',
        ['atl'],
      );
      expect(access.resolveItems).not.toHaveBeenCalled();
    });

    it('should answer dependency_not_found, naming both by their refs, when no such edge is stored', async () => {
      const { sut, repository, access } = makeSut();
      repository.removeByRefs.mockResolvedValueOnce(null);
      const error = await refusal(sut.remove(ACTOR, 'ATL-1', 'ATL-2', 'closure'));
      expect(error.code).toBe('dependency_not_found');
      expect(error.message).toBe('ATL-1 has no closure dependency on ATL-2');
      expect(access.resolveItems).toHaveBeenCalledWith(ACTOR, ['ATL-1', 'ATL-2']);
    });

    it("should answer the resolver's refusal when nothing was removed and a ref is unknown or unseen", async () => {
      const { sut, repository, access } = makeSut();
      repository.removeByRefs.mockResolvedValueOnce(null);
      access.resolveItems.mockRejectedValueOnce(itemNotFound('ATL-2'));
      expect((await refusal(sut.remove(ACTOR, 'ATL-1', 'ATL-2', undefined))).code).toBe('item_not_found');
    });

    it('should leave a malformed ref to the resolver, removing nothing', async () => {
      const { sut, repository, access } = makeSut();
      access.resolveItems.mockRejectedValueOnce(itemNotFound('not a ref'));
      expect((await refusal(sut.remove(ACTOR, 'ATL-1', 'not a ref', undefined))).code).toBe('item_not_found');
      expect(repository.removeByRefs).not.toHaveBeenCalled();
      expect(access.resolveItems).toHaveBeenCalledWith(ACTOR, ['ATL-1', 'not a ref']);
    });
  });
});
