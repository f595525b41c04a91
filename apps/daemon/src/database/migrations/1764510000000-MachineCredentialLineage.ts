import { MigrationInterface, QueryRunner } from 'typeorm';

// Issue 36, "credential lineage holds through device codes". A machine credential approved by a credential (an API
// token, or another machine's credential, through the device-code flow or the approval page's token sign-in) is that
// credential's child, as a minted API token is (CredentialLineage1764300000001): it expires no later than its parent
// and is revoked with it. Credentials approved by a person through company sign-in have no parent and no expiry.
// - machine_authorizations records the credential the decision was made with (deleted with it: a code approved by a
//   credential that no longer exists is never honoured); the issued credential takes it as its parent.
// - machine_credentials gains expires_at (the parent's expiry at issuance, NULL: none) and its parent.
// - The revocation triggers reach machine credentials too: revoking a token or a machine credential revokes the
//   machine credentials it approved, whose own triggers then revoke what they minted and approved, transitively.
export class MachineCredentialLineage1764510000000 implements MigrationInterface {
  name = 'MachineCredentialLineage1764510000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE machine_credentials
        ADD COLUMN expires_at timestamptz,
        ADD COLUMN parent_token_id integer REFERENCES api_tokens (id) ON DELETE SET NULL,
        ADD COLUMN parent_machine_credential_id integer REFERENCES machine_credentials (id) ON DELETE SET NULL,
        ADD CONSTRAINT ck_machine_credentials_one_parent
          CHECK (parent_token_id IS NULL OR parent_machine_credential_id IS NULL);
      CREATE INDEX ix_machine_credentials_parent_token ON machine_credentials (parent_token_id)
        WHERE parent_token_id IS NOT NULL;
      CREATE INDEX ix_machine_credentials_parent_machine_credential ON machine_credentials (parent_machine_credential_id)
        WHERE parent_machine_credential_id IS NOT NULL;

      ALTER TABLE machine_authorizations
        ADD COLUMN decided_with_token_id integer REFERENCES api_tokens (id) ON DELETE CASCADE,
        ADD COLUMN decided_with_machine_credential_id integer REFERENCES machine_credentials (id) ON DELETE CASCADE,
        ADD CONSTRAINT ck_machine_authorizations_one_decider_credential
          CHECK (decided_with_token_id IS NULL OR decided_with_machine_credential_id IS NULL);

      CREATE OR REPLACE FUNCTION svc_api_token_revoked() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM svc_revoke_minted_tokens(ARRAY[NEW.id], ARRAY[]::integer[]);
        UPDATE machine_credentials SET revoked_at = now() WHERE parent_token_id = NEW.id AND revoked_at IS NULL;
        RETURN NULL;
      END $$;

      CREATE OR REPLACE FUNCTION svc_machine_credential_revoked() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM svc_revoke_minted_tokens(ARRAY[]::integer[], ARRAY[NEW.id]);
        UPDATE machine_credentials SET revoked_at = now()
         WHERE parent_machine_credential_id = NEW.id AND revoked_at IS NULL;
        RETURN NULL;
      END $$;
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION svc_api_token_revoked() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM svc_revoke_minted_tokens(ARRAY[NEW.id], ARRAY[]::integer[]);
        RETURN NULL;
      END $$;
      CREATE OR REPLACE FUNCTION svc_machine_credential_revoked() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM svc_revoke_minted_tokens(ARRAY[]::integer[], ARRAY[NEW.id]);
        RETURN NULL;
      END $$;
      ALTER TABLE machine_authorizations
        DROP CONSTRAINT IF EXISTS ck_machine_authorizations_one_decider_credential,
        DROP COLUMN IF EXISTS decided_with_machine_credential_id, DROP COLUMN IF EXISTS decided_with_token_id;
      DROP INDEX IF EXISTS ix_machine_credentials_parent_machine_credential;
      DROP INDEX IF EXISTS ix_machine_credentials_parent_token;
      ALTER TABLE machine_credentials DROP CONSTRAINT IF EXISTS ck_machine_credentials_one_parent,
        DROP COLUMN IF EXISTS parent_machine_credential_id, DROP COLUMN IF EXISTS parent_token_id,
        DROP COLUMN IF EXISTS expires_at;
    `);
  }
}
