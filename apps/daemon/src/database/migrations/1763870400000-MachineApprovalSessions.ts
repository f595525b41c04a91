import { MigrationInterface, QueryRunner } from 'typeorm';

export class MachineApprovalSessions1763870400000 implements MigrationInterface {
  name = 'MachineApprovalSessions1763870400000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE approval_sessions (
        id bigserial PRIMARY KEY,
        session_hash bytea NOT NULL,
        actor_id integer NOT NULL REFERENCES actors (id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        CONSTRAINT uq_approval_sessions_hash UNIQUE (session_hash)
      );
      CREATE INDEX ix_approval_sessions_expires ON approval_sessions (expires_at);
      CREATE INDEX ix_machine_authorizations_decided_by ON machine_authorizations (decided_by);
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP INDEX IF EXISTS ix_machine_authorizations_decided_by;
      DROP TABLE IF EXISTS approval_sessions;
    `);
  }
}
