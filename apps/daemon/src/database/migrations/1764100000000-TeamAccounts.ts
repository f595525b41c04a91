import { MigrationInterface, QueryRunner } from 'typeorm';

// Issue 13: token expiry, company sign-in identities, one actor per email.
export class TeamAccounts1764100000000 implements MigrationInterface {
  name = 'TeamAccounts1764100000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE api_tokens ADD COLUMN expires_at timestamptz;
      ALTER TABLE actors ADD COLUMN oidc_issuer text, ADD COLUMN oidc_subject text;
      CREATE UNIQUE INDEX uq_actors_oidc_subject ON actors (oidc_issuer, oidc_subject) WHERE oidc_subject IS NOT NULL;
      CREATE UNIQUE INDEX uq_actors_email ON actors (lower(email)) WHERE email IS NOT NULL;
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP INDEX IF EXISTS uq_actors_email;
      DROP INDEX IF EXISTS uq_actors_oidc_subject;
      ALTER TABLE actors DROP COLUMN IF EXISTS oidc_subject, DROP COLUMN IF EXISTS oidc_issuer;
      ALTER TABLE api_tokens DROP COLUMN IF EXISTS expires_at;
    `);
  }
}
