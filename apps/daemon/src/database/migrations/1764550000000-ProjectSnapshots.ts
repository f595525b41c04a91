import { MigrationInterface, QueryRunner } from 'typeorm';

// Issue 36 (import-replace loses nothing): before an import replaces a project, the daemon keeps the project as it
// was: the svc-backlog/v1 document `svc export` produces (document) and what that format does not carry (held: the
// claims on its items), written in the replace's own transaction. A snapshot goes with its project.
export class ProjectSnapshots1764550000000 implements MigrationInterface {
  name = 'ProjectSnapshots1764550000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE project_snapshots (
        id bigserial PRIMARY KEY,
        project text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
        taken_at timestamptz NOT NULL DEFAULT now(),
        taken_by integer REFERENCES actors (id) ON DELETE SET NULL,
        reason text NOT NULL,
        document jsonb NOT NULL,
        held jsonb NOT NULL DEFAULT '{}'::jsonb
      );
      CREATE INDEX ix_project_snapshots_project ON project_snapshots (project, id DESC);
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE IF EXISTS project_snapshots;`);
  }
}
