import { MigrationInterface, QueryRunner } from 'typeorm';

// Issue 24: company sign-in keeps its state server-side and single-use. Each started sign-in is a row: the digests
// of its state and of the browser's binding cookie, the PKCE verifier, the nonce and the code to return to. The
// callback consumes the row in one UPDATE (consumed_at IS NULL AND expires_at > now()), so a replayed callback finds
// nothing even when the provider would redeem the same authorization code twice. Expired rows are swept with the
// machine-authorization sweep.
export class OidcSignInStates1764340000001 implements MigrationInterface {
  name = 'OidcSignInStates1764340000001';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE oidc_sign_in_states (
        state_digest bytea PRIMARY KEY,
        binding_digest bytea NOT NULL,
        pkce_verifier text NOT NULL,
        nonce text NOT NULL,
        return_code text,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        consumed_at timestamptz
      );
      CREATE INDEX ix_oidc_sign_in_states_expires ON oidc_sign_in_states (expires_at);
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE IF EXISTS oidc_sign_in_states;');
  }
}
