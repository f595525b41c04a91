import { MigrationInterface, QueryRunner } from 'typeorm';

// Each daemon replica reports itself here (issue 28, `svc doctor`): a fingerprint of its server secret (an HMAC of a
// fixed string, never the secret), its clock's skew against PostgreSQL and when it last reported. Replicas that
// share a database must share the secret; doctor compares the fingerprints of the replicas seen lately.
export class DaemonReplicas1764420000001 implements MigrationInterface {
  name = 'DaemonReplicas1764420000001';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE daemon_replicas (
        replica_id uuid PRIMARY KEY,
        name text NOT NULL,
        version text NOT NULL,
        secret_fingerprint text NOT NULL,
        clock_skew_ms integer NOT NULL,
        started_at timestamptz NOT NULL,
        seen_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX ix_daemon_replicas_seen_at ON daemon_replicas (seen_at);
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE IF EXISTS daemon_replicas;`);
  }
}
