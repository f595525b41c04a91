import type { DependenciesRepository } from './dependencies.repository';
import { DependencyFactsService } from './dependency-facts.service';

const row = (id: number, over: Record<string, unknown> = {}) => ({
  id,
  ref: `ATL-${id}`,
  project: 'atl',
  status: 'implementing',
  title: `item ${id}`,
  merged_at: null,
  workflow_version_id: 5,
  stages: ['idea', 'implementing', 'done'],
  sealed: false,
  ...over,
});

function makeSut() {
  const repository = {
    blockerItems: jest.fn(async (ids: readonly number[]) => ids.map((id) => row(id))),
    runsCarrying: jest.fn(async () => [] as { item_id: number; environment: string; status: string }[]),
    environmentsOf: jest.fn(async () => [] as { project: string; name: string; in_flow: boolean }[]),
    edgesForDependents: jest.fn(async () => []),
  };
  const sut = new DependencyFactsService(repository as unknown as DependenciesRepository);
  return { sut, repository };
}

describe(DependencyFactsService.name, () => {
  describe('facts', () => {
    it('should read nothing for no blockers', async () => {
      const { sut, repository } = makeSut();
      await expect(sut.facts([])).resolves.toEqual(new Map());
      expect(repository.blockerItems).not.toHaveBeenCalled();
    });

    it('should ask for each blocker and each dependent once', async () => {
      const { sut, repository } = makeSut();
      await sut.facts([2, 2, 3], undefined, [7, 7]);
      expect(repository.blockerItems).toHaveBeenCalledWith([2, 3], [7], undefined);
    });

    it('should tell deployments by item and registered environments by project', async () => {
      const { sut, repository } = makeSut();
      repository.blockerItems.mockResolvedValueOnce([row(2), row(3, { project: 'beta' })]);
      repository.runsCarrying.mockResolvedValueOnce([
        { item_id: 2, environment: 'prod', status: 'succeeded' },
        { item_id: 2, environment: 'staging', status: 'succeeded' },
      ]);
      repository.environmentsOf.mockResolvedValueOnce([{ project: 'atl', name: 'prod', in_flow: true }]);
      const facts = await sut.facts([2, 3]);
      expect(facts.get(2)?.deployedEnvironments).toEqual(new Set(['prod', 'staging']));
      expect(facts.get(2)?.registeredEnvironments).toEqual(new Set(['prod']));
      expect(facts.get(3)?.deployedEnvironments).toEqual(new Set());
      expect(facts.get(3)?.registeredEnvironments).toEqual(new Set());
      expect(repository.environmentsOf).toHaveBeenCalledWith(['atl', 'beta'], undefined);
    });

    it('should mark a blocker of another organization sealed, and only that one', async () => {
      const { sut, repository } = makeSut();
      repository.blockerItems.mockResolvedValueOnce([row(2, { sealed: true }), row(3)]);
      const facts = await sut.facts([2, 3], undefined, [1]);
      expect(facts.get(2)?.sealed).toBe(true);
      expect(facts.get(3)).not.toHaveProperty('sealed');
    });

    it('should share one stage array among the blockers of one workflow version', async () => {
      const { sut, repository } = makeSut();
      repository.blockerItems.mockResolvedValueOnce([row(2), row(3), row(4, { workflow_version_id: 6 })]);
      const facts = await sut.facts([2, 3, 4]);
      expect(facts.get(2)?.stageOrder).toBe(facts.get(3)?.stageOrder);
      expect(facts.get(4)?.stageOrder).not.toBe(facts.get(2)?.stageOrder);
    });
  });

  describe('deliveryFacts', () => {
    it('should count only succeeded runs unless in-flight ones are asked for', async () => {
      const { sut, repository } = makeSut();
      await sut.deliveryFacts([2], ['atl', 'atl']);
      expect(repository.runsCarrying).toHaveBeenLastCalledWith([2], ['succeeded'], undefined);
      expect(repository.environmentsOf).toHaveBeenLastCalledWith(['atl'], undefined);
      await sut.deliveryFacts([2], ['atl'], { inFlight: true });
      expect(repository.runsCarrying).toHaveBeenLastCalledWith(
        [2],
        ['succeeded', 'pending', 'running', 'halted'],
        undefined,
      );
    });
  });
});
