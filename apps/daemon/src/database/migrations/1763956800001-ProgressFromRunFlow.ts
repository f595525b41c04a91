import { MigrationInterface, QueryRunner } from 'typeorm';

const VIEW_HEAD = `
  CREATE OR REPLACE VIEW item_progress_view AS
  SELECT i.id AS item_id,
         i.status,
         f.name AS flow_name,
         r.id AS run_id,
         r.current_stage,
         COALESCE(r.environment, f.target_tier) AS target_environment,
         CASE WHEN r.id IS NULL THEN NULL ELSE r.stage_index || '/' || r.stage_count END AS stage_progress,
         f.done_description,
         r.qa_summary,
         r.blocked_reason
    FROM items i
    LEFT JOIN LATERAL (
          SELECT dr.id, dr.flow_id, dr.current_stage, dr.environment, dr.stage_index, dr.stage_count,
                 dr.qa_summary, dr.blocked_reason
            FROM deployment_runs dr
           WHERE dr.carried_work -> 'items' @> to_jsonb(i.id)
           ORDER BY dr.started_at DESC, dr.id DESC
           LIMIT 1
    ) r ON true`;

// The run's columns are named, not dr.*: a view over dr.* would pin every column of deployment_runs, and later
// migrations could no longer drop one.
// items progress: with a run, flow_name, done_description and the target tier come from the run's flow (the run is
// the authority); the item's deployment_flow only answers when there is no run, or the run names no flow.
export class ProgressFromRunFlow1763956800001 implements MigrationInterface {
  name = 'ProgressFromRunFlow1763956800001';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`${VIEW_HEAD}
    LEFT JOIN deployment_flows f ON f.id = COALESCE(r.flow_id, i.deployment_flow);`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    // the original join order changes the view's column origins only, not its columns
    await queryRunner.query(`${VIEW_HEAD}
    LEFT JOIN deployment_flows f ON f.id = i.deployment_flow;`);
  }
}
