import { MigrationInterface, QueryRunner } from 'typeorm';

// Issue 15: the deployment pipeline's halts. A run records where and why it halted (awaiting-approval at a stage
// needing a human approval, needs-capability with the capabilities missing) and since when; approvals are recorded
// once per run and stage; a flow may let its items reach done before the run completes (complete_before_done).
export class DeploymentHalts1763920800000 implements MigrationInterface {
  name = 'DeploymentHalts1763920800000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE deployment_flows ADD COLUMN complete_before_done boolean NOT NULL DEFAULT true;

      ALTER TABLE deployment_runs
        ADD COLUMN halt_kind text,
        ADD COLUMN halt_stage text,
        ADD COLUMN halt_missing jsonb,
        ADD COLUMN halted_at timestamptz,
        ADD CONSTRAINT ck_deployment_runs_halt_kind
          CHECK (halt_kind IS NULL OR halt_kind IN ('awaiting-approval', 'needs-capability'));

      CREATE TABLE deployment_approvals (
        id bigserial PRIMARY KEY,
        run_id text NOT NULL REFERENCES deployment_runs (id) ON DELETE CASCADE,
        stage_index integer NOT NULL,
        stage text NOT NULL,
        item_id integer REFERENCES items (id) ON DELETE SET NULL,
        approved_by integer REFERENCES actors (id) ON DELETE SET NULL,
        approved_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT uq_deployment_approvals_run_stage UNIQUE (run_id, stage_index)
      );
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP TABLE IF EXISTS deployment_approvals;
      ALTER TABLE deployment_runs
        DROP CONSTRAINT IF EXISTS ck_deployment_runs_halt_kind,
        DROP COLUMN IF EXISTS halted_at,
        DROP COLUMN IF EXISTS halt_missing,
        DROP COLUMN IF EXISTS halt_stage,
        DROP COLUMN IF EXISTS halt_kind;
      ALTER TABLE deployment_flows DROP COLUMN IF EXISTS complete_before_done;
    `);
  }
}
