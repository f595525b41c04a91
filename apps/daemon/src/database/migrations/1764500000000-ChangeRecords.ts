import { MigrationInterface, QueryRunner } from 'typeorm';

// Issue 36: a record of every write: who (actor, credential, executor session and harness), what (object, field,
// before → after), when and through which path (cli, tui, mcp, http, import, sweep; sql when nobody said), written
// by triggers in the transaction of the write itself, so no write path can change a row without leaving one.
// The writer is a transaction-local setting (`svc.writer`, JSON) the daemon sets when it opens a transaction for a
// request (history/writer-context.ts). A row per changed field for items; a row per row for the other tables.
// Plain ids and sequences only: no lock any other writer waits on (issue 38).
export class ChangeRecords1764500000000 implements MigrationInterface {
  name = 'ChangeRecords1764500000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE change_records (
        id bigserial PRIMARY KEY,
        at timestamptz NOT NULL DEFAULT now(),
        actor_id integer,
        actor_name text,
        credential_kind text,
        credential_id integer,
        session_id integer,
        harness text,
        path text NOT NULL,
        forced boolean NOT NULL DEFAULT false,
        organization_id integer,
        project text,
        item_id integer,
        item_ref text,
        object text NOT NULL,
        object_ref text,
        action text NOT NULL,
        field text,
        before jsonb,
        after jsonb
      );
      CREATE INDEX ix_change_records_item ON change_records (item_id, id DESC) WHERE item_id IS NOT NULL;
      CREATE INDEX ix_change_records_project ON change_records (project, id DESC);
      CREATE INDEX ix_change_records_at ON change_records (at);

      CREATE FUNCTION svc_writer() RETURNS jsonb LANGUAGE sql STABLE AS $$
        SELECT COALESCE(NULLIF(current_setting('svc.writer', true), '')::jsonb, '{"path":"sql"}'::jsonb)
      $$;

      -- Keys never copied into a record: secrets and bookkeeping that changes on every touch.
      CREATE FUNCTION svc_record_strip(row_json jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
        SELECT COALESCE(jsonb_object_agg(key, value), '{}'::jsonb)
          FROM jsonb_each(row_json)
         WHERE key NOT LIKE '%hash%' AND key NOT LIKE '%secret%' AND key NOT LIKE '%password%'
           AND key NOT IN ('change_xid', 'updated_at', 'last_used_at', 'last_seen_at', 'renewed_at',
                           'last_heartbeat', 'spec_updated_at', 'spec_updated_by', 'created_at', 'next_sequence')
      $$;

      CREATE FUNCTION svc_item_ref(p_item integer) RETURNS text LANGUAGE sql STABLE AS $$
        SELECT p.public_item_prefix || '-' || i.project_sequence FROM items i JOIN projects p ON p.id = i.project
         WHERE i.id = p_item
      $$;

      CREATE FUNCTION svc_record_insert(w jsonb, p_org integer, p_project text, p_item integer, p_ref text,
                                        p_object text, p_object_ref text, p_action text, p_field text,
                                        p_before jsonb, p_after jsonb) RETURNS void LANGUAGE sql AS $$
        INSERT INTO change_records (actor_id, actor_name, credential_kind, credential_id, session_id, harness, path,
                                    forced, organization_id, project, item_id, item_ref, object, object_ref, action,
                                    field, before, after)
        VALUES ((w ->> 'actor_id')::integer, w ->> 'actor_name', w ->> 'credential_kind',
                (w ->> 'credential_id')::integer, (w ->> 'session_id')::integer, w ->> 'harness',
                COALESCE(w ->> 'path', 'sql'), COALESCE((w ->> 'forced')::boolean, false), p_org, p_project, p_item,
                p_ref, p_object, p_object_ref, p_action, p_field, p_before, p_after)
      $$;

      CREATE FUNCTION svc_record_items() RETURNS trigger LANGUAGE plpgsql AS $fn$
      DECLARE w jsonb := svc_writer();
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO change_records (actor_id, actor_name, credential_kind, credential_id, session_id, harness, path,
                                      forced, organization_id, project, item_id, item_ref, object, object_ref, action,
                                      after)
          SELECT (w ->> 'actor_id')::integer, w ->> 'actor_name', w ->> 'credential_kind',
                 (w ->> 'credential_id')::integer, (w ->> 'session_id')::integer, w ->> 'harness',
                 COALESCE(w ->> 'path', 'sql'), COALESCE((w ->> 'forced')::boolean, false), p.organization_id,
                 n.project, n.id, p.public_item_prefix || '-' || n.project_sequence, 'item',
                 p.public_item_prefix || '-' || n.project_sequence, 'created',
                 jsonb_build_object('title', n.title, 'status', n.status, 'priority', n.priority)
            FROM new_rows n JOIN projects p ON p.id = n.project;
        ELSIF TG_OP = 'UPDATE' THEN
          INSERT INTO change_records (actor_id, actor_name, credential_kind, credential_id, session_id, harness, path,
                                      forced, organization_id, project, item_id, item_ref, object, object_ref, action,
                                      field, before, after)
          SELECT (w ->> 'actor_id')::integer, w ->> 'actor_name', w ->> 'credential_kind',
                 (w ->> 'credential_id')::integer, (w ->> 'session_id')::integer, w ->> 'harness',
                 COALESCE(w ->> 'path', 'sql'), COALESCE((w ->> 'forced')::boolean, false), p.organization_id,
                 d.project, d.id, p.public_item_prefix || '-' || d.project_sequence, 'item',
                 p.public_item_prefix || '-' || d.project_sequence, 'changed', d.key, d.before, d.after
            FROM (SELECT n.id, n.project, n.project_sequence, e.key, oj -> e.key AS before, e.value AS after
                    FROM new_rows n JOIN old_rows o ON o.id = n.id,
                         LATERAL (SELECT svc_record_strip(to_jsonb(o)) AS oj, svc_record_strip(to_jsonb(n)) AS nj) j,
                         LATERAL jsonb_each(j.nj) e
                   WHERE e.value IS DISTINCT FROM j.oj -> e.key) d
            JOIN projects p ON p.id = d.project;
        ELSE
          INSERT INTO change_records (actor_id, actor_name, credential_kind, credential_id, session_id, harness, path,
                                      forced, organization_id, project, item_id, item_ref, object, object_ref, action,
                                      before)
          SELECT (w ->> 'actor_id')::integer, w ->> 'actor_name', w ->> 'credential_kind',
                 (w ->> 'credential_id')::integer, (w ->> 'session_id')::integer, w ->> 'harness',
                 COALESCE(w ->> 'path', 'sql'), COALESCE((w ->> 'forced')::boolean, false), p.organization_id,
                 o.project, o.id, COALESCE(p.public_item_prefix, o.project) || '-' || o.project_sequence, 'item',
                 COALESCE(p.public_item_prefix, o.project) || '-' || o.project_sequence, 'deleted',
                 jsonb_build_object('title', o.title, 'status', o.status, 'priority', o.priority)
            FROM old_rows o LEFT JOIN projects p ON p.id = o.project;
        END IF;
        RETURN NULL;
      END
      $fn$;
      CREATE TRIGGER tr_items_record_insert AFTER INSERT ON items
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION svc_record_items();
      CREATE TRIGGER tr_items_record_update AFTER UPDATE ON items
        REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION svc_record_items();
      CREATE TRIGGER tr_items_record_delete AFTER DELETE ON items
        REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION svc_record_items();

      -- Rows that belong to an item (sections, dependencies, claims): one record per row, on the item's history.
      -- TG_ARGV[0]: the object name; TG_ARGV[1]: the item column; TG_ARGV[2]: the column naming the row.
      CREATE FUNCTION svc_record_item_rows() RETURNS trigger LANGUAGE plpgsql AS $fn$
      DECLARE
        w jsonb := svc_writer();
        r record;
        before_row jsonb;
        after_row jsonb;
        item integer;
        name text;
        action text;
        changed jsonb;
      BEGIN
        IF TG_OP = 'DELETE' THEN before_row := svc_record_strip(to_jsonb(OLD));
        ELSIF TG_OP = 'INSERT' THEN after_row := svc_record_strip(to_jsonb(NEW));
        ELSE
          before_row := svc_record_strip(to_jsonb(OLD));
          after_row := svc_record_strip(to_jsonb(NEW));
          -- a claim's lease renewal (expires_at moves) is not a change of who holds it
          IF TG_ARGV[0] = 'claim' THEN
            IF OLD.session_id IS NOT DISTINCT FROM NEW.session_id AND OLD.claimed_at = NEW.claimed_at THEN
              RETURN NULL;
            END IF;
          ELSIF before_row = after_row THEN
            RETURN NULL;
          END IF;
        END IF;
        item := (COALESCE(after_row, before_row) ->> TG_ARGV[1])::integer;
        name := COALESCE(after_row, before_row) ->> TG_ARGV[2];
        action := CASE TG_OP WHEN 'INSERT' THEN 'created' WHEN 'DELETE' THEN 'deleted' ELSE 'changed' END;
        IF TG_ARGV[0] = 'claim' THEN
          action := CASE TG_OP WHEN 'INSERT' THEN 'claimed' WHEN 'DELETE' THEN 'released' ELSE 'claimed' END;
        END IF;
        SELECT i.project AS project, p.organization_id AS org, p.public_item_prefix || '-' || i.project_sequence AS ref
          INTO r FROM items i JOIN projects p ON p.id = i.project WHERE i.id = item;
        IF TG_ARGV[0] = 'dependency' THEN
          name := COALESCE(svc_item_ref((COALESCE(after_row, before_row) ->> 'blocking_item_id')::integer),
                           '#' || (COALESCE(after_row, before_row) ->> 'blocking_item_id'))
                  || ' @' || (COALESCE(after_row, before_row) ->> 'gate_point');
        END IF;
        PERFORM svc_record_insert(w, r.org, r.project, item, r.ref, TG_ARGV[0], name, action,
                                  CASE WHEN TG_ARGV[0] = 'section' THEN name ELSE NULL END, before_row, after_row);
        RETURN NULL;
      END
      $fn$;
      CREATE TRIGGER tr_item_sections_record AFTER INSERT OR UPDATE OR DELETE ON item_sections
        FOR EACH ROW EXECUTE FUNCTION svc_record_item_rows('section', 'item_id', 'section_name');
      CREATE TRIGGER tr_item_dependencies_record AFTER INSERT OR UPDATE OR DELETE ON item_dependencies
        FOR EACH ROW EXECUTE FUNCTION svc_record_item_rows('dependency', 'dependent_item_id', 'blocking_item_id');
      CREATE TRIGGER tr_item_claims_record AFTER INSERT OR UPDATE OR DELETE ON item_claims
        FOR EACH ROW EXECUTE FUNCTION svc_record_item_rows('claim', 'item_id', 'session_id');

      -- Every other table people change (organization, project, credential, machine approval, deployment): a record
      -- per row with the row as it was and as it is, secrets left out. TG_ARGV[0]: the object name; TG_ARGV[1]: the
      -- column naming the row; TG_ARGV[2]: the column holding the project, if any ('' for none).
      CREATE FUNCTION svc_record_rows() RETURNS trigger LANGUAGE plpgsql AS $fn$
      DECLARE
        w jsonb := svc_writer();
        before_row jsonb;
        after_row jsonb;
        row_json jsonb;
        project_id text;
        org integer;
        item integer;
      BEGIN
        IF TG_OP <> 'INSERT' THEN before_row := svc_record_strip(to_jsonb(OLD)); END IF;
        IF TG_OP <> 'DELETE' THEN after_row := svc_record_strip(to_jsonb(NEW)); END IF;
        IF TG_OP = 'UPDATE' THEN
          -- only what changed, and nothing when only bookkeeping moved
          SELECT jsonb_object_agg(key, value) INTO after_row FROM jsonb_each(after_row)
           WHERE value IS DISTINCT FROM before_row -> key;
          IF after_row IS NULL THEN RETURN NULL; END IF;
          SELECT jsonb_object_agg(key, before_row -> key) INTO before_row FROM jsonb_object_keys(after_row) key;
        END IF;
        row_json := to_jsonb(COALESCE(NEW, OLD));
        IF TG_ARGV[2] <> '' THEN project_id := row_json ->> TG_ARGV[2]; END IF;
        IF TG_TABLE_NAME = 'projects' THEN project_id := row_json ->> 'id'; END IF;
        IF project_id IS NOT NULL THEN
          SELECT organization_id INTO org FROM projects WHERE id = project_id;
        ELSIF row_json ? 'organization_id' THEN
          org := (row_json ->> 'organization_id')::integer;
        END IF;
        IF row_json ? 'item_id' THEN item := (row_json ->> 'item_id')::integer;
        ELSIF row_json ? 'epic_id' THEN item := (row_json ->> 'epic_id')::integer;
        END IF;
        IF item IS NOT NULL AND project_id IS NULL THEN
          SELECT i.project, p.organization_id INTO project_id, org FROM items i JOIN projects p ON p.id = i.project
           WHERE i.id = item;
        END IF;
        PERFORM svc_record_insert(w, org, project_id, item,
                                  CASE WHEN item IS NOT NULL THEN svc_item_ref(item) ELSE row_json ->> 'item' END,
                                  TG_ARGV[0], row_json ->> TG_ARGV[1],
                                  CASE TG_OP WHEN 'INSERT' THEN 'created' WHEN 'DELETE' THEN 'deleted' ELSE 'changed' END,
                                  NULL, before_row, after_row);
        RETURN NULL;
      END
      $fn$;
      CREATE TRIGGER tr_organizations_record AFTER INSERT OR UPDATE OR DELETE ON organizations
        FOR EACH ROW EXECUTE FUNCTION svc_record_rows('organization', 'slug', '');
      CREATE TRIGGER tr_actors_record AFTER INSERT OR UPDATE OR DELETE ON actors
        FOR EACH ROW EXECUTE FUNCTION svc_record_rows('actor', 'name', '');
      CREATE TRIGGER tr_memberships_record AFTER INSERT OR UPDATE OR DELETE ON memberships
        FOR EACH ROW EXECUTE FUNCTION svc_record_rows('membership', 'actor_id', '');
      CREATE TRIGGER tr_api_tokens_record AFTER INSERT OR UPDATE OR DELETE ON api_tokens
        FOR EACH ROW EXECUTE FUNCTION svc_record_rows('api_token', 'id', '');
      CREATE TRIGGER tr_machine_credentials_record AFTER INSERT OR UPDATE OR DELETE ON machine_credentials
        FOR EACH ROW EXECUTE FUNCTION svc_record_rows('machine_credential', 'machine_id', '');
      CREATE TRIGGER tr_projects_record AFTER INSERT OR UPDATE OR DELETE ON projects
        FOR EACH ROW EXECUTE FUNCTION svc_record_rows('project', 'id', '');
      CREATE TRIGGER tr_machine_authorizations_record AFTER INSERT OR UPDATE OR DELETE ON machine_authorizations
        FOR EACH ROW EXECUTE FUNCTION svc_record_rows('machine_authorization', 'machine_id', '');
      CREATE TRIGGER tr_environments_record AFTER INSERT OR UPDATE OR DELETE ON environments
        FOR EACH ROW EXECUTE FUNCTION svc_record_rows('environment', 'name', 'project');
      CREATE TRIGGER tr_deployment_flows_record AFTER INSERT OR UPDATE OR DELETE ON deployment_flows
        FOR EACH ROW EXECUTE FUNCTION svc_record_rows('deployment_flow', 'id', 'project');
      CREATE TRIGGER tr_deployment_runs_record AFTER INSERT OR UPDATE OR DELETE ON deployment_runs
        FOR EACH ROW EXECUTE FUNCTION svc_record_rows('deployment_run', 'id', 'project');
      CREATE TRIGGER tr_deployment_approvals_record AFTER INSERT OR UPDATE OR DELETE ON deployment_approvals
        FOR EACH ROW EXECUTE FUNCTION svc_record_rows('deployment_approval', 'run_id', '');
      CREATE TRIGGER tr_epic_tasks_record AFTER INSERT OR UPDATE OR DELETE ON epic_tasks
        FOR EACH ROW EXECUTE FUNCTION svc_record_rows('epic_task', 'task_num', '');
      CREATE TRIGGER tr_epic_dispatch_chains_record AFTER INSERT OR UPDATE OR DELETE ON epic_dispatch_chains
        FOR EACH ROW EXECUTE FUNCTION svc_record_rows('epic_chain', 'worktree', '');
      CREATE TRIGGER tr_epic_task_files_record AFTER INSERT OR UPDATE OR DELETE ON epic_task_files
        FOR EACH ROW EXECUTE FUNCTION svc_record_rows('epic_task_file', 'file_path', '');
      CREATE TRIGGER tr_epic_progress_notes_record AFTER INSERT OR UPDATE OR DELETE ON epic_progress_notes
        FOR EACH ROW EXECUTE FUNCTION svc_record_rows('epic_note', 'note_num', '');
      CREATE TRIGGER tr_shepherd_verdicts_record AFTER INSERT OR UPDATE OR DELETE ON shepherd_verdicts
        FOR EACH ROW EXECUTE FUNCTION svc_record_rows('shepherd_verdict', 'id', '');
      CREATE TRIGGER tr_caveat_dispositions_record AFTER INSERT OR UPDATE OR DELETE ON caveat_dispositions
        FOR EACH ROW EXECUTE FUNCTION svc_record_rows('caveat_disposition', 'id', '');
      CREATE TRIGGER tr_ouroboros_entries_record AFTER INSERT OR UPDATE OR DELETE ON ouroboros_entries
        FOR EACH ROW EXECUTE FUNCTION svc_record_rows('ouroboros_entry', 'id', '');
      CREATE TRIGGER tr_workflow_versions_record AFTER INSERT OR UPDATE OR DELETE ON workflow_versions
        FOR EACH ROW EXECUTE FUNCTION svc_record_rows('workflow_version', 'workflow_id', '');
      CREATE TRIGGER tr_executor_sessions_record AFTER INSERT OR UPDATE OR DELETE ON executor_sessions
        FOR EACH ROW EXECUTE FUNCTION svc_record_rows('executor_session', 'id', 'project');
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP TRIGGER IF EXISTS tr_executor_sessions_record ON executor_sessions;
      DROP TRIGGER IF EXISTS tr_workflow_versions_record ON workflow_versions;
      DROP TRIGGER IF EXISTS tr_ouroboros_entries_record ON ouroboros_entries;
      DROP TRIGGER IF EXISTS tr_caveat_dispositions_record ON caveat_dispositions;
      DROP TRIGGER IF EXISTS tr_shepherd_verdicts_record ON shepherd_verdicts;
      DROP TRIGGER IF EXISTS tr_epic_progress_notes_record ON epic_progress_notes;
      DROP TRIGGER IF EXISTS tr_epic_task_files_record ON epic_task_files;
      DROP TRIGGER IF EXISTS tr_epic_dispatch_chains_record ON epic_dispatch_chains;
      DROP TRIGGER IF EXISTS tr_epic_tasks_record ON epic_tasks;
      DROP TRIGGER IF EXISTS tr_deployment_approvals_record ON deployment_approvals;
      DROP TRIGGER IF EXISTS tr_deployment_runs_record ON deployment_runs;
      DROP TRIGGER IF EXISTS tr_deployment_flows_record ON deployment_flows;
      DROP TRIGGER IF EXISTS tr_environments_record ON environments;
      DROP TRIGGER IF EXISTS tr_machine_authorizations_record ON machine_authorizations;
      DROP TRIGGER IF EXISTS tr_projects_record ON projects;
      DROP TRIGGER IF EXISTS tr_machine_credentials_record ON machine_credentials;
      DROP TRIGGER IF EXISTS tr_api_tokens_record ON api_tokens;
      DROP TRIGGER IF EXISTS tr_memberships_record ON memberships;
      DROP TRIGGER IF EXISTS tr_actors_record ON actors;
      DROP TRIGGER IF EXISTS tr_organizations_record ON organizations;
      DROP TRIGGER IF EXISTS tr_item_claims_record ON item_claims;
      DROP TRIGGER IF EXISTS tr_item_dependencies_record ON item_dependencies;
      DROP TRIGGER IF EXISTS tr_item_sections_record ON item_sections;
      DROP TRIGGER IF EXISTS tr_items_record_delete ON items;
      DROP TRIGGER IF EXISTS tr_items_record_update ON items;
      DROP TRIGGER IF EXISTS tr_items_record_insert ON items;
      DROP FUNCTION IF EXISTS svc_record_rows();
      DROP FUNCTION IF EXISTS svc_record_item_rows();
      DROP FUNCTION IF EXISTS svc_record_items();
      DROP FUNCTION IF EXISTS svc_record_insert(jsonb, integer, text, integer, text, text, text, text, text, jsonb, jsonb);
      DROP FUNCTION IF EXISTS svc_item_ref(integer);
      DROP FUNCTION IF EXISTS svc_record_strip(jsonb);
      DROP FUNCTION IF EXISTS svc_writer();
      DROP TABLE IF EXISTS change_records;
    `);
  }
}
