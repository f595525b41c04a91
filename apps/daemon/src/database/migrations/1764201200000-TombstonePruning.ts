import { MigrationInterface, QueryRunner } from 'typeorm';

// Tombstones (ChangeTracking) are pruned once no loaded graph can still need them (issue 12). Each tombstone notes
// when it was written; a sweep deletes those older than a retention and raises change_horizon.pruned_through to the
// largest transaction id it deleted, in the same statement. A refresh whose watermark is at or below that horizon may
// have lost a deletion, so it reloads the project instead of applying a delta: exact, never stale.
export class TombstonePruning1764201200000 implements MigrationInterface {
  name = 'TombstonePruning1764201200000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE change_tombstones ADD COLUMN created_at timestamptz NOT NULL DEFAULT clock_timestamp();
      CREATE TABLE change_horizon (
        id smallint PRIMARY KEY CHECK (id = 1),
        pruned_through xid8 NOT NULL
      );
      INSERT INTO change_horizon (id, pruned_through) VALUES (1, '0');
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP TABLE IF EXISTS change_horizon;
      ALTER TABLE change_tombstones DROP COLUMN IF EXISTS created_at;
    `);
  }
}
