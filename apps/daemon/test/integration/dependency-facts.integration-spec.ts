import fc from 'fast-check';
import type { EntityManager } from 'typeorm';

import { evaluateGate, findCycleIfAdded } from '@app/core';
import { createProject, insertEdges, insertEnvironment, insertItems, insertRun } from '@app/testing';

import { ActivationGraphCache } from '../../src/dependencies/activation-graph-cache';
import { DependenciesRepository } from '../../src/dependencies/dependencies.repository';
import { DependencyFactsService } from '../../src/dependencies/dependency-facts.service';
import { FrontierRepository } from '../../src/frontier/read-path/frontier.repository';
import { FrontierGraphCache } from '../../src/frontier/read-path/frontier-graph-cache';
import { FrontierService } from '../../src/frontier/read-path/frontier.service';
import { createMediumDatabase, MediumDatabase } from './setup/medium';

// The organization of an item's project, as the daemon's add reads it with the edge's ends (null: none).
async function organizationOf(manager: EntityManager, item: number): Promise<number | null> {
  const [row]: { organization: number | null }[] = await manager.query(
    'SELECT p.organization_id AS organization FROM items i JOIN projects p ON p.id = i.project WHERE i.id = $1',
    [item],
  );
  return row.organization;
}

// Blocker facts have one loader (DependencyFactsService over DependenciesRepository); the gate path and the frontier
// path must see the same facts for the same blockers, on a real database.
describe(DependencyFactsService.name, () => {
  let db: MediumDatabase;
  let sut: DependencyFactsService;
  let frontier: FrontierService;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    db = await createMediumDatabase('facts');
    sut = new DependencyFactsService(new DependenciesRepository(db.dataSource));
    const frontierRepository = new FrontierRepository(db.dataSource);
    frontier = new FrontierService(
      new FrontierGraphCache(frontierRepository, sut),
      null as never,
      frontierRepository,
      null as never,
    );

    const { client } = db;
    await createProject(client, { id: 'atl', prefix: 'ATL' });
    await createProject(client, { id: 'ops', prefix: 'OPS' });
    await insertEnvironment(client, { project: 'atl', name: 'production' });
    await insertEnvironment(client, { project: 'atl', name: 'staging', retired: true });
    await insertEnvironment(client, { project: 'ops', name: 'production' });
    const atl = await insertItems(client, 'atl', [
      { title: 'dependent' },
      { title: 'own run', status: 'release' },
      { title: 'foreign run', status: 'release' },
      { title: 'retired env', status: 'release' },
      { title: 'failed and running', status: 'release' },
      { title: 'deleted', status: 'release' },
    ]);
    const [ops] = await insertItems(client, 'ops', [{ title: 'other project', status: 'release' }]);
    [ids.dependent, ids.own, ids.foreign, ids.retired, ids.unfinished, ids.deleted] = atl.map((i) => i.id);
    ids.otherProject = ops.id;

    await insertRun(client, { project: 'atl', environment: 'production', items: [ids.own] });
    await insertRun(client, { project: 'ops', environment: 'production', items: [ids.foreign] });
    await insertRun(client, { project: 'atl', environment: 'staging', items: [ids.retired] });
    await insertRun(client, { project: 'atl', environment: 'production', status: 'failed', items: [ids.unfinished] });
    await insertRun(client, { project: 'atl', environment: 'production', status: 'running', items: [ids.unfinished] });
    await insertRun(client, { project: 'ops', environment: 'production', items: [ids.otherProject] });
    await insertEdges(client, [
      { blocker: ids.own, dependent: ids.dependent, satisfaction: 'fact:deployed:production' },
      { blocker: ids.foreign, dependent: ids.dependent, satisfaction: 'fact:deployed:production' },
      { blocker: ids.retired, dependent: ids.dependent, satisfaction: 'fact:deployed:staging' },
      { blocker: ids.unfinished, dependent: ids.dependent, satisfaction: 'fact:deployed:production' },
      { blocker: ids.otherProject, dependent: ids.dependent, satisfaction: 'fact:deployed:production' },
      { blocker: ids.deleted, dependent: ids.dependent, satisfaction: 'fact:deployed:production' },
    ]);
    await client.query('DELETE FROM items WHERE id = $1', [ids.deleted]);
  });

  afterAll(async () => {
    await db?.close();
  });

  // The dependency-add handler checks cycles in memory (ActivationGraphCache, issue 38), brought up to date by the
  // edges written and deleted since its last check, whoever wrote them (here plain SQL): the same answer as
  // findCycleIfAdded over every stored activation edge (a cycle or none, and a shortest one), kept or loaded anew.
  it('should find the cycle an activation edge would close as findCycleIfAdded does over every edge', async () => {
    const { client } = db;
    await createProject(client, { id: 'cyc', prefix: 'CYC' });
    const nodes = (
      await insertItems(
        client,
        'cyc',
        Array.from({ length: 10 }, () => ({})),
      )
    ).map((i) => i.id);
    const repository = new DependenciesRepository(db.dataSource);
    const kept = new ActivationGraphCache(repository);
    const check = (cache: ActivationGraphCache, b: number, d: number) =>
      db.dataSource.transaction(async (manager) => {
        const organization = await organizationOf(manager, d);
        return cache.cycleIfAdded(manager, organization, b, d);
      });
    const edge = fc.tuple(fc.nat(9), fc.nat(9), fc.constantFrom('activation', 'activation', 'integration'));
    let found = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(edge, { maxLength: 18 }),
        fc.nat(9),
        fc.nat(9),
        fc.boolean(),
        async (edges, b, d, flip) => {
          await client.query('DELETE FROM item_dependencies WHERE dependent_item_id = ANY($1::int[])', [nodes]);
          await insertEdges(
            client,
            edges
              .filter(([x, y]) => x !== y)
              .map(([x, y, gatePoint]) => ({ blocker: nodes[x], dependent: nodes[y], gatePoint })),
          );
          // a gate changed in place takes an edge out of (or into) the activation graph
          if (flip) {
            await client.query(
              `UPDATE item_dependencies SET gate_point = CASE gate_point WHEN 'activation' THEN 'integration'
                                                            ELSE 'activation' END
                WHERE id = (SELECT min(d.id) FROM item_dependencies d WHERE d.dependent_item_id = ANY($1::int[])
                               AND NOT EXISTS (SELECT 1 FROM item_dependencies o WHERE o.id <> d.id
                                                  AND o.dependent_item_id = d.dependent_item_id
                                                  AND o.blocking_item_id = d.blocking_item_id))`,
              [nodes],
            );
          }
          const pairs = await repository.activationPairs(db.dataSource.manager);
          const expected = findCycleIfAdded(pairs, { blocker: nodes[b], dependent: nodes[d] });
          if (expected) found++;
          for (const got of [
            await check(kept, nodes[b], nodes[d]),
            await check(new ActivationGraphCache(repository), nodes[b], nodes[d]),
          ]) {
            expect(got?.length).toBe(expected?.length);
            if (got) {
              // dependent → ... → blocker → dependent, along stored activation edges
              expect(got[0]).toBe(nodes[d]);
              expect(got[got.length - 2]).toBe(nodes[b]);
              expect(got[got.length - 1]).toBe(nodes[d]);
              const stored = new Set(pairs.map((p) => `${p.blocker}>${p.dependent}`));
              for (let k = 0; k + 2 < got.length; k++) expect(stored.has(`${got[k]}>${got[k + 1]}`)).toBe(true);
            }
          }
        },
      ),
      // a fixed seed: the runs (and how many of them close a cycle) are the same on every machine
      { numRuns: 60, seed: 20261127 },
    );
    // cycles were found, not only their absence (an unseeded run once found only 5 of 60)
    expect(found).toBeGreaterThan(5);
  });

  // ADR 0097: the check takes the organization's lock in the round trip that reads the changes. That read must see an
  // edge committed by the lock's holder while it waited: a statement's own snapshot, taken before the wait, would not.
  it('should read, under the lock, the edge its holder committed while the check waited for it', async () => {
    const { client } = db;
    await createProject(client, { id: 'lck', prefix: 'LCK' });
    const [x, y] = (await insertItems(client, 'lck', [{}, {}])).map((i) => i.id);
    const repository = new DependenciesRepository(db.dataSource);
    const cache = new ActivationGraphCache(repository);
    const check = (b: number, d: number) =>
      db.dataSource.transaction(async (manager) => {
        const organization = await organizationOf(manager, d);
        return cache.cycleIfAdded(manager, organization, b, d);
      });
    expect(await check(x, y)).toBeNull(); // the graph is kept from here on
    const organization = await organizationOf(db.dataSource.manager, y);
    const holder = await db.dataSource.createQueryRunner();
    await holder.connect();
    try {
      await holder.startTransaction();
      await repository.lockActivationGraph(holder.manager, { organization });
      await holder.query(
        `INSERT INTO item_dependencies (dependent_item_id, blocking_item_id, gate_point, satisfaction, source)
         VALUES ($1, $2, 'activation', 'status:done', 'operator')`,
        [y, x],
      );
      let answered = false;
      const waiting = check(y, x).finally(() => (answered = true));
      // the check is waiting for the lock: its session shows the advisory wait
      for (;;) {
        const { rows } = await client.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND wait_event = 'advisory'`,
        );
        if (rows[0].n > 0) break;
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(answered).toBe(false);
      await holder.commitTransaction();
      // x waiting on y closes y → x → y, through the edge committed while the check waited
      expect(await waiting).toEqual([x, y, x]);
    } finally {
      if (holder.isTransactionActive) await holder.rollbackTransaction();
      await holder.release();
    }
  });

  // ADR 0097: at boot the busiest organizations' graphs are loaded under no lock; the first check then reads only what
  // changed since, under its lock, and still sees an edge written after the load.
  it('should check against a graph loaded at boot, brought up to date by the edges written since', async () => {
    const { client } = db;
    await createProject(client, { id: 'wrm', prefix: 'WRM' });
    const [p, q, r] = (await insertItems(client, 'wrm', [{}, {}, {}])).map((i) => i.id);
    await insertEdges(client, [{ blocker: p, dependent: q }]);
    const repository = new DependenciesRepository(db.dataSource);
    const cache = new ActivationGraphCache(repository);
    const loads = jest.spyOn(repository, 'activationEdgesOf');
    const changes = jest.spyOn(repository, 'activationChangesSince');
    await cache.warm();
    expect(loads).toHaveBeenCalled();
    loads.mockClear();
    // written after the load: q → r; then p waiting on r closes p → q → r → p
    await insertEdges(client, [{ blocker: q, dependent: r }]);
    const cycle = await db.dataSource.transaction(async (manager) => {
      const organization = await organizationOf(manager, p);
      return cache.cycleIfAdded(manager, organization, r, p);
    });
    expect(cycle).toEqual([p, q, r, p]);
    expect(loads).not.toHaveBeenCalled();
    // the check read the changes since the load, taking the lock in the same call
    expect(changes.mock.calls.map((call) => call[3])).toEqual([true]);
  });

  async function gatePath() {
    const edges = await sut.edgesFor([ids.dependent], 'activation');
    const facts = await sut.facts(edges.map((e) => e.blocker));
    return { edges, facts, evaluation: evaluateGate(ids.dependent, 'activation', edges, facts) };
  }

  async function frontierPath() {
    const project = (await new FrontierRepository(db.dataSource).findProject('atl'))!;
    return frontier.loadGraph(project, { gates: ['activation'], rationale: false, inFlightRuns: true });
  }

  const unsatisfiedOf = (blockers: { blocker: number }[]) => blockers.map((b) => b.blocker).sort((a, b) => a - b);

  // A removal finds both items by their refs in its DELETE (ADR 0106): both must be in projects the caller sees.
  it('should remove an edge by its refs only when the caller sees both projects', async () => {
    const repository = new DependenciesRepository(db.dataSource);
    const [dependent] = await insertItems(db.client, 'atl', [{ title: 'removal dependent' }]);
    const [blocker] = await insertItems(db.client, 'ops', [{ title: 'removal blocker' }]);
    await insertEdges(db.client, [{ blocker: blocker.id, dependent: dependent.id }]);
    const edges = async () =>
      Number(
        (
          await db.client.query<{ n: string }>(
            'SELECT count(*) AS n FROM item_dependencies WHERE dependent_item_id = $1 AND blocking_item_id = $2',
            [dependent.id, blocker.id],
          )
        ).rows[0].n,
      );
    const d = { prefix: 'ATL', sequence: dependent.seq };
    const b = { prefix: 'OPS', sequence: blocker.seq };
    // the blocker's project unseen, then the dependent's: nothing removed
    expect(await repository.removeByRefs(d, b, 'activation', ['atl'])).toBeNull();
    expect(await repository.removeByRefs(d, b, 'activation', ['ops'])).toBeNull();
    // another gate: no such edge
    expect(await repository.removeByRefs(d, b, 'closure', null)).toBeNull();
    expect(await edges()).toBe(1);
    expect(await repository.removeByRefs(d, b, 'activation', ['atl', 'ops'])).toEqual({
      dependent: `ATL-${dependent.seq}`,
      blocker: `OPS-${blocker.seq}`,
    });
    expect(await edges()).toBe(0);
    // gone: nothing more to remove, for a caller who sees every project either
    expect(await repository.removeByRefs(d, b, 'activation', null)).toBeNull();
  });

  describe('facts', () => {
    it('should count a succeeded run owned by the blocker project to a registered environment', async () => {
      const { facts } = await gatePath();
      expect([...facts.get(ids.own)!.deployedEnvironments]).toEqual(['production']);
    });

    it('should not count a run owned by another project', async () => {
      const { facts } = await gatePath();
      expect(facts.get(ids.foreign)!.deployedEnvironments.size).toBe(0);
    });

    it('should not count failed or running runs', async () => {
      const { facts } = await gatePath();
      expect(facts.get(ids.unfinished)!.deployedEnvironments.size).toBe(0);
    });

    it('should leave a retired environment out of the registered environments', async () => {
      const { facts } = await gatePath();
      expect([...facts.get(ids.retired)!.registeredEnvironments]).toEqual(['production']);
      expect([...facts.get(ids.retired)!.deployedEnvironments]).toEqual(['staging']);
    });

    it('should read a blocker of another project against that project (runs and environments)', async () => {
      const { facts } = await gatePath();
      expect(facts.get(ids.otherProject)).toMatchObject({ ref: 'OPS-1', status: 'release' });
      expect([...facts.get(ids.otherProject)!.deployedEnvironments]).toEqual(['production']);
      expect([...facts.get(ids.otherProject)!.registeredEnvironments]).toEqual(['production']);
    });

    it('should have no facts for a blocker that no longer exists', async () => {
      const { facts, evaluation } = await gatePath();
      expect(facts.has(ids.deleted)).toBe(false);
      expect(evaluation.blockers.find((b) => b.blocker === ids.deleted)?.reason).toMatch(/no longer exists/);
    });
  });

  describe('one answer on both paths', () => {
    it('should leave exactly the same blockers unsatisfied for the gate and the frontier', async () => {
      const { evaluation } = await gatePath();
      const graph = await frontierPath();
      const onFrontier = evaluateGate(
        ids.dependent,
        'activation',
        graph.activation.map((e) => ({ ...e, gatePoint: 'activation', rationale: '' })),
        graph.facts,
      );
      const expected = [ids.foreign, ids.retired, ids.unfinished, ids.deleted].sort((a, b) => a - b);
      expect(unsatisfiedOf(evaluation.blockers)).toEqual(expected);
      expect(unsatisfiedOf(onFrontier.blockers)).toEqual(expected);
    });

    it('should give the frontier the same delivery facts as the gate for every loaded blocker', async () => {
      const { facts } = await gatePath();
      const graph = await frontierPath();
      for (const id of [ids.own, ids.foreign, ids.retired, ids.unfinished, ids.otherProject]) {
        const onFrontier = graph.facts.get(id)!;
        expect([...onFrontier.deployedEnvironments].sort()).toEqual([...facts.get(id)!.deployedEnvironments].sort());
        expect([...onFrontier.registeredEnvironments].sort()).toEqual(
          [...facts.get(id)!.registeredEnvironments].sort(),
        );
      }
    });

    it('should keep in-flight runs of the blocker project (not of others) for the delivery state', async () => {
      const graph = await frontierPath();
      const unfinished = graph.runs.filter((r) => r.item_id === ids.unfinished).map((r) => r.status);
      expect(unfinished).toEqual(['running']);
      expect(graph.runs.some((r) => r.item_id === ids.foreign)).toBe(false);
    });
  });
});
