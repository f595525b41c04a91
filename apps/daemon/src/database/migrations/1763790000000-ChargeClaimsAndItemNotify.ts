import { MigrationInterface, QueryRunner } from 'typeorm';

// Claims remember what they were dispatched as (adapter, and whether they hold a WIP slot), and item and
// dependency changes are announced on channel svc_items for the live stream (every replica listens).
// Statement-level triggers with transition tables: a bulk load sends one summary instead of one per row.
export class ChargeClaimsAndItemNotify1763790000000 implements MigrationInterface {
  name = 'ChargeClaimsAndItemNotify1763790000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE item_claims ADD COLUMN adapter text, ADD COLUMN wip_slot boolean NOT NULL DEFAULT false;
      CREATE INDEX ix_executor_sessions_actor ON executor_sessions (actor_id);

      CREATE FUNCTION svc_notify_items() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        total integer;
        changed jsonb;
        summary jsonb;
        r jsonb;
      BEGIN
        -- Transition tables exist per operation only, so each branch names its own.
        IF TG_OP = 'DELETE' THEN
          SELECT count(*) INTO total FROM old_rows;
          IF total > 50 THEN
            SELECT jsonb_agg(jsonb_build_object('project', project, 'count', n)) INTO summary
              FROM (SELECT project, count(*) AS n FROM old_rows GROUP BY project) s;
          ELSE
            SELECT jsonb_agg(jsonb_build_object('project', project, 'seq', project_sequence, 'status', status))
              INTO changed FROM old_rows;
          END IF;
        ELSE
          SELECT count(*) INTO total FROM new_rows;
          IF total > 50 THEN
            SELECT jsonb_agg(jsonb_build_object('project', project, 'count', n)) INTO summary
              FROM (SELECT project, count(*) AS n FROM new_rows GROUP BY project) s;
          ELSE
            SELECT jsonb_agg(jsonb_build_object('project', project, 'seq', project_sequence, 'status', status))
              INTO changed FROM new_rows;
          END IF;
        END IF;
        FOR r IN SELECT value FROM jsonb_array_elements(coalesce(summary, '[]'::jsonb)) LOOP
          PERFORM pg_notify('svc_items', json_build_object('type', 'items', 'op', TG_OP, 'project', r ->> 'project',
                                                           'count', (r ->> 'count')::int)::text);
        END LOOP;
        FOR r IN SELECT value FROM jsonb_array_elements(coalesce(changed, '[]'::jsonb)) LOOP
          PERFORM pg_notify('svc_items', json_build_object(
            'type', 'item', 'op', TG_OP, 'project', r ->> 'project', 'status', r ->> 'status',
            'item_id', (SELECT p.public_item_prefix FROM projects p WHERE p.id = r ->> 'project') || '-' || (r ->> 'seq')
          )::text);
        END LOOP;
        RETURN NULL;
      END $$;

      CREATE TRIGGER tr_items_notify_insert AFTER INSERT ON items
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION svc_notify_items();
      CREATE TRIGGER tr_items_notify_update AFTER UPDATE ON items
        REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION svc_notify_items();
      CREATE TRIGGER tr_items_notify_delete AFTER DELETE ON items
        REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION svc_notify_items();

      CREATE FUNCTION svc_notify_dependencies() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        dependents integer[];
        r record;
      BEGIN
        IF TG_OP = 'DELETE' THEN
          SELECT array_agg(DISTINCT dependent_item_id) INTO dependents FROM old_rows;
        ELSE
          SELECT array_agg(DISTINCT dependent_item_id) INTO dependents FROM new_rows;
        END IF;
        IF dependents IS NULL THEN
          RETURN NULL;
        END IF;
        FOR r IN SELECT i.project,
                        CASE WHEN cardinality(dependents) > 50 THEN NULL
                             ELSE p.public_item_prefix || '-' || i.project_sequence END AS ref,
                        count(*) AS n
                   FROM items i JOIN projects p ON p.id = i.project
                  WHERE i.id = ANY (dependents)
                  GROUP BY 1, 2 LOOP
          PERFORM pg_notify('svc_items', json_build_object('type', 'dependency', 'op', TG_OP, 'project', r.project,
                                                           'item_id', r.ref, 'count', r.n)::text);
        END LOOP;
        RETURN NULL;
      END $$;

      CREATE TRIGGER tr_item_dependencies_notify_insert AFTER INSERT ON item_dependencies
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION svc_notify_dependencies();
      CREATE TRIGGER tr_item_dependencies_notify_delete AFTER DELETE ON item_dependencies
        REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION svc_notify_dependencies();
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP TRIGGER IF EXISTS tr_item_dependencies_notify_delete ON item_dependencies;
      DROP TRIGGER IF EXISTS tr_item_dependencies_notify_insert ON item_dependencies;
      DROP FUNCTION IF EXISTS svc_notify_dependencies();
      DROP TRIGGER IF EXISTS tr_items_notify_delete ON items;
      DROP TRIGGER IF EXISTS tr_items_notify_update ON items;
      DROP TRIGGER IF EXISTS tr_items_notify_insert ON items;
      DROP FUNCTION IF EXISTS svc_notify_items();
      DROP INDEX IF EXISTS ix_executor_sessions_actor;
      ALTER TABLE item_claims DROP COLUMN IF EXISTS wip_slot, DROP COLUMN IF EXISTS adapter;
    `);
  }
}
