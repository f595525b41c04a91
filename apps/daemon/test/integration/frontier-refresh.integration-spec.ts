import fc from 'fast-check';

import { computeFrontier } from '@app/core';

import { toFrontierResultWire } from '../../src/frontier/wire/frontier.mapper';
import { createProject, insertEdges, insertEnvironment, insertItems, insertRun } from '@app/testing';

import { DependenciesRepository } from '../../src/dependencies/dependencies.repository';
import { DependencyFactsService } from '../../src/dependencies/dependency-facts.service';
import { ProjectGraph } from '../../src/frontier/read-path/frontier-graph';
import { bodyBytes } from '../../src/frontier/wire/frontier-serializer';
import { FrontierRepository, ProjectRow } from '../../src/frontier/read-path/frontier.repository';
import { FrontierGraphCache } from '../../src/frontier/read-path/frontier-graph-cache';
import { FrontierService, LoadOptions } from '../../src/frontier/read-path/frontier.service';
import { createMediumDatabase, MediumDatabase } from './setup/medium';

const FRONTIER_READ: LoadOptions = { gates: ['activation'], rationale: false, inFlightRuns: false };
const FRONTIER_LIST: LoadOptions = {
  gates: ['activation', 'integration', 'closure'],
  rationale: true,
  inFlightRuns: true,
};

const STATUSES = ['idea', 'planned', 'implementing', 'reviewing-implementation', 'release', 'done', 'cancelled'];
const SATISFACTIONS = [
  'status:done',
  'status:implemented',
  'fact:merged',
  'fact:deployed:production',
  'fact:deployed:staging',
];
const GATES = ['activation', 'integration', 'closure', 'coordination_only'];
const RUN_STATUSES = ['pending', 'running', 'succeeded', 'failed'];
const PROJECTS = ['atl', 'ops'];
const ENVIRONMENTS = ['production', 'staging'];

// Every input of the frontier, in a canonical order, plus the computed result.
function snapshot(graph: ProjectGraph) {
  const sortBy = <T>(list: T[], key: (t: T) => string) => [...list].sort((a, b) => key(a).localeCompare(key(b)));
  return {
    items: graph.items,
    edges: graph.edges,
    facts: [...graph.facts.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([id, f]) => ({
        id,
        ...f,
        deployedEnvironments: [...f.deployedEnvironments].sort(),
        registeredEnvironments: [...f.registeredEnvironments].sort(),
      })),
    runs: sortBy(graph.runs, (r) => `${r.item_id}|${r.environment}|${r.status}`),
    environments: sortBy(
      [...graph.environments.values()].flatMap((m) => [...m.values()]),
      (e) => `${e.project}|${e.name}`,
    ),
    result: toFrontierResultWire(
      computeFrontier({ items: graph.items, edges: graph.activation, blockerFacts: graph.facts, wipCap: 3 }),
      graph.refOf,
    ),
  };
}

type Op =
  | { kind: 'insertItem'; project: number; status: number }
  | { kind: 'updateItem'; pick: number; status: number; flag: number }
  | { kind: 'deleteItem'; pick: number }
  | { kind: 'insertEdge'; dependent: number; blocker: number; gate: number; satisfaction: number }
  | { kind: 'updateEdge'; pick: number; gate: number; satisfaction: number }
  | { kind: 'deleteEdge'; pick: number }
  | { kind: 'insertRun'; project: number; environment: number; status: number; picks: number[] }
  | { kind: 'updateRun'; pick: number; status: number }
  | { kind: 'deleteRun'; pick: number }
  | { kind: 'environment'; project: number; environment: number; action: number }
  | { kind: 'truncateRuns' }
  | { kind: 'prune' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('insertItem' as const), project: fc.nat(1), status: fc.nat(STATUSES.length - 1) }),
  fc.record({
    kind: fc.constant('updateItem' as const),
    pick: fc.nat(),
    status: fc.nat(STATUSES.length - 1),
    flag: fc.nat(5),
  }),
  fc.record({ kind: fc.constant('deleteItem' as const), pick: fc.nat() }),
  fc.record({
    kind: fc.constant('insertEdge' as const),
    dependent: fc.nat(),
    blocker: fc.nat(),
    gate: fc.nat(GATES.length - 1),
    satisfaction: fc.nat(SATISFACTIONS.length - 1),
  }),
  fc.record({
    kind: fc.constant('updateEdge' as const),
    pick: fc.nat(),
    gate: fc.nat(GATES.length - 1),
    satisfaction: fc.nat(SATISFACTIONS.length - 1),
  }),
  fc.record({ kind: fc.constant('deleteEdge' as const), pick: fc.nat() }),
  fc.record({
    kind: fc.constant('insertRun' as const),
    project: fc.nat(1),
    environment: fc.nat(1),
    status: fc.nat(RUN_STATUSES.length - 1),
    picks: fc.array(fc.nat(), { minLength: 1, maxLength: 3 }),
  }),
  fc.record({ kind: fc.constant('updateRun' as const), pick: fc.nat(), status: fc.nat(RUN_STATUSES.length - 1) }),
  fc.record({ kind: fc.constant('deleteRun' as const), pick: fc.nat() }),
  fc.record({
    kind: fc.constant('environment' as const),
    project: fc.nat(1),
    environment: fc.nat(1),
    action: fc.nat(2),
  }),
  fc.constant({ kind: 'truncateRuns' as const }),
  fc.constant({ kind: 'prune' as const }),
);

// items new, updated (to and from terminal statuses too) and dependencies added and removed, none a deployment fact
const composableOpArb = opArb.filter(
  (op) =>
    op.kind === 'insertItem' ||
    op.kind === 'updateItem' ||
    op.kind === 'deleteEdge' ||
    (op.kind === 'insertEdge' && !SATISFACTIONS[op.satisfaction].startsWith('fact:deployed:')),
);

describe(FrontierService.name, () => {
  let db: MediumDatabase;
  let sut: FrontierService;
  let repository: FrontierRepository;
  let project: ProjectRow;

  beforeAll(async () => {
    db = await createMediumDatabase('refresh');
    repository = new FrontierRepository(db.dataSource);
    const facts = new DependencyFactsService(new DependenciesRepository(db.dataSource));
    const events = { recordBestEffort: () => Promise.resolve() };
    sut = new FrontierService(new FrontierGraphCache(repository, facts), null as never, repository, events as never);
    const { client } = db;
    await createProject(client, { id: 'atl', prefix: 'ATL' });
    await createProject(client, { id: 'ops', prefix: 'OPS' });
    await insertEnvironment(client, { project: 'atl', name: 'production' });
    await insertEnvironment(client, { project: 'ops', name: 'production' });
    const atl = await insertItems(client, 'atl', [
      { status: 'planned' },
      { status: 'release' },
      { status: 'idea' },
      { status: 'done' },
      { status: 'implementing', workflow: 'epic' },
    ]);
    const ops = await insertItems(client, 'ops', [{ status: 'release' }, { status: 'planned' }]);
    await insertEdges(client, [
      { blocker: atl[1].id, dependent: atl[0].id, satisfaction: 'fact:deployed:production' },
      { blocker: ops[0].id, dependent: atl[2].id, satisfaction: 'fact:merged' },
      { blocker: atl[3].id, dependent: atl[4].id, gatePoint: 'closure' },
    ]);
    await insertRun(client, { project: 'atl', environment: 'production', items: [atl[1].id] });
    project = (await repository.findProject('atl'))!;
  });

  afterAll(async () => {
    await db?.close();
  });

  const ids = async (table: string) =>
    (await db.client.query<{ id: string }>(`SELECT id FROM ${table} ORDER BY id`)).rows.map((r) => r.id);
  const pickFrom = (list: string[], n: number) => (list.length === 0 ? null : list[n % list.length]);

  // Direct SQL, as another replica or an operator's psql would write.
  async function apply(op: Op): Promise<void> {
    const q = (sql: string, params: unknown[] = []) => db.client.query(sql, params).catch(() => undefined);
    switch (op.kind) {
      case 'insertItem':
        await insertItems(db.client, PROJECTS[op.project], [{ status: STATUSES[op.status] }]);
        return;
      case 'updateItem': {
        const id = pickFrom(await ids('items'), op.pick);
        if (!id) return;
        const sets = [
          'status = $2',
          "priority = CASE priority WHEN 'high' THEN 'low' ELSE 'high' END",
          'frozen = 1 - frozen',
          "blocked = 1 - blocked, blocked_reason = 'held'",
          'merged_at = CASE WHEN merged_at IS NULL THEN now() END',
          "title = title || '!'",
        ];
        await q(
          `UPDATE items SET ${sets[op.flag]}${op.flag === 0 ? '' : ', updated_at = now()'} WHERE id = $1${op.flag === 0 ? '' : ' AND $2::text IS NOT NULL'}`,
          [id, STATUSES[op.status]],
        );
        return;
      }
      case 'deleteItem': {
        const id = pickFrom(await ids('items'), op.pick);
        if (id) await q('DELETE FROM items WHERE id = $1', [id]);
        return;
      }
      case 'insertEdge': {
        const items = await ids('items');
        const dependent = pickFrom(items, op.dependent);
        const blocker = pickFrom(items, op.blocker);
        if (!dependent || !blocker || dependent === blocker) return;
        await q(
          `INSERT INTO item_dependencies (dependent_item_id, blocking_item_id, gate_point, satisfaction, source, rationale)
           VALUES ($1, $2, $3, $4, 'operator', 'why') ON CONFLICT DO NOTHING`,
          [dependent, blocker, GATES[op.gate], SATISFACTIONS[op.satisfaction]],
        );
        return;
      }
      case 'updateEdge': {
        const id = pickFrom(await ids('item_dependencies'), op.pick);
        if (id) {
          await q(
            'UPDATE item_dependencies SET gate_point = $2, satisfaction = $3, rationale = rationale || $4 WHERE id = $1',
            [id, GATES[op.gate], SATISFACTIONS[op.satisfaction], '+'],
          );
        }
        return;
      }
      case 'deleteEdge': {
        const id = pickFrom(await ids('item_dependencies'), op.pick);
        if (id) await q('DELETE FROM item_dependencies WHERE id = $1', [id]);
        return;
      }
      case 'insertRun': {
        const items = await ids('items');
        const carried = [...new Set(op.picks.map((p) => pickFrom(items, p)).filter((x) => x !== null))].map(Number);
        await insertRun(db.client, {
          project: PROJECTS[op.project],
          environment: ENVIRONMENTS[op.environment],
          status: RUN_STATUSES[op.status] as 'succeeded',
          items: carried,
        });
        return;
      }
      case 'updateRun': {
        const id = pickFrom(await ids('deployment_runs'), op.pick);
        if (id) await q('UPDATE deployment_runs SET status = $2 WHERE id = $1', [id, RUN_STATUSES[op.status]]);
        return;
      }
      case 'deleteRun': {
        const id = pickFrom(await ids('deployment_runs'), op.pick);
        if (id) await q('DELETE FROM deployment_runs WHERE id = $1', [id]);
        return;
      }
      case 'environment': {
        const [projectId, name] = [PROJECTS[op.project], ENVIRONMENTS[op.environment]];
        if (op.action === 0) await q('INSERT INTO environments (project, name) VALUES ($1, $2)', [projectId, name]);
        else if (op.action === 1) {
          await q(
            'UPDATE environments SET retired_at = CASE WHEN retired_at IS NULL THEN now() END WHERE project = $1 AND name = $2',
            [projectId, name],
          );
        } else await q('DELETE FROM environments WHERE project = $1 AND name = $2', [projectId, name]);
        return;
      }
      case 'truncateRuns':
        await q('TRUNCATE deployment_runs');
        return;
      case 'prune':
        // every tombstone, however recent: the cached graphs must notice and reload
        await sut.pruneTombstones(0);
        return;
    }
  }

  async function expectSameAsFullLoad(): Promise<void> {
    for (const options of [FRONTIER_READ, FRONTIER_LIST]) {
      const refreshed = snapshot(await sut.currentGraph(project, options));
      const full = snapshot(await sut.loadGraph(project, options));
      expect(refreshed).toEqual(full);
    }
    // the served body (incremental graph, per-item JSON reused across versions) is byte for byte a full reload's
    const served = await sut.frontierBody(project, 3, null);
    const full = await sut.loadGraph(project, FRONTIER_READ);
    const computed = computeFrontier({
      items: full.items,
      edges: full.activation,
      blockerFacts: full.facts,
      wipCap: 3,
    });
    expect(bodyBytes(served).toString('utf8')).toBe(JSON.stringify(toFrontierResultWire(computed, full.refOf)));
  }

  describe('currentGraph', () => {
    it('should read only what changed after a one-item write', async () => {
      await sut.currentGraph(project, FRONTIER_READ);
      const candidates = jest.spyOn(repository, 'findCandidates');
      const changed = jest.spyOn(repository, 'findChangesSince');
      await db.client.query(`UPDATE items SET priority = 'high' WHERE project = 'atl' AND status = 'idea'`);
      const graph = await sut.currentGraph(project, FRONTIER_READ);
      expect(candidates).not.toHaveBeenCalled();
      expect(changed).toHaveBeenCalledTimes(1);
      expect(graph.items.filter((i) => i.status === 'idea').map((i) => i.priority)).toEqual(['high']);
      candidates.mockRestore();
      changed.mockRestore();
    });

    it('should give exactly the answer of a full reload after random sequences of writes', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 12 }), async (ops) => {
          for (const op of ops) {
            await apply(op);
            await expectSameAsFullLoad();
          }
        }),
        { numRuns: 40, endOnFailure: true, seed: 20261127 },
      );
    });

    // as the follower's notice coalesces them: several writes of different kinds found by one refresh (the writes the
    // graph cache composes, with no deployment fact left to load, then any)
    it.each([
      ['the kinds composed', composableOpArb],
      ['any kind', opArb],
    ])(
      'should give exactly the answer of a full reload when each refresh finds several writes of %s',
      async (_, opArb) => {
        await db.client.query(`DELETE FROM item_dependencies WHERE satisfaction LIKE 'fact:deployed:%'`);
        await fc.assert(
          fc.asyncProperty(
            fc.array(fc.array(opArb, { minLength: 2, maxLength: 6 }), { minLength: 1, maxLength: 6 }),
            async (steps) => {
              for (const ops of steps) {
                for (const op of ops) await apply(op);
                await expectSameAsFullLoad();
              }
            },
          ),
          { numRuns: 30, endOnFailure: true, seed: 20261129 },
        );
      },
    );
  });

  describe('pruneTombstones', () => {
    const tombstones = async () =>
      Number((await db.client.query<{ n: string }>('SELECT count(*) AS n FROM change_tombstones')).rows[0].n);

    it('should keep recent tombstones', async () => {
      await sut.currentGraph(project, FRONTIER_READ);
      // two fresh items, so the edge is new whatever the property runs above left behind
      const [dependent, blocker] = await insertItems(db.client, 'atl', [{ status: 'planned' }, { status: 'planned' }]);
      const inserted = await db.client.query(
        `INSERT INTO item_dependencies (dependent_item_id, blocking_item_id, gate_point, satisfaction, source, rationale)
         VALUES ($1, $2, 'activation', 'status:done', 'operator', 'x')`,
        [dependent.id, blocker.id],
      );
      expect(inserted.rowCount).toBe(1);
      await db.client.query(`DELETE FROM item_dependencies WHERE rationale = 'x'`);
      const before = await tombstones();
      expect(before).toBeGreaterThan(0);
      expect(await sut.pruneTombstones(3600)).toBe(0);
      expect(await tombstones()).toBe(before);
      await expectSameAsFullLoad();
    });

    it('should delete tombstones older than the retention, and a graph loaded before them reloads', async () => {
      const [item] = await insertItems(db.client, 'atl', [{ status: 'planned' }]);
      expect((await sut.currentGraph(project, FRONTIER_READ)).items.some((i) => i.id === item.id)).toBe(true);
      await db.client.query('DELETE FROM items WHERE id = $1', [item.id]);
      await db.client.query(`UPDATE change_tombstones SET created_at = now() - interval '2 hours'`);
      expect(await sut.pruneTombstones(3600)).toBeGreaterThan(0);
      expect(await tombstones()).toBe(0);
      const candidates = jest.spyOn(repository, 'findCandidates');
      const graph = await sut.currentGraph(project, FRONTIER_READ);
      expect(candidates).toHaveBeenCalled();
      expect(graph.items.some((i) => i.id === item.id)).toBe(false);
      candidates.mockRestore();
      await expectSameAsFullLoad();
    });
  });
});
