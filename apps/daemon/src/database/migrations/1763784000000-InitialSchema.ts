import { MigrationInterface, QueryRunner } from 'typeorm';

export class InitialSchema1763784000000 implements MigrationInterface {
  name = 'InitialSchema1763784000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE organizations (
        id serial PRIMARY KEY,
        slug text NOT NULL,
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT uq_organizations_slug UNIQUE (slug),
        CONSTRAINT ck_organizations_slug CHECK (slug ~ '^[a-z0-9][a-z0-9-]{0,62}$')
      );

      CREATE TABLE actors (
        id serial PRIMARY KEY,
        name text NOT NULL,
        email text,
        kind text NOT NULL DEFAULT 'person',
        status text NOT NULL DEFAULT 'active',
        is_admin boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT uq_actors_name UNIQUE (name),
        CONSTRAINT ck_actors_kind CHECK (kind IN ('person', 'agent', 'system')),
        CONSTRAINT ck_actors_status CHECK (status IN ('active', 'disabled'))
      );

      CREATE TABLE memberships (
        organization_id integer NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        actor_id integer NOT NULL REFERENCES actors (id) ON DELETE CASCADE,
        role text NOT NULL DEFAULT 'member',
        status text NOT NULL DEFAULT 'active',
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (organization_id, actor_id),
        CONSTRAINT ck_memberships_role CHECK (role IN ('admin', 'member')),
        CONSTRAINT ck_memberships_status CHECK (status IN ('active', 'disabled'))
      );
      CREATE INDEX ix_memberships_actor ON memberships (actor_id);

      CREATE TABLE api_tokens (
        id serial PRIMARY KEY,
        actor_id integer NOT NULL REFERENCES actors (id) ON DELETE CASCADE,
        name text NOT NULL,
        token_hash bytea NOT NULL,
        token_prefix text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz,
        revoked_at timestamptz,
        CONSTRAINT uq_api_tokens_hash UNIQUE (token_hash)
      );
      CREATE INDEX ix_api_tokens_actor ON api_tokens (actor_id);

      CREATE TABLE machine_credentials (
        id serial PRIMARY KEY,
        machine_id text NOT NULL,
        machine_name text NOT NULL,
        actor_id integer NOT NULL REFERENCES actors (id) ON DELETE CASCADE,
        organization_id integer NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        token_hash bytea NOT NULL,
        token_prefix text NOT NULL,
        authorization_id bigint,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz,
        revoked_at timestamptz,
        CONSTRAINT uq_machine_credentials_hash UNIQUE (token_hash)
      );
      CREATE UNIQUE INDEX uq_machine_credentials_live ON machine_credentials (organization_id, machine_id)
        WHERE revoked_at IS NULL;
      CREATE INDEX ix_machine_credentials_actor ON machine_credentials (actor_id);

      CREATE TABLE projects (
        id text PRIMARY KEY,
        name text NOT NULL,
        public_item_prefix text NOT NULL,
        next_sequence integer NOT NULL DEFAULT 1,
        policy jsonb NOT NULL DEFAULT '{}'::jsonb,
        organization_id integer REFERENCES organizations (id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT uq_projects_prefix UNIQUE (public_item_prefix),
        CONSTRAINT ck_projects_id CHECK (id ~ '^[a-z0-9][a-z0-9_-]{0,62}$'),
        CONSTRAINT ck_projects_prefix CHECK (public_item_prefix ~ '^[A-Z][A-Z0-9]{0,15}$'),
        CONSTRAINT ck_projects_next_sequence CHECK (next_sequence >= 1),
        CONSTRAINT ck_projects_policy CHECK (jsonb_typeof(policy) = 'object')
      );

      CREATE TABLE workflows (
        id text PRIMARY KEY,
        name text NOT NULL,
        current_version_id integer,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT ck_workflows_id CHECK (id ~ '^[a-z0-9][a-z0-9_-]{0,62}$')
      );

      CREATE TABLE workflow_versions (
        id serial PRIMARY KEY,
        workflow_id text NOT NULL REFERENCES workflows (id) ON DELETE RESTRICT,
        version integer NOT NULL,
        definition jsonb NOT NULL,
        checksum text NOT NULL,
        created_by text,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT uq_workflow_versions_version UNIQUE (workflow_id, version)
      );
      ALTER TABLE workflows ADD CONSTRAINT fk_workflows_current_version
        FOREIGN KEY (current_version_id) REFERENCES workflow_versions (id) DEFERRABLE INITIALLY DEFERRED;

      -- A registered version is immutable: the database refuses any change to it.
      CREATE FUNCTION workflow_versions_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'workflow version % of % is immutable', OLD.version, OLD.workflow_id
          USING ERRCODE = 'restrict_violation';
      END $$;
      CREATE TRIGGER tr_workflow_versions_immutable BEFORE UPDATE ON workflow_versions
        FOR EACH ROW EXECUTE FUNCTION workflow_versions_immutable();

      CREATE TABLE deployment_flows (
        id text PRIMARY KEY,
        project text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
        name text NOT NULL,
        stages jsonb NOT NULL DEFAULT '[]'::jsonb,
        target_tier text,
        done_description text,
        active boolean NOT NULL DEFAULT true,
        closing boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT ck_deployment_flows_stages CHECK (jsonb_typeof(stages) = 'array')
      );
      CREATE INDEX ix_deployment_flows_project ON deployment_flows (project);

      CREATE TABLE environments (
        id serial PRIMARY KEY,
        project text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
        name text NOT NULL,
        tier text,
        flow_id text REFERENCES deployment_flows (id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        retired_at timestamptz,
        CONSTRAINT uq_environments_project_name UNIQUE (project, name)
      );

      CREATE TABLE items (
        id serial PRIMARY KEY,
        project text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
        project_sequence integer NOT NULL,
        title text NOT NULL,
        workflow_id text NOT NULL REFERENCES workflows (id),
        workflow_version_id integer NOT NULL REFERENCES workflow_versions (id),
        workflow_posture text NOT NULL DEFAULT '{}',
        status text NOT NULL,
        priority text NOT NULL DEFAULT 'medium',
        frozen integer NOT NULL DEFAULT 0,
        blocked integer NOT NULL DEFAULT 0,
        blocked_reason text,
        github_issue text,
        deployed_to text,
        body text,
        merged_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        source text NOT NULL,
        owner text,
        deployment_flow text REFERENCES deployment_flows (id) ON DELETE SET NULL,
        deploy_stage text,
        spec text,
        design_spec text,
        technical_plan text,
        worktree_plan text,
        shepherd_log text,
        shepherd_caveats text,
        test_results text,
        deploy_log text,
        db_mutation_profile text NOT NULL DEFAULT '{"state":"none"}',
        db_compatibility_attestation text NOT NULL DEFAULT '{}',
        spec_updated_at timestamptz,
        spec_updated_by text,
        resolution text,
        resolution_ref text,
        resolution_comment text,
        depends_on text,
        CONSTRAINT uq_items_project_sequence UNIQUE (project, project_sequence),
        CONSTRAINT ck_items_priority CHECK (priority IN ('high', 'medium', 'low')),
        CONSTRAINT ck_items_frozen CHECK (frozen IN (0, 1)),
        CONSTRAINT ck_items_blocked CHECK (blocked IN (0, 1)),
        CONSTRAINT ck_items_resolution CHECK (resolution IS NULL OR resolution IN ('completed', 'duplicate', 'wontfix'))
      );
      CREATE INDEX ix_items_project_status ON items (project, status);
      CREATE INDEX ix_items_project_blocked ON items (project) WHERE blocked = 1;
      CREATE INDEX ix_items_workflow_version ON items (workflow_version_id);

      CREATE TABLE item_sections (
        item_id integer NOT NULL REFERENCES items (id) ON DELETE CASCADE,
        section_name text NOT NULL,
        content text,
        ordering integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (item_id, section_name)
      );

      -- blocking_item_id has no foreign key on purpose: an edge whose blocker no longer
      -- resolves is still listed (the spec's frontier.list keeps it, with empty details).
      CREATE TABLE item_dependencies (
        id serial PRIMARY KEY,
        dependent_item_id integer NOT NULL REFERENCES items (id) ON DELETE CASCADE,
        blocking_item_id integer NOT NULL,
        gate_point text NOT NULL DEFAULT 'activation',
        satisfaction text NOT NULL DEFAULT 'status:done',
        source text NOT NULL,
        session_id integer,
        rationale text NOT NULL DEFAULT '',
        evidence_json text NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT uq_item_dependencies_edge UNIQUE (dependent_item_id, blocking_item_id, gate_point),
        CONSTRAINT ck_item_dependencies_gate_point
          CHECK (gate_point IN ('activation', 'integration', 'closure', 'coordination_only')),
        CONSTRAINT ck_item_dependencies_source
          CHECK (source IN ('shepherd', 'conduct', 'operator', 'migration', 'feed', 'idea', 'refine')),
        CONSTRAINT ck_item_dependencies_satisfaction
          CHECK (satisfaction ~ '^(status:[a-z][a-z0-9-]*|fact:merged|fact:deployed:[A-Za-z0-9._-]+)$'),
        CONSTRAINT ck_item_dependencies_not_self CHECK (dependent_item_id <> blocking_item_id)
      );
      CREATE INDEX ix_item_dependencies_dependent ON item_dependencies (dependent_item_id);
      CREATE INDEX ix_item_dependencies_blocking ON item_dependencies (blocking_item_id);

      CREATE TABLE epic_tasks (
        id serial PRIMARY KEY,
        epic_id integer NOT NULL REFERENCES items (id) ON DELETE CASCADE,
        task_num integer NOT NULL,
        title text,
        worktree text,
        context_estimate text,
        dependencies text,
        status text NOT NULL DEFAULT 'planning',
        dispatch_attempts integer NOT NULL DEFAULT 0,
        body text,
        github_issue text,
        branch text,
        worktree_path text,
        max_attempts integer NOT NULL DEFAULT 5,
        agent_id text,
        last_heartbeat timestamptz,
        CONSTRAINT uq_epic_tasks_task UNIQUE (epic_id, task_num),
        CONSTRAINT ck_epic_tasks_context_estimate CHECK (context_estimate IS NULL OR context_estimate IN ('S', 'M', 'L', 'XL')),
        CONSTRAINT ck_epic_tasks_dependencies CHECK (dependencies IS NULL OR dependencies ~ '^([0-9]+(,[0-9]+)*)?$'),
        CONSTRAINT ck_epic_tasks_status CHECK (status IN ('planning', 'plan-drafted', 'refining-plan', 'planned',
          'implementing', 'reviewing-implementation', 'reviewed-implementation', 'polishing-implementation',
          'implemented', 'release', 'done', 'failed', 'blocked', 'stopped'))
      );

      CREATE TABLE epic_task_files (
        id serial PRIMARY KEY,
        epic_id integer NOT NULL,
        task_num integer NOT NULL,
        file_path text NOT NULL,
        action text,
        CONSTRAINT fk_epic_task_files_task FOREIGN KEY (epic_id, task_num)
          REFERENCES epic_tasks (epic_id, task_num) ON DELETE CASCADE ON UPDATE CASCADE,
        CONSTRAINT ck_epic_task_files_action CHECK (action IS NULL OR action IN ('create', 'modify', 'delete'))
      );
      CREATE INDEX ix_epic_task_files_task ON epic_task_files (epic_id, task_num);

      CREATE TABLE epic_dispatch_chains (
        id serial PRIMARY KEY,
        epic_id integer NOT NULL REFERENCES items (id) ON DELETE CASCADE,
        worktree text NOT NULL,
        worktree_path text,
        queue text,
        current_index integer NOT NULL DEFAULT 0,
        current_task text,
        current_attempt integer NOT NULL DEFAULT 1,
        max_attempts integer NOT NULL DEFAULT 5,
        no_chain integer NOT NULL DEFAULT 0,
        started_at timestamptz,
        last_updated timestamptz,
        CONSTRAINT uq_epic_dispatch_chains_worktree UNIQUE (epic_id, worktree)
      );

      CREATE TABLE epic_progress_notes (
        id serial PRIMARY KEY,
        epic_id integer NOT NULL REFERENCES items (id) ON DELETE CASCADE,
        task_num integer NOT NULL,
        note_num integer NOT NULL,
        body text NOT NULL DEFAULT '',
        author text,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT uq_epic_progress_notes_note UNIQUE (epic_id, task_num, note_num)
      );

      CREATE TABLE shepherd_verdicts (
        id serial PRIMARY KEY,
        item text NOT NULL,
        transition text NOT NULL,
        worker text NOT NULL,
        verdict text NOT NULL,
        caveats text,
        attempt integer NOT NULL DEFAULT 1,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX ix_shepherd_verdicts_item ON shepherd_verdicts (item);

      CREATE TABLE caveat_dispositions (
        id serial PRIMARY KEY,
        item text NOT NULL,
        transition text NOT NULL,
        attempt integer NOT NULL DEFAULT 1,
        caveat_num integer NOT NULL,
        caveat_text text NOT NULL,
        disposition text NOT NULL,
        resolution_details text,
        verdict_id integer REFERENCES shepherd_verdicts (id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT uq_caveat_dispositions UNIQUE (item, transition, attempt, caveat_num),
        CONSTRAINT ck_caveat_dispositions_disposition CHECK (disposition IN ('RESOLVED', 'DEFERRED'))
      );
      CREATE INDEX ix_caveat_dispositions_item ON caveat_dispositions (item);

      CREATE TABLE ouroboros_entries (
        id serial PRIMARY KEY,
        "timestamp" timestamptz NOT NULL,
        agent text NOT NULL,
        context text,
        category text NOT NULL,
        body text NOT NULL,
        reviewed_at timestamptz,
        archived_at timestamptz,
        created_at timestamptz NOT NULL
      );

      CREATE TABLE deployment_runs (
        id text PRIMARY KEY DEFAULT gen_random_uuid()::text,
        project text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
        flow_id text REFERENCES deployment_flows (id) ON DELETE SET NULL,
        environment text NOT NULL,
        status text NOT NULL DEFAULT 'running',
        current_stage text,
        stage_index integer NOT NULL DEFAULT 0,
        stage_count integer NOT NULL DEFAULT 0,
        carried_work jsonb NOT NULL DEFAULT '{"items":[]}'::jsonb,
        qa_summary text,
        blocked_reason text,
        started_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz,
        CONSTRAINT ck_deployment_runs_status
          CHECK (status IN ('pending', 'running', 'halted', 'succeeded', 'failed', 'cancelled')),
        CONSTRAINT ck_deployment_runs_carried_work CHECK (jsonb_typeof(carried_work -> 'items') = 'array')
      );
      CREATE INDEX ix_deployment_runs_env_status ON deployment_runs (environment, status);
      CREATE INDEX ix_deployment_runs_carried_items ON deployment_runs USING gin ((carried_work -> 'items') jsonb_path_ops);

      -- One row per item: its latest deployment run (the run that carries it, newest first).
      CREATE VIEW item_progress_view AS
      SELECT i.id AS item_id,
             i.status,
             f.name AS flow_name,
             r.id AS run_id,
             r.current_stage,
             COALESCE(r.environment, f.target_tier) AS target_environment,
             CASE WHEN r.id IS NULL THEN NULL ELSE r.stage_index || '/' || r.stage_count END AS stage_progress,
             f.done_description,
             r.qa_summary,
             r.blocked_reason
        FROM items i
        LEFT JOIN deployment_flows f ON f.id = i.deployment_flow
        LEFT JOIN LATERAL (
              SELECT dr.*
                FROM deployment_runs dr
               WHERE dr.carried_work -> 'items' @> to_jsonb(i.id)
               ORDER BY dr.started_at DESC, dr.id DESC
               LIMIT 1
        ) r ON true;

      CREATE TABLE events (
        id bigserial PRIMARY KEY,
        name text NOT NULL,
        kind text NOT NULL,
        project text,
        item_ref text,
        actor_id integer,
        session_id integer,
        payload jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT ck_events_kind CHECK (kind IN ('workflow', 'lifecycle', 'telemetry'))
      );
      CREATE INDEX ix_events_name_created ON events (name, created_at DESC);
      CREATE INDEX ix_events_created ON events (created_at);

      CREATE TABLE machine_authorizations (
        id bigserial PRIMARY KEY,
        device_code_hash bytea NOT NULL,
        user_code_hash bytea NOT NULL,
        status text NOT NULL DEFAULT 'pending',
        client_key text NOT NULL,
        machine_id text NOT NULL,
        machine_name text NOT NULL,
        origin text NOT NULL,
        organization_id integer REFERENCES organizations (id) ON DELETE CASCADE,
        claimed_by integer REFERENCES actors (id) ON DELETE SET NULL,
        decided_by integer REFERENCES actors (id) ON DELETE SET NULL,
        decided_at timestamptz,
        consumed_at timestamptz,
        credential_id integer REFERENCES machine_credentials (id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        CONSTRAINT uq_machine_authorizations_device_code UNIQUE (device_code_hash),
        CONSTRAINT uq_machine_authorizations_user_code UNIQUE (user_code_hash),
        CONSTRAINT ck_machine_authorizations_status CHECK (status IN ('pending', 'approved', 'denied', 'consumed'))
      );
      CREATE INDEX ix_machine_authorizations_client_open ON machine_authorizations (client_key, expires_at)
        WHERE status IN ('pending', 'approved');
      CREATE INDEX ix_machine_authorizations_open ON machine_authorizations (expires_at)
        WHERE status IN ('pending', 'approved');
      CREATE INDEX ix_machine_authorizations_expires ON machine_authorizations (expires_at);

      CREATE TABLE rate_counters (
        scope text NOT NULL,
        subject text NOT NULL,
        window_start timestamptz NOT NULL,
        hits integer NOT NULL DEFAULT 0,
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (scope, subject, window_start)
      );
      CREATE INDEX ix_rate_counters_expires ON rate_counters (expires_at);

      CREATE TABLE executor_sessions (
        id serial PRIMARY KEY,
        actor_id integer REFERENCES actors (id) ON DELETE SET NULL,
        project text REFERENCES projects (id) ON DELETE CASCADE,
        harness text NOT NULL,
        model text NOT NULL,
        lane text NOT NULL,
        label text,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_seen_at timestamptz NOT NULL DEFAULT now(),
        ended_at timestamptz
      );

      CREATE TABLE item_claims (
        item_id integer PRIMARY KEY REFERENCES items (id) ON DELETE CASCADE,
        session_id integer NOT NULL REFERENCES executor_sessions (id) ON DELETE CASCADE,
        project text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
        entrypoint text,
        claimed_at timestamptz NOT NULL DEFAULT now(),
        renewed_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL
      );
      CREATE INDEX ix_item_claims_session ON item_claims (session_id);
      CREATE INDEX ix_item_claims_project_expires ON item_claims (project, expires_at);

      CREATE TABLE server_settings (
        key text PRIMARY KEY,
        value text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DROP TABLE IF EXISTS server_settings;
      DROP TABLE IF EXISTS item_claims;
      DROP TABLE IF EXISTS executor_sessions;
      DROP TABLE IF EXISTS rate_counters;
      DROP TABLE IF EXISTS machine_authorizations;
      DROP TABLE IF EXISTS events;
      DROP VIEW IF EXISTS item_progress_view;
      DROP TABLE IF EXISTS deployment_runs;
      DROP TABLE IF EXISTS ouroboros_entries;
      DROP TABLE IF EXISTS caveat_dispositions;
      DROP TABLE IF EXISTS shepherd_verdicts;
      DROP TABLE IF EXISTS epic_progress_notes;
      DROP TABLE IF EXISTS epic_dispatch_chains;
      DROP TABLE IF EXISTS epic_task_files;
      DROP TABLE IF EXISTS epic_tasks;
      DROP TABLE IF EXISTS item_dependencies;
      DROP TABLE IF EXISTS item_sections;
      DROP TABLE IF EXISTS items;
      DROP TABLE IF EXISTS environments;
      DROP TABLE IF EXISTS deployment_flows;
      DROP TRIGGER IF EXISTS tr_workflow_versions_immutable ON workflow_versions;
      DROP FUNCTION IF EXISTS workflow_versions_immutable();
      ALTER TABLE IF EXISTS workflows DROP CONSTRAINT IF EXISTS fk_workflows_current_version;
      DROP TABLE IF EXISTS workflow_versions;
      DROP TABLE IF EXISTS workflows;
      DROP TABLE IF EXISTS projects;
      DROP TABLE IF EXISTS machine_credentials;
      DROP TABLE IF EXISTS api_tokens;
      DROP TABLE IF EXISTS memberships;
      DROP TABLE IF EXISTS actors;
      DROP TABLE IF EXISTS organizations;
    `);
  }
}
