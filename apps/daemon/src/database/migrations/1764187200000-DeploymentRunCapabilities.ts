import { MigrationInterface, QueryRunner } from 'typeorm';

// Issue 15: the capabilities the usher step last declared for a run (what its environment/runner has). The
// needs-capability gate reads them when an update or a resume does not declare them again; NULL = never declared.
export class DeploymentRunCapabilities1764187200000 implements MigrationInterface {
  name = 'DeploymentRunCapabilities1764187200000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE deployment_runs ADD COLUMN capabilities jsonb`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE deployment_runs DROP COLUMN IF EXISTS capabilities`);
  }
}
