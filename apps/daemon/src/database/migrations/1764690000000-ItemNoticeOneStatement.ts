import { MigrationInterface, QueryRunner } from 'typeorm';

// Issue 38: an item write's notice in one statement. svc_notify_items (a statement trigger on items) ran five or six
// statements of its own for a one-row write: a count, a jsonb_agg of the rows, a loop over the summary and one over
// the rows, each notice through svc_notice (a SQL function, not inlined) with a subquery for the project's prefix.
// Under pgbench at 8 clients the trigger took about a quarter of an item update's throughput. It now counts the rows
// and inserts the notices (the same payloads, in the same order) with one INSERT ... SELECT from the transition
// table. ADR 0108.
export class ItemNoticeOneStatement1764690000000 implements MigrationInterface {
  name = 'ItemNoticeOneStatement1764690000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION svc_notify_items() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        -- Transition tables exist per operation only, so each branch names its own.
        IF TG_OP = 'DELETE' THEN
          IF (SELECT count(*) FROM old_rows) > 50 THEN
            INSERT INTO stream_notices (channel, payload)
            SELECT 'svc_items', json_build_object('type', 'items', 'op', TG_OP, 'project', o.project,
                                                  'count', count(*)::int)::text
              FROM old_rows o GROUP BY o.project;
          ELSE
            INSERT INTO stream_notices (channel, payload)
            SELECT 'svc_items', json_build_object(
                     'type', 'item', 'op', TG_OP, 'project', o.project, 'status', o.status,
                     'item_id', (SELECT p.public_item_prefix FROM projects p WHERE p.id = o.project)
                                  || '-' || o.project_sequence
                   )::text
              FROM old_rows o;
          END IF;
        ELSIF (SELECT count(*) FROM new_rows) > 50 THEN
          INSERT INTO stream_notices (channel, payload)
          SELECT 'svc_items', json_build_object('type', 'items', 'op', TG_OP, 'project', n.project,
                                                'count', count(*)::int)::text
            FROM new_rows n GROUP BY n.project;
        ELSE
          INSERT INTO stream_notices (channel, payload)
          SELECT 'svc_items', json_build_object(
                   'type', 'item', 'op', TG_OP, 'project', n.project, 'status', n.status,
                   'item_id', (SELECT p.public_item_prefix FROM projects p WHERE p.id = n.project)
                                || '-' || n.project_sequence
                 )::text
            FROM new_rows n;
        END IF;
        RETURN NULL;
      END
      $fn$;
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION svc_notify_items() RETURNS trigger LANGUAGE plpgsql AS $fn$

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
          PERFORM svc_notice('svc_items', json_build_object('type', 'items', 'op', TG_OP, 'project', r ->> 'project',
                                                           'count', (r ->> 'count')::int)::text);
        END LOOP;
        FOR r IN SELECT value FROM jsonb_array_elements(coalesce(changed, '[]'::jsonb)) LOOP
          PERFORM svc_notice('svc_items', json_build_object(
            'type', 'item', 'op', TG_OP, 'project', r ->> 'project', 'status', r ->> 'status',
            'item_id', (SELECT p.public_item_prefix FROM projects p WHERE p.id = r ->> 'project') || '-' || (r ->> 'seq')
          )::text);
        END LOOP;
        RETURN NULL;
      END 
      $fn$;
    `);
  }
}
