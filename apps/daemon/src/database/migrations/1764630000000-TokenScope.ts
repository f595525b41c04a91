import { MigrationInterface, QueryRunner } from 'typeorm';

// Issue 40: a credential a scraper keeps. An API token's scope is `full` (what its actor may do, as before) or
// `metrics` (GET /metrics and nothing else: every other route answers 403, the approval page does not take it).
// Existing tokens keep `full`. A replica of an older version does not know the column and would take a metrics
// token as a full one: mint metrics tokens once every replica runs this version (CHANGELOG, 0.2.0).
export class TokenScope1764630000000 implements MigrationInterface {
  name = 'TokenScope1764630000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE api_tokens ADD COLUMN scope text NOT NULL DEFAULT 'full'
        CONSTRAINT ck_api_tokens_scope CHECK (scope IN ('full', 'metrics'));
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE api_tokens DROP COLUMN IF EXISTS scope;`);
  }
}
