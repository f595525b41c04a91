import { MigrationInterface, QueryRunner } from 'typeorm';

// Issue 38: a new activation dependency held its organization's lock for three round trips (the lock, the read of the
// edges changed since the kept graph's watermark, the commit). This function reads those changes and, given a lock
// key, takes the organization's lock first, in one call. It is VOLATILE and in plpgsql, so its query takes its own
// snapshot after the lock was granted: every edge committed by the lock's previous holder is seen (a statement's own
// snapshot, taken before it waited, would miss them). The edges of the calling transaction are left out (a kept graph
// holds committed edges only; a refusal rolls the edge back, and the next check reads it once committed).
export class ActivationChangesAfterLock1764680000000 implements MigrationInterface {
  name = 'ActivationChangesAfterLock1764680000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION svc_activation_changes(since xid8, organization integer, lock_key integer)
        RETURNS TABLE (watermark text, edges json, deleted json, pruned boolean)
        LANGUAGE plpgsql VOLATILE AS $fn$
      BEGIN
        IF lock_key IS NOT NULL THEN
          PERFORM pg_advisory_xact_lock(lock_key, COALESCE(organization, 0));
        END IF;
        RETURN QUERY
        SELECT pg_snapshot_xmin(pg_current_snapshot())::text,
               COALESCE((SELECT json_agg(json_build_array(d.id, d.blocking_item_id, d.dependent_item_id,
                                                          d.gate_point = 'activation'))
                           FROM item_dependencies d JOIN items i ON i.id = d.dependent_item_id
                           JOIN projects p ON p.id = i.project
                          WHERE d.change_xid >= since AND p.organization_id IS NOT DISTINCT FROM organization
                            AND d.change_xid IS DISTINCT FROM COALESCE(pg_current_xact_id_if_assigned(), '0'::xid8)),
                        '[]'::json),
               COALESCE((SELECT json_agg(t.row_id) FROM change_tombstones t
                          WHERE t.table_name = 'item_dependencies' AND t.change_xid >= since), '[]'::json),
               EXISTS (SELECT 1 FROM change_horizon h WHERE h.pruned_through >= since);
      END
      $fn$;
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION IF EXISTS svc_activation_changes(xid8, integer, integer)`);
  }
}
