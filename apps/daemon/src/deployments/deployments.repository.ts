import { Injectable } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';

import type { EnvironmentWire, FlowWire } from '@app/contracts';

import { InjectDataSource } from '../common/inject-data-source';
import { affected, isoUtc } from '../database/backlog-sql';
import { HaltKind, RecordedApproval, RunRow } from './dto/deployments.dto';
import { ApprovalRole } from './flow-stages';

export const FLOW_SELECT = `SELECT id, project, name, stages, target_tier, done_description, active, closing,
       complete_before_done, ${isoUtc('created_at')} AS created_at FROM deployment_flows`;
export const ENVIRONMENT_SELECT = `SELECT project, name, tier, flow_id, ${isoUtc('created_at')} AS created_at,
       ${isoUtc('retired_at')} AS retired_at FROM environments`;
export const RUN_SELECT = `SELECT id, project, flow_id, environment, status, current_stage, stage_index, stage_count,
       ARRAY(SELECT jsonb_array_elements_text(carried_work -> 'items')::int) AS carried_items, qa_summary,
       blocked_reason, ${isoUtc('started_at')} AS started_at, ${isoUtc('finished_at')} AS finished_at,
       halt_kind, halt_stage, halt_missing, ${isoUtc('halted_at')} AS halted_at, capabilities, required_approval
  FROM deployment_runs`;

@Injectable()
export class DeploymentsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  async insertFlow(f: Omit<FlowWire, 'created_at'>): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `INSERT INTO deployment_flows (id, project, name, stages, target_tier, done_description, active, closing,
                                     complete_before_done)
       VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7, $8, $9) ON CONFLICT (id) DO NOTHING RETURNING id`,
      [
        f.id,
        f.project,
        f.name,
        JSON.stringify(f.stages),
        f.target_tier,
        f.done_description,
        f.active,
        f.closing,
        f.complete_before_done,
      ],
    );
    return rows.length === 1;
  }

  async flow(id: string, manager = this.dataSource.manager): Promise<FlowWire | null> {
    const rows: FlowWire[] = await manager.query(`${FLOW_SELECT} WHERE id = $1`, [id]);
    return rows[0] ?? null;
  }

  flows(project: string, manager = this.dataSource.manager): Promise<FlowWire[]> {
    return manager.query(`${FLOW_SELECT} WHERE project = $1 ORDER BY id`, [project]);
  }

  async insertEnvironment(e: Omit<EnvironmentWire, 'created_at' | 'retired_at'>): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `INSERT INTO environments (project, name, tier, flow_id) VALUES ($1, $2, $3, $4)
       ON CONFLICT (project, name) DO NOTHING RETURNING id`,
      [e.project, e.name, e.tier, e.flow_id],
    );
    return rows.length === 1;
  }

  async environment(project: string, name: string): Promise<EnvironmentWire | null> {
    const rows: EnvironmentWire[] = await this.dataSource.query(
      `${ENVIRONMENT_SELECT} WHERE project = $1 AND name = $2`,
      [project, name],
    );
    return rows[0] ?? null;
  }

  environments(project: string, manager = this.dataSource.manager): Promise<EnvironmentWire[]> {
    return manager.query(`${ENVIRONMENT_SELECT} WHERE project = $1 ORDER BY name`, [project]);
  }

  // retired_at is kept when it already was; false: no such environment.
  async setEnvironmentRetired(project: string, name: string, retired: boolean): Promise<boolean> {
    const { count } = affected(
      await this.dataSource.query(
        `UPDATE environments SET retired_at = CASE WHEN $3::boolean THEN COALESCE(retired_at, now()) END
          WHERE project = $1 AND name = $2`,
        [project, name, retired],
      ),
    );
    return count > 0;
  }

  async insertRun(
    r: {
      project: string;
      flow_id: string | null;
      environment: string;
      status: string;
      current_stage: string | null;
      stage_index: number;
      stage_count: number;
      items: number[];
      qa_summary: string | null;
      blocked_reason: string | null;
    },
    manager: EntityManager,
  ): Promise<string> {
    const rows: { id: string }[] = await manager.query(
      `INSERT INTO deployment_runs (project, flow_id, environment, status, current_stage, stage_index, stage_count,
                                    carried_work, qa_summary, blocked_reason, finished_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, jsonb_build_object('items', to_jsonb($8::int[])), $9, $10,
               CASE WHEN $4 IN ('succeeded', 'failed', 'cancelled') THEN now() END)
       RETURNING id`,
      [
        r.project,
        r.flow_id,
        r.environment,
        r.status,
        r.current_stage,
        r.stage_index,
        r.stage_count,
        r.items,
        r.qa_summary,
        r.blocked_reason,
      ],
    );
    return rows[0].id;
  }

  async run(id: string, manager = this.dataSource.manager): Promise<RunRow | null> {
    const rows: RunRow[] = await manager.query(`${RUN_SELECT} WHERE id = $1`, [id]);
    return rows[0] ?? null;
  }

  runs(project: string, manager = this.dataSource.manager): Promise<RunRow[]> {
    return manager.query(`${RUN_SELECT} WHERE project = $1 ORDER BY started_at, id`, [project]);
  }

  async updateRun(id: string, values: Record<string, unknown>, manager: EntityManager): Promise<void> {
    await manager.query(
      `UPDATE deployment_runs SET
         status = COALESCE($2, status), current_stage = COALESCE($3, current_stage),
         stage_index = COALESCE($4, stage_index), stage_count = COALESCE($5, stage_count),
         qa_summary = COALESCE($6, qa_summary), blocked_reason = COALESCE($7, blocked_reason),
         finished_at = CASE WHEN COALESCE($2, status) IN ('succeeded', 'failed', 'cancelled')
                            THEN COALESCE(finished_at, now()) ELSE NULL END
       WHERE id = $1`,
      [
        id,
        values.status ?? null,
        values.current_stage ?? null,
        values.stage_index ?? null,
        values.stage_count ?? null,
        values.qa_summary ?? null,
        values.blocked_reason ?? null,
      ],
    );
  }

  // Replaces the run's earlier declaration.
  async setCapabilities(id: string, capabilities: readonly string[], manager: EntityManager): Promise<void> {
    await manager.query('UPDATE deployment_runs SET capabilities = $2::jsonb WHERE id = $1', [
      id,
      JSON.stringify([...new Set(capabilities)]),
    ]);
  }

  // Records (or clears, with null) where and why the run halted; a halt repeated at the same stage keeps its time.
  async setHalt(
    id: string,
    halt: { kind: HaltKind; stage: string; missing: string[] } | null,
    manager: EntityManager,
  ): Promise<void> {
    await manager.query(
      `UPDATE deployment_runs
          SET halted_at = CASE WHEN $2::text IS NULL THEN NULL
                               WHEN halt_kind = $2 AND halt_stage = $3 AND halt_missing = $4::jsonb THEN halted_at
                               ELSE now() END,
              halt_kind = $2, halt_stage = $3, halt_missing = $4::jsonb
        WHERE id = $1`,
      [id, halt?.kind ?? null, halt?.stage ?? null, halt ? JSON.stringify(halt.missing) : null],
    );
  }

  async lockRun(id: string, manager: EntityManager): Promise<RunRow | null> {
    const rows: RunRow[] = await manager.query(`${RUN_SELECT} WHERE id = $1 FOR UPDATE`, [id]);
    return rows[0] ?? null;
  }

  approvalsOfProject(project: string, manager = this.dataSource.manager): Promise<RecordedApproval[]> {
    return manager.query(
      `SELECT a.run_id, a.stage_index, a.stage, p.public_item_prefix || '-' || i.project_sequence AS item,
              x.name AS approved_by, a.approver_role, ${isoUtc('a.approved_at')} AS approved_at
         FROM deployment_approvals a
         JOIN deployment_runs r ON r.id = a.run_id
         LEFT JOIN items i ON i.id = a.item_id
         LEFT JOIN projects p ON p.id = i.project
         LEFT JOIN actors x ON x.id = a.approved_by
        WHERE r.project = $1
        ORDER BY a.run_id, a.stage_index`,
      [project],
    );
  }

  async approvals(
    runId: string,
    manager = this.dataSource.manager,
  ): Promise<{ stages: Set<number>; byAdmin: boolean }> {
    const rows: { stage_index: number; approver_role: string }[] = await manager.query(
      'SELECT stage_index, approver_role FROM deployment_approvals WHERE run_id = $1',
      [runId],
    );
    return { stages: new Set(rows.map((r) => r.stage_index)), byAdmin: rows.some((r) => r.approver_role === 'admin') };
  }

  // svc_deployment_approval_role: the strongest approval stage of a flow reaching each environment; null: none.
  async approvalRoles(
    project: string,
    environments: readonly string[],
    flowId: string | null,
    manager = this.dataSource.manager,
  ): Promise<Map<string, ApprovalRole>> {
    if (environments.length === 0) return new Map();
    const rows: { environment: string; role: ApprovalRole | null }[] = await manager.query(
      `SELECT e AS environment, svc_deployment_approval_role($1, e, $3) AS role FROM unnest($2::text[]) AS e`,
      [project, [...new Set(environments)], flowId],
    );
    return new Map(rows.filter((r) => r.role !== null).map((r) => [r.environment, r.role!]));
  }

  async latestFlowRun(itemId: number, manager: EntityManager, lock = false): Promise<RunRow | null> {
    const rows: RunRow[] = await manager.query(
      `${RUN_SELECT} WHERE flow_id IS NOT NULL AND carried_work -> 'items' @> jsonb_build_array($1::int)
        ORDER BY started_at DESC, id DESC LIMIT 1${lock ? ' FOR UPDATE' : ''}`,
      [itemId],
    );
    return rows[0] ?? null;
  }

  async approval(
    runId: string,
    stageIndex: number,
    manager: EntityManager,
  ): Promise<{ approved_by: string | null; approved_at: string } | null> {
    const rows: { approved_by: string | null; approved_at: string }[] = await manager.query(
      `SELECT a2.name AS approved_by, ${isoUtc('a.approved_at')} AS approved_at
         FROM deployment_approvals a LEFT JOIN actors a2 ON a2.id = a.approved_by
        WHERE a.run_id = $1 AND a.stage_index = $2`,
      [runId, stageIndex],
    );
    return rows[0] ?? null;
  }

  async insertApproval(
    a: { runId: string; stageIndex: number; stage: string; itemId: number; actorId: number; role: ApprovalRole },
    manager: EntityManager,
  ): Promise<{ approved_at: string } | null> {
    const rows: { approved_at: string }[] = await manager.query(
      `INSERT INTO deployment_approvals (run_id, stage_index, stage, item_id, approved_by, approver_role)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (run_id, stage_index) DO NOTHING RETURNING ${isoUtc('approved_at')} AS approved_at`,
      [a.runId, a.stageIndex, a.stage, a.itemId, a.actorId, a.role],
    );
    return rows[0] ?? null;
  }

  // The item's organization standing of the actor (null organization: the project belongs to none).
  async approverStanding(
    project: string,
    actorId: number,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<{
    organization: string | null;
    role: string | null;
    status: string | null;
    policy: Record<string, unknown>;
  }> {
    const rows: {
      organization: string | null;
      role: string | null;
      status: string | null;
      policy: Record<string, unknown> | null;
    }[] = await manager.query(
      `SELECT o.slug AS organization, m.role, m.status, p.policy
           FROM projects p
           LEFT JOIN organizations o ON o.id = p.organization_id
           LEFT JOIN memberships m ON m.organization_id = p.organization_id AND m.actor_id = $2
          WHERE p.id = $1`,
      [project, actorId],
    );
    const row = rows[0];
    return {
      organization: row?.organization ?? null,
      role: row?.role ?? null,
      status: row?.status ?? null,
      policy: row?.policy ?? {},
    };
  }

  async itemFlow(
    itemId: number,
    manager: EntityManager,
  ): Promise<{ flow: string | null; completeBeforeDone: boolean }> {
    const rows: { flow: string | null; complete_before_done: boolean | null }[] = await manager.query(
      `SELECT i.deployment_flow AS flow, f.complete_before_done
         FROM items i LEFT JOIN deployment_flows f ON f.id = i.deployment_flow WHERE i.id = $1`,
      [itemId],
    );
    return { flow: rows[0]?.flow ?? null, completeBeforeDone: rows[0]?.complete_before_done ?? true };
  }

  // deploy_stage is a cache of the run's position; the run stays the authority.
  async cacheDeployStage(run: RunRow, manager: EntityManager): Promise<void> {
    const stage = run.status === 'succeeded' ? 'complete' : (run.halt_kind ?? run.current_stage);
    if (stage === null) return;
    await manager.query(
      `UPDATE items SET deploy_stage = $3,
              deployed_to = CASE WHEN $4 THEN $5 ELSE deployed_to END, updated_at = now()
        WHERE id = ANY($1::int[]) AND project = $2`,
      [run.carried_items, run.project, stage, run.status === 'succeeded', run.environment],
    );
  }
}
