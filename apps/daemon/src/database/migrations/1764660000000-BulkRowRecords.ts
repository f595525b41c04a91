import { MigrationInterface, QueryRunner } from 'typeorm';

// Issue 41: an import writes thousands of sections and dependencies in a few statements, and the per-row record
// trigger of issue 36 then ran a PL/pgSQL call and an item lookup per row (1.6 s of a 3,000-issue beads import).
// Inserts of sections and dependencies are now recorded once per statement from its transition table, with the same
// records as before (one per row: object, name, 'created', the row as it is); updates and deletes keep the row
// trigger.
export class BulkRowRecords1764660000000 implements MigrationInterface {
  name = 'BulkRowRecords1764660000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION svc_record_item_rows_inserted() RETURNS trigger LANGUAGE plpgsql AS $fn$
      DECLARE
        w jsonb := svc_writer();
      BEGIN
        INSERT INTO change_records (actor_id, actor_name, credential_kind, credential_id, session_id, harness, path,
                                    forced, organization_id, project, item_id, item_ref, object, object_ref, action,
                                    field, before, after)
        SELECT (w ->> 'actor_id')::integer, w ->> 'actor_name', w ->> 'credential_kind',
               (w ->> 'credential_id')::integer, (w ->> 'session_id')::integer, w ->> 'harness',
               COALESCE(w ->> 'path', 'sql'), COALESCE((w ->> 'forced')::boolean, false),
               p.organization_id, i.project, n.item, p.public_item_prefix || '-' || i.project_sequence, TG_ARGV[0],
               n.name, 'created', CASE WHEN TG_ARGV[0] = 'section' THEN n.name END, NULL, n.after_row
          FROM (SELECT (a.after_row ->> TG_ARGV[1])::integer AS item,
                       CASE WHEN TG_ARGV[0] = 'dependency'
                            THEN COALESCE(svc_item_ref((a.after_row ->> 'blocking_item_id')::integer),
                                          '#' || (a.after_row ->> 'blocking_item_id'))
                                 || ' @' || (a.after_row ->> 'gate_point')
                            ELSE a.after_row ->> TG_ARGV[2] END AS name,
                       a.after_row, a.ordinal
                  FROM (SELECT svc_record_strip(to_jsonb(r)) AS after_row, row_number() OVER () AS ordinal
                          FROM new_rows r) a) n
          LEFT JOIN items i ON i.id = n.item
          LEFT JOIN projects p ON p.id = i.project
         ORDER BY n.ordinal;
        RETURN NULL;
      END
      $fn$;

      DROP TRIGGER tr_item_sections_record ON item_sections;
      CREATE TRIGGER tr_item_sections_record AFTER UPDATE OR DELETE ON item_sections
        FOR EACH ROW EXECUTE FUNCTION svc_record_item_rows('section', 'item_id', 'section_name');
      CREATE TRIGGER tr_item_sections_record_insert AFTER INSERT ON item_sections
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
        EXECUTE FUNCTION svc_record_item_rows_inserted('section', 'item_id', 'section_name');

      DROP TRIGGER tr_item_dependencies_record ON item_dependencies;
      CREATE TRIGGER tr_item_dependencies_record AFTER UPDATE OR DELETE ON item_dependencies
        FOR EACH ROW EXECUTE FUNCTION svc_record_item_rows('dependency', 'dependent_item_id', 'blocking_item_id');
      CREATE TRIGGER tr_item_dependencies_record_insert AFTER INSERT ON item_dependencies
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
        EXECUTE FUNCTION svc_record_item_rows_inserted('dependency', 'dependent_item_id', 'blocking_item_id');
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP TRIGGER tr_item_dependencies_record_insert ON item_dependencies;
      DROP TRIGGER tr_item_dependencies_record ON item_dependencies;
      CREATE TRIGGER tr_item_dependencies_record AFTER INSERT OR UPDATE OR DELETE ON item_dependencies
        FOR EACH ROW EXECUTE FUNCTION svc_record_item_rows('dependency', 'dependent_item_id', 'blocking_item_id');
      DROP TRIGGER tr_item_sections_record_insert ON item_sections;
      DROP TRIGGER tr_item_sections_record ON item_sections;
      CREATE TRIGGER tr_item_sections_record AFTER INSERT OR UPDATE OR DELETE ON item_sections
        FOR EACH ROW EXECUTE FUNCTION svc_record_item_rows('section', 'item_id', 'section_name');
      DROP FUNCTION svc_record_item_rows_inserted();
    `);
  }
}
