import fc from 'fast-check';

import { applyFrontierDelta, FrontierDeltaWire, FrontierResultWire } from '@app/contracts';
import { createProject, insertEdges, insertEnvironment, insertItems, insertRun } from '@app/testing';

import { DependenciesRepository } from '../../src/dependencies/dependencies.repository';
import { DependencyFactsService } from '../../src/dependencies/dependency-facts.service';
import { FrontierHistory } from '../../src/frontier/wire/frontier-delta';
import { FrontierGraphCache } from '../../src/frontier/read-path/frontier-graph-cache';
import { bodyBytes } from '../../src/frontier/wire/frontier-serializer';
import { FrontierRepository, ProjectRow } from '../../src/frontier/read-path/frontier.repository';
import { FrontierService } from '../../src/frontier/read-path/frontier.service';
import { createMediumDatabase, MediumDatabase } from './setup/medium';

// Issue 27: a delta applied to its base is byte for byte the full answer, over random writes (items, edges, runs,
// environments, all as direct SQL) and across two replicas (two services with their own caches and histories on
// one database), the client asking either replica with the ETag it holds.

const WIP_CAP = 2;
const STATUSES = ['idea', 'planned', 'implementing', 'reviewing-implementation', 'release', 'done', 'cancelled'];
const SATISFACTIONS = ['status:done', 'status:implemented', 'fact:merged', 'fact:deployed:production'];
const GATES = ['activation', 'activation', 'integration'];
const RUN_STATUSES = ['pending', 'running', 'succeeded', 'failed'];
const UPDATES = [
  'status = $2',
  "priority = CASE priority WHEN 'high' THEN 'low' WHEN 'low' THEN 'medium' ELSE 'high' END",
  'frozen = 1 - frozen',
  "blocked = 1 - blocked, blocked_reason = 'held'",
  'merged_at = CASE WHEN merged_at IS NULL THEN now() END',
  "title = title || '\u00e9\"'",
  "created_at = created_at - interval '1 day'",
];

type Op =
  | { kind: 'insertItems'; count: number; status: number }
  | { kind: 'updateItem'; pick: number; status: number; update: number }
  | { kind: 'deleteItem'; pick: number }
  | { kind: 'insertEdge'; dependent: number; blocker: number; gate: number; satisfaction: number }
  | { kind: 'deleteEdge'; pick: number }
  | { kind: 'insertRun'; status: number; pick: number }
  | { kind: 'updateRun'; pick: number; status: number }
  | { kind: 'environment'; retire: boolean }
  | { kind: 'nothing' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('insertItems' as const), count: fc.integer({ min: 1, max: 4 }), status: fc.nat(4) }),
  fc.record({
    kind: fc.constant('updateItem' as const),
    pick: fc.nat(),
    status: fc.nat(STATUSES.length - 1),
    update: fc.nat(UPDATES.length - 1),
  }),
  fc.record({
    kind: fc.constant('updateItem' as const),
    pick: fc.nat(),
    status: fc.nat(STATUSES.length - 1),
    update: fc.constant(1),
  }),
  fc.record({ kind: fc.constant('deleteItem' as const), pick: fc.nat() }),
  fc.record({
    kind: fc.constant('insertEdge' as const),
    dependent: fc.nat(),
    blocker: fc.nat(),
    gate: fc.nat(GATES.length - 1),
    satisfaction: fc.nat(SATISFACTIONS.length - 1),
  }),
  fc.record({ kind: fc.constant('deleteEdge' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('insertRun' as const), status: fc.nat(RUN_STATUSES.length - 1), pick: fc.nat() }),
  fc.record({ kind: fc.constant('updateRun' as const), pick: fc.nat(), status: fc.nat(RUN_STATUSES.length - 1) }),
  fc.record({ kind: fc.constant('environment' as const), retire: fc.boolean() }),
  fc.constant({ kind: 'nothing' as const }),
);

describe('frontier deltas', () => {
  let db: MediumDatabase;
  let replicas: FrontierService[];
  let project: ProjectRow;

  beforeAll(async () => {
    db = await createMediumDatabase('delta');
    const events = { recordBestEffort: () => Promise.resolve() };
    replicas = [0, 1].map(() => {
      const repository = new FrontierRepository(db.dataSource);
      const facts = new DependencyFactsService(new DependenciesRepository(db.dataSource));
      return new FrontierService(new FrontierGraphCache(repository, facts), null as never, repository, events as never);
    });
    const { client } = db;
    await createProject(client, { id: 'atl', prefix: 'ATL' });
    await insertEnvironment(client, { project: 'atl', name: 'production' });
    const items = await insertItems(
      client,
      'atl',
      STATUSES.slice(0, 5).flatMap((status) => [{ status }, { status, priority: 'high' as const }]),
    );
    await insertEdges(client, [
      { blocker: items[4].id, dependent: items[0].id },
      { blocker: items[8].id, dependent: items[2].id, satisfaction: 'fact:deployed:production' },
    ]);
    project = (await new FrontierRepository(db.dataSource).findProject('atl'))!;
  });

  afterAll(async () => {
    await db?.close();
  });

  const ids = async (table: string) =>
    (await db.client.query<{ id: string }>(`SELECT id FROM ${table} ORDER BY id`)).rows.map((r) => r.id);
  const pickFrom = (list: string[], n: number) => (list.length === 0 ? null : list[n % list.length]);

  async function apply(op: Op): Promise<void> {
    const q = (sql: string, params: unknown[] = []) => db.client.query(sql, params).catch(() => undefined);
    switch (op.kind) {
      case 'insertItems':
        await insertItems(
          db.client,
          'atl',
          Array.from({ length: op.count }, () => ({ status: STATUSES[op.status] })),
        );
        return;
      case 'updateItem': {
        const id = pickFrom(await ids('items'), op.pick);
        if (id) {
          await q(`UPDATE items SET ${UPDATES[op.update]}, updated_at = now() WHERE id = $1 AND $2::text IS NOT NULL`, [
            id,
            STATUSES[op.status],
          ]);
        }
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
      case 'deleteEdge': {
        const id = pickFrom(await ids('item_dependencies'), op.pick);
        if (id) await q('DELETE FROM item_dependencies WHERE id = $1', [id]);
        return;
      }
      case 'insertRun': {
        const item = pickFrom(await ids('items'), op.pick);
        if (item) {
          await insertRun(db.client, {
            project: 'atl',
            environment: 'production',
            status: RUN_STATUSES[op.status] as 'succeeded',
            items: [Number(item)],
          });
        }
        return;
      }
      case 'updateRun': {
        const id = pickFrom(await ids('deployment_runs'), op.pick);
        if (id) await q('UPDATE deployment_runs SET status = $2 WHERE id = $1', [id, RUN_STATUSES[op.status]]);
        return;
      }
      case 'environment':
        await q(
          `UPDATE environments SET retired_at = ${op.retire ? 'now()' : 'NULL'} WHERE project = 'atl' AND name = 'production'`,
        );
        return;
      case 'nothing':
        return;
    }
  }

  const key = FrontierHistory.key('atl', WIP_CAP);

  it('should give, applied to its base, exactly the full answer, from either replica', async () => {
    let deltas = 0;
    let nonEmpty = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(opArb, fc.nat(1), fc.boolean()), { minLength: 1, maxLength: 10 }),
        async (steps) => {
          // the client starts from a full answer of replica 0
          const first = await replicas[0].frontierBody(project, WIP_CAP, null);
          let answer = JSON.parse(bodyBytes(first).toString('utf8')) as FrontierResultWire;
          let etag = first.etag;
          for (const [op, asked, bothServe] of steps) {
            await apply(op);
            // the other replica serves the same state too (another client of it), or not: then it may not know the
            // base the client holds, and answers in full
            if (bothServe) await replicas[1 - asked].frontierBody(project, WIP_CAP, null);
            const replica = replicas[asked];
            const served = await replica.frontierBody(project, WIP_CAP, null);
            const full = bodyBytes(served).toString('utf8');
            if (served.etag === etag) {
              expect(JSON.stringify(answer)).toBe(full);
              continue;
            }
            const outcome = replica.history.delta(key, etag, served.etag, served.length);
            if ('delta' in outcome) {
              const delta = JSON.parse(outcome.delta.toString('utf8')) as FrontierDeltaWire;
              expect(delta.base).toBe(etag);
              expect(delta.etag).toBe(served.etag);
              answer = applyFrontierDelta(answer, delta);
              deltas++;
              if (outcome.delta.length < full.length) nonEmpty++;
            } else {
              answer = JSON.parse(full) as FrontierResultWire;
            }
            etag = served.etag;
            expect(JSON.stringify(answer)).toBe(full);
          }
        },
      ),
      { numRuns: 25, endOnFailure: true, seed: 20261127 },
    );
    expect(deltas).toBeGreaterThan(10);
    expect(nonEmpty).toBeGreaterThan(0);
  });

  it('should answer in full for a base it does not know, or one older than its history', async () => {
    const replica = replicas[0];
    const old = await replica.frontierBody(project, WIP_CAP, null);
    const unknown = replica.history.fullAnswers.unknown_base;
    expect(replica.history.delta(key, '"nope"', old.etag, old.length)).toEqual({ full: 'unknown_base' });
    // more answers than the history keeps
    for (let k = 0; k <= 16; k++) {
      await insertItems(db.client, 'atl', [{ status: 'planned' }]);
      await replica.frontierBody(project, WIP_CAP, null);
    }
    const now = await replica.frontierBody(project, WIP_CAP, null);
    expect(replica.history.delta(key, old.etag, now.etag, now.length)).toEqual({ full: 'unknown_base' });
    expect(replica.history.fullAnswers.unknown_base).toBe(unknown + 2);
  });
});
