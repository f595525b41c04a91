import { MigrationInterface, QueryRunner } from 'typeorm';

// Issue 28: two landed migrations were edited after they landed, so a database that had run their first text never
// got the change. The changes are made here, in a form that is right on a database that ran either text and on a
// fresh one:
// - DeploymentResume1764187200000 later gained ix_deployment_runs_halted (a partial index on halted runs per
//   project, which the frontier reads on every load and deployment change). That file is back to its landed text;
//   the index is created here, IF NOT EXISTS.
// - ProgressFromRunFlow1763956800001 later named the run's columns instead of dr.*: a view over dr.* pins every
//   column deployment_runs had then (the halt columns of DeploymentHalts1763920800000), so that migration could no
//   longer be reverted. That file keeps its edited text (its landed down pins the columns too, so with it no
//   database could be reverted past it: see docs/decisions/issue-28-backup.md); a database that ran the landed text
//   gets the named columns here (CREATE OR REPLACE: same output columns, same rows).
const PROGRESS_VIEW = (runColumns: string) => `
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
          SELECT ${runColumns}
            FROM deployment_runs dr
           WHERE dr.carried_work -> 'items' @> to_jsonb(i.id)
           ORDER BY dr.started_at DESC, dr.id DESC
           LIMIT 1
    ) r ON true
    LEFT JOIN deployment_flows f ON f.id = COALESCE(r.flow_id, i.deployment_flow);`;

const NAMED_RUN_COLUMNS = `dr.id, dr.flow_id, dr.current_stage, dr.environment, dr.stage_index, dr.stage_count,
                 dr.qa_summary, dr.blocked_reason`;

export class LandedMigrationFixes1764410000000 implements MigrationInterface {
  name = 'LandedMigrationFixes1764410000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE INDEX IF NOT EXISTS ix_deployment_runs_halted ON deployment_runs (project) WHERE status = 'halted';
      ${PROGRESS_VIEW(NAMED_RUN_COLUMNS)}
    `);
  }

  // The index goes; the view stays as up left it. Its output is the landed text's, row for row, and dr.* here would
  // pin every column deployment_runs has now, so the downs of the migrations that added them would fail.
  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX IF EXISTS ix_deployment_runs_halted`);
  }
}
