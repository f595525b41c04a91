import { applyDeploymentHalts, computeFrontier } from '@app/core';
import { createProject, insertItems, insertRun } from '@app/testing';

import { DependenciesRepository } from '../../src/dependencies/dependencies.repository';
import { DependencyFactsService } from '../../src/dependencies/dependency-facts.service';
import { ProjectGraph } from '../../src/frontier/read-path/frontier-graph';
import { toFrontierResultWire } from '../../src/frontier/wire/frontier.mapper';
import { FrontierRepository, ProjectRow } from '../../src/frontier/read-path/frontier.repository';
import { FrontierGraphCache } from '../../src/frontier/read-path/frontier-graph-cache';
import { FrontierService } from '../../src/frontier/read-path/frontier.service';
import { createMediumDatabase, MediumDatabase } from './setup/medium';

// The frontier's deployment halts under incremental refresh: every write below goes through plain SQL (as another
// replica or an operator's psql would write it), and the refreshed graph must answer exactly like a full load.
describe('frontier deployment halts under incremental refresh', () => {
  let db: MediumDatabase;
  let sut: FrontierService;
  let project: ProjectRow;
  let item: number;
  let run: string;

  const result = (graph: ProjectGraph) =>
    toFrontierResultWire(
      applyDeploymentHalts(
        computeFrontier({ items: graph.items, edges: graph.activation, blockerFacts: graph.facts, wipCap: 3 }),
        graph.halts,
      ),
      graph.refOf,
    );

  // The refreshed answer, after checking it equals a full load's.
  async function current() {
    const refreshed = await sut.currentGraph(project);
    const full = await sut.loadGraph(project);
    expect([...refreshed.halts.entries()]).toEqual([...full.halts.entries()]);
    const answer = result(refreshed);
    expect(answer).toEqual(result(full));
    const placed = (list: { item_id: string; blocked_reasons: string[] }[]) => list.find((i) => i.item_id === 'ATL-1');
    const blocked = placed(answer.blocked);
    return {
      bucket: blocked ? 'blocked' : placed(answer.runnable) ? 'runnable' : 'none',
      reasons: blocked?.blocked_reasons,
    };
  }

  const q = (sql: string, params: unknown[] = []) => db.client.query(sql, params);

  beforeAll(async () => {
    db = await createMediumDatabase('halts');
    const repository = new FrontierRepository(db.dataSource);
    const facts = new DependencyFactsService(new DependenciesRepository(db.dataSource));
    sut = new FrontierService(new FrontierGraphCache(repository, facts), null as never, repository, null as never);
    await createProject(db.client, { id: 'atl', prefix: 'ATL' });
    [{ id: item }] = await insertItems(db.client, 'atl', [{ status: 'release' }, { status: 'release' }]);
    await q(`INSERT INTO deployment_flows (id, project, name, stages) VALUES ('ship', 'atl', 'ship', $1::jsonb)`, [
      JSON.stringify([{ name: 'production', approval: true, capabilities: ['docker'] }]),
    ]);
    run = await insertRun(db.client, {
      project: 'atl',
      flowId: 'ship',
      environment: 'production',
      status: 'running',
      items: [item],
      currentStage: 'production',
      stageIndex: 1,
      stageCount: 1,
    });
    project = (await new FrontierRepository(db.dataSource).findProject('atl'))!;
  });

  afterAll(async () => {
    await db?.close();
  });

  it('should follow halts, approvals and newer runs written by anyone', async () => {
    expect(await current()).toMatchObject({ bucket: 'runnable' });

    await q(
      `UPDATE deployment_runs SET status = 'halted', halt_kind = 'awaiting-approval', halt_stage = 'production',
              halt_missing = '[]', halted_at = '2026-11-23 21:04:30+00' WHERE id = $1`,
      [run],
    );
    expect(await current()).toEqual({
      bucket: 'blocked',
      reasons: [
        'deployment halted (awaiting-approval): awaiting approval for production since 2026-11-23 21:04 UTC; ' +
          'approve with svc approve ATL-1',
      ],
    });

    // an approval alone (no write to the run) makes it runnable again: the usher re-runs the gate
    await q(`INSERT INTO deployment_approvals (run_id, stage_index, stage, item_id) VALUES ($1, 1, 'production', $2)`, [
      run,
      item,
    ]);
    expect(await current()).toMatchObject({ bucket: 'runnable' });
    await q('DELETE FROM deployment_approvals WHERE run_id = $1', [run]);
    expect(await current()).toMatchObject({ bucket: 'blocked' });

    await q(`UPDATE deployment_runs SET halt_kind = 'needs-capability', halt_missing = '["docker"]' WHERE id = $1`, [
      run,
    ]);
    expect((await current()).reasons).toEqual([
      expect.stringContaining('needs capability docker for production since 2026-11-23 21:04 UTC'),
    ]);

    // the newest run of a flow is the authority: a newer completed run ends the halt, deleting it brings it back
    const newer = await insertRun(db.client, {
      project: 'atl',
      flowId: 'ship',
      environment: 'production',
      status: 'succeeded',
      items: [item],
    });
    await q(`UPDATE deployment_runs SET started_at = now() + interval '1 minute' WHERE id = $1`, [newer]);
    expect(await current()).toMatchObject({ bucket: 'runnable' });
    await q('DELETE FROM deployment_runs WHERE id = $1', [newer]);
    expect(await current()).toMatchObject({ bucket: 'blocked' });

    await q('TRUNCATE deployment_approvals');
    expect(await current()).toMatchObject({ bucket: 'blocked' });
    await q(`UPDATE deployment_runs SET status = 'running', halt_kind = NULL, halt_stage = NULL, halted_at = NULL`);
    expect(await current()).toMatchObject({ bucket: 'runnable' });
  });
});
