import { MigrationInterface, QueryRunner } from 'typeorm';

// Issue 9 (the terminal UI's daemon surfaces):
// - svc_machine_request_id(device_code_hash): the opaque, stable request_id of a machine authorization: a
//   domain-separated SHA-256 of the stored device-code digest (itself a SHA-256 of a 256-bit secret), so it reveals
//   nothing usable; indexed so the request-scoped resolve finds a request in one probe.
// - Every state change of a machine authorization is announced on channel svc_machine_authorizations in the
//   changing transaction (also for direct SQL): started (insert; a hosted code naming its machine at the first
//   poll), decided (pending -> approved/denied), consumed (approved -> consumed), expired (a delete of a row that
//   was not consumed, or an update moving expires_at into the past; the sweep's delete of a consumed row announces
//   consumed again). Other updates (credential_id) announce nothing.
// - Claims taken, taken over, re-claimed or released are announced on svc_items as {type: 'claim'} (renewals are not).
export class MachineRequestAndClaimNotices1763913600000 implements MigrationInterface {
  name = 'MachineRequestAndClaimNotices1763913600000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION svc_machine_request_id(device_code_hash bytea) RETURNS text
        LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
        AS $$ SELECT 'mr_' || encode(substring(sha256('svc:machine-request:'::bytea || device_code_hash) FROM 1 FOR 16), 'hex') $$;

      CREATE INDEX ix_machine_authorizations_request_id ON machine_authorizations (svc_machine_request_id(device_code_hash));

      CREATE FUNCTION svc_notify_machine_authorizations() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        op text;
        r machine_authorizations;
      BEGIN
        IF TG_OP = 'INSERT' THEN
          op := 'started';
          r := NEW;
        ELSIF TG_OP = 'DELETE' THEN
          op := CASE WHEN OLD.status = 'consumed' THEN 'consumed' ELSE 'expired' END;
          r := OLD;
        ELSE
          r := NEW;
          IF NEW.status IS DISTINCT FROM OLD.status THEN
            op := CASE NEW.status WHEN 'consumed' THEN 'consumed' WHEN 'pending' THEN 'started' ELSE 'decided' END;
          ELSIF NEW.expires_at <= now() AND OLD.expires_at > now() THEN
            op := 'expired';
          ELSIF NEW.machine_id IS DISTINCT FROM OLD.machine_id OR NEW.machine_name IS DISTINCT FROM OLD.machine_name
                OR NEW.organization_id IS DISTINCT FROM OLD.organization_id OR NEW.expires_at IS DISTINCT FROM OLD.expires_at
                OR NEW.claimed_by IS DISTINCT FROM OLD.claimed_by THEN
            op := CASE NEW.status WHEN 'pending' THEN 'started' WHEN 'consumed' THEN 'consumed' ELSE 'decided' END;
          ELSE
            RETURN NULL;
          END IF;
        END IF;
        PERFORM pg_notify('svc_machine_authorizations', json_build_object(
          'type', 'machine_authorization',
          'op', op,
          'request_id', svc_machine_request_id(r.device_code_hash),
          'org', (SELECT o.slug FROM organizations o WHERE o.id = r.organization_id)
        )::text);
        RETURN NULL;
      END $$;

      CREATE TRIGGER tr_machine_authorizations_notify AFTER INSERT OR UPDATE OR DELETE ON machine_authorizations
        FOR EACH ROW EXECUTE FUNCTION svc_notify_machine_authorizations();

      CREATE FUNCTION svc_notify_claims() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        r item_claims;
      BEGIN
        IF TG_OP = 'DELETE' THEN
          r := OLD;
        ELSE
          r := NEW;
          IF TG_OP = 'UPDATE' AND NEW.session_id IS NOT DISTINCT FROM OLD.session_id
             AND NEW.claimed_at IS NOT DISTINCT FROM OLD.claimed_at AND NEW.adapter IS NOT DISTINCT FROM OLD.adapter
             AND NEW.wip_slot IS NOT DISTINCT FROM OLD.wip_slot THEN
            RETURN NULL;
          END IF;
        END IF;
        PERFORM pg_notify('svc_items', json_build_object(
          'type', 'claim',
          'op', CASE TG_OP WHEN 'DELETE' THEN 'released' ELSE 'claimed' END,
          'project', r.project,
          'item_id', (SELECT p.public_item_prefix || '-' || i.project_sequence
                        FROM items i JOIN projects p ON p.id = i.project WHERE i.id = r.item_id),
          'session_id', r.session_id
        )::text);
        RETURN NULL;
      END $$;

      CREATE TRIGGER tr_item_claims_notify AFTER INSERT OR UPDATE OR DELETE ON item_claims
        FOR EACH ROW EXECUTE FUNCTION svc_notify_claims();
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP TRIGGER IF EXISTS tr_item_claims_notify ON item_claims;
      DROP FUNCTION IF EXISTS svc_notify_claims();
      DROP TRIGGER IF EXISTS tr_machine_authorizations_notify ON machine_authorizations;
      DROP FUNCTION IF EXISTS svc_notify_machine_authorizations();
      DROP INDEX IF EXISTS ix_machine_authorizations_request_id;
      DROP FUNCTION IF EXISTS svc_machine_request_id(bytea);
    `);
  }
}
