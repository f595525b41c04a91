import { MigrationInterface, QueryRunner } from 'typeorm';

// Issue 24, revocation is immediate everywhere.
// - Projects with no organization were visible to every organization. Each one now belongs to the server's
//   organization (the first-boot `default` one, else the oldest); the application creates none without one. The
//   column stays nullable: organizations are deleted with ON DELETE SET NULL, and test fixtures insert projects by
//   SQL; a NULL-organization project is visible to server admins only.
// - An approval-page session signed in with an API token records it, so the session ends with the token (revoked,
//   expired or deleted). Company sign-in sessions have none.
export class RevocationReachesEverything1764310000001 implements MigrationInterface {
  name = 'RevocationReachesEverything1764310000001';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      UPDATE projects
         SET organization_id = (SELECT id FROM organizations ORDER BY (slug = 'default') DESC, created_at, id LIMIT 1)
       WHERE organization_id IS NULL;
      ALTER TABLE approval_sessions
        ADD COLUMN api_token_id integer REFERENCES api_tokens (id) ON DELETE CASCADE;
      CREATE INDEX ix_approval_sessions_api_token ON approval_sessions (api_token_id) WHERE api_token_id IS NOT NULL;
    `);
  }

  // The assignment is not undone: which projects had no organization is not recorded, and visibility only narrows.
  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP INDEX IF EXISTS ix_approval_sessions_api_token;
      ALTER TABLE approval_sessions DROP COLUMN IF EXISTS api_token_id;
    `);
  }
}
