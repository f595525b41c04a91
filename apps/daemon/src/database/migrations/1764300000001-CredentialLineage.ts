import { MigrationInterface, QueryRunner } from 'typeorm';

// Issue 24: an API token records the credential that minted it (an API token or a machine credential), and dies
// with it. The cascade is a trigger so that every path that revokes a credential (POST /v1/tokens/:id/revoke,
// POST /v1/machines/revoke, `svc logout`, a machine's re-approval rotating its credential, and any later one)
// revokes the minted tokens in the same transaction, transitively, in one recursive statement. A token minted from
// a machine credential also keeps the organization that credential is confined to (organization_id).
export class CredentialLineage1764300000001 implements MigrationInterface {
  name = 'CredentialLineage1764300000001';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE api_tokens
        ADD COLUMN parent_token_id integer REFERENCES api_tokens (id) ON DELETE SET NULL,
        ADD COLUMN parent_machine_credential_id integer REFERENCES machine_credentials (id) ON DELETE SET NULL,
        -- The organization a token minted (directly or not) by a machine credential is confined to, like that
        -- credential: inherited at creation from the machine credential or the parent token. NULL: not confined.
        ADD COLUMN organization_id integer REFERENCES organizations (id) ON DELETE CASCADE,
        ADD CONSTRAINT ck_api_tokens_one_parent
          CHECK (parent_token_id IS NULL OR parent_machine_credential_id IS NULL);
      CREATE INDEX ix_api_tokens_parent_token ON api_tokens (parent_token_id) WHERE parent_token_id IS NOT NULL;
      CREATE INDEX ix_api_tokens_parent_machine_credential ON api_tokens (parent_machine_credential_id)
        WHERE parent_machine_credential_id IS NOT NULL;

      -- Revokes every live token minted, directly or through other tokens, from the roots: the tokens whose parent
      -- is one of root_tokens or one of root_machine_credentials. Already revoked tokens are walked through (a
      -- revoked child's own children still die), never revoked twice.
      CREATE FUNCTION svc_revoke_minted_tokens(root_tokens integer[], root_machine_credentials integer[])
      RETURNS void LANGUAGE sql AS $$
        WITH RECURSIVE minted (id) AS (
          SELECT t.id FROM api_tokens t
           WHERE t.parent_token_id = ANY (root_tokens) OR t.parent_machine_credential_id = ANY (root_machine_credentials)
          UNION
          SELECT t.id FROM api_tokens t JOIN minted ON t.parent_token_id = minted.id
        )
        UPDATE api_tokens SET revoked_at = now()
         WHERE id IN (SELECT id FROM minted) AND revoked_at IS NULL;
      $$;

      CREATE FUNCTION svc_api_token_revoked() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM svc_revoke_minted_tokens(ARRAY[NEW.id], ARRAY[]::integer[]);
        RETURN NULL;
      END $$;

      CREATE FUNCTION svc_machine_credential_revoked() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM svc_revoke_minted_tokens(ARRAY[]::integer[], ARRAY[NEW.id]);
        RETURN NULL;
      END $$;

      -- The tokens the cascade revokes fire the token trigger too; their walk finds their minted tokens already
      -- revoked and stops there.
      CREATE TRIGGER tr_api_tokens_revoke_minted
        AFTER UPDATE OF revoked_at ON api_tokens FOR EACH ROW
        WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL)
        EXECUTE FUNCTION svc_api_token_revoked();
      CREATE TRIGGER tr_machine_credentials_revoke_minted
        AFTER UPDATE OF revoked_at ON machine_credentials FOR EACH ROW
        WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL)
        EXECUTE FUNCTION svc_machine_credential_revoked();
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP TRIGGER IF EXISTS tr_machine_credentials_revoke_minted ON machine_credentials;
      DROP TRIGGER IF EXISTS tr_api_tokens_revoke_minted ON api_tokens;
      DROP FUNCTION IF EXISTS svc_machine_credential_revoked();
      DROP FUNCTION IF EXISTS svc_api_token_revoked();
      DROP FUNCTION IF EXISTS svc_revoke_minted_tokens(integer[], integer[]);
      DROP INDEX IF EXISTS ix_api_tokens_parent_machine_credential;
      DROP INDEX IF EXISTS ix_api_tokens_parent_token;
      ALTER TABLE api_tokens DROP CONSTRAINT IF EXISTS ck_api_tokens_one_parent,
        DROP COLUMN IF EXISTS organization_id, DROP COLUMN IF EXISTS parent_machine_credential_id, DROP COLUMN IF EXISTS parent_token_id;
    `);
  }
}
