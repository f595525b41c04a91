import { MigrationInterface, QueryRunner } from 'typeorm';

// Issue 15, the explicit resume and the frontier's halts:
// - deployment_runs.capabilities: what the usher step last declared its environment/runner has; the
//   needs-capability gate reads it when an update or a resume does not declare it again (NULL = never declared);
// - deployment_approvals joins the frontier's change tracking (see ChangeTracking1763956800002): an approval makes
//   a halted item runnable again, so a write to it by any writer (this daemon, another replica, plain SQL) must
//   reach the frontier's incremental refresh like a write to a run.
export class DeploymentResume1764187200000 implements MigrationInterface {
  name = 'DeploymentResume1764187200000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE deployment_runs ADD COLUMN capabilities jsonb;

      ALTER TABLE deployment_approvals ADD COLUMN change_xid xid8;
      CREATE INDEX ix_deployment_approvals_change_xid ON deployment_approvals (change_xid);
      CREATE TRIGGER tr_deployment_approvals_stamp_change BEFORE INSERT OR UPDATE ON deployment_approvals
        FOR EACH ROW EXECUTE FUNCTION svc_stamp_change();
      CREATE TRIGGER tr_deployment_approvals_tombstone AFTER DELETE ON deployment_approvals
        REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION svc_tombstone_rows();
      CREATE TRIGGER tr_deployment_approvals_truncate AFTER TRUNCATE ON deployment_approvals
        FOR EACH STATEMENT EXECUTE FUNCTION svc_tombstone_truncate();
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP TRIGGER IF EXISTS tr_deployment_approvals_truncate ON deployment_approvals;
      DROP TRIGGER IF EXISTS tr_deployment_approvals_tombstone ON deployment_approvals;
      DROP TRIGGER IF EXISTS tr_deployment_approvals_stamp_change ON deployment_approvals;
      DROP INDEX IF EXISTS ix_deployment_approvals_change_xid;
      ALTER TABLE deployment_approvals DROP COLUMN IF EXISTS change_xid;
      ALTER TABLE deployment_runs DROP COLUMN IF EXISTS capabilities;
    `);
  }
}
