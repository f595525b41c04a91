import { MigrationInterface, QueryRunner } from 'typeorm';

// Tables the frontier graph is built from.
const TRACKED = ['items', 'item_dependencies', 'deployment_runs', 'environments', 'deployment_flows'];

// Change tracking for the frontier's incremental refresh (issue 12). Every insert or update stamps the row with the
// writing transaction's 64-bit id (change_xid); every delete leaves a tombstone with the deleting transaction's id,
// and a TRUNCATE a '*' tombstone. A reader that noted the oldest transaction still running when it last read
// (pg_snapshot_xmin) re-reads exactly the rows stamped at or after it: every transaction below it had committed or
// aborted before that read. Triggers fire for every writer (this daemon, other replicas, plain SQL); rows written
// before this migration keep change_xid NULL, which reads as "older than any reader".
export class ChangeTracking1763956800002 implements MigrationInterface {
  name = 'ChangeTracking1763956800002';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE change_tombstones (
        change_xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
        table_name text NOT NULL,
        row_id text NOT NULL
      );
      CREATE INDEX ix_change_tombstones_xid ON change_tombstones (change_xid);

      CREATE FUNCTION svc_stamp_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.change_xid := pg_current_xact_id();
        RETURN NEW;
      END $$;

      CREATE FUNCTION svc_tombstone_rows() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO change_tombstones (table_name, row_id) SELECT TG_TABLE_NAME, o.id::text FROM old_rows o;
        RETURN NULL;
      END $$;

      CREATE FUNCTION svc_tombstone_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO change_tombstones (table_name, row_id) VALUES (TG_TABLE_NAME, '*');
        RETURN NULL;
      END $$;
    `);
    for (const table of TRACKED) {
      await queryRunner.query(`
        ALTER TABLE ${table} ADD COLUMN change_xid xid8;
        CREATE INDEX ix_${table}_change_xid ON ${table} (change_xid);
        CREATE TRIGGER tr_${table}_stamp_change BEFORE INSERT OR UPDATE ON ${table}
          FOR EACH ROW EXECUTE FUNCTION svc_stamp_change();
        CREATE TRIGGER tr_${table}_tombstone AFTER DELETE ON ${table}
          REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION svc_tombstone_rows();
        CREATE TRIGGER tr_${table}_truncate AFTER TRUNCATE ON ${table}
          FOR EACH STATEMENT EXECUTE FUNCTION svc_tombstone_truncate();
      `);
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of TRACKED) {
      await queryRunner.query(`
        DROP TRIGGER IF EXISTS tr_${table}_truncate ON ${table};
        DROP TRIGGER IF EXISTS tr_${table}_tombstone ON ${table};
        DROP TRIGGER IF EXISTS tr_${table}_stamp_change ON ${table};
        DROP INDEX IF EXISTS ix_${table}_change_xid;
        ALTER TABLE ${table} DROP COLUMN IF EXISTS change_xid;
      `);
    }
    await queryRunner.query(`
      DROP FUNCTION IF EXISTS svc_tombstone_truncate();
      DROP FUNCTION IF EXISTS svc_tombstone_rows();
      DROP FUNCTION IF EXISTS svc_stamp_change();
      DROP TABLE IF EXISTS change_tombstones;
    `);
  }
}
