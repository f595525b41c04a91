-- The statements the daemon sends for one priority write (PUT /v1/items/:ref/fields/priority), as captured from
-- pg_stat_statements on 2026-12-01, with its parameters written in (the priority the next after the item's, as the
-- bench's writers set it, so every write leaves a record): the credential's read, START TRANSACTION with the
-- writer's setting, the item locked with its claim (the rulebook's read), the update that answers with the item, and
-- COMMIT; the triggers (stamp, notice, write record) fire as they do for the daemon. bench:writes runs it with pgbench
-- on the database it measured (-D token_hash=<the admin token's sha256, hex> -D items=<n>): what PostgreSQL alone
-- does with a svc write's statements on the same cores, the ceiling of the daemon's writes/s. Keep it in step with
-- items.repository.ts (updatedDetail, lockWithClaim), auth.repository.ts and writer.subscriber.ts.
\set seq random(1, :items)
SELECT a.id, a.name, a.is_admin, a.status, c.via, c.credential_id, c.machine_id, c.organization_id,
              c.expires_at, c.scope
         FROM (
               SELECT 'api_token' AS via, t.id AS credential_id, t.actor_id, NULL::text AS machine_id,
                      t.organization_id, t.expires_at, t.scope
                 FROM api_tokens t
                WHERE t.token_hash = decode(:token_hash, 'hex') AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > now())
               UNION ALL
               SELECT 'machine', m.id, m.actor_id, m.machine_id, m.organization_id, m.expires_at, NULL
                 FROM machine_credentials m
                WHERE m.token_hash = decode(:token_hash, 'hex') AND m.revoked_at IS NULL AND (m.expires_at IS NULL OR m.expires_at > now())
              ) c
         JOIN actors a ON a.id = c.actor_id
        LIMIT 1;
BEGIN;
SELECT set_config('svc.writer', '{"actor_id": 1, "actor_name": "admin", "credential_kind": "api_token", "credential_id": 1, "path": "http", "organization_id": 1}', true);
WITH i AS MATERIALIZED (SELECT 
         i.id, p.public_item_prefix || '-' || i.project_sequence AS ref, i.project, i.project_sequence, i.title,
         i.workflow_id, i.workflow_version_id, v.version AS workflow_version, i.workflow_posture, i.status,
         i.priority, i.frozen, i.blocked, i.blocked_reason, i.github_issue, i.deployed_to, i.body,
         to_char(i.merged_at AT TIME ZONE 'UTC', E'YYYY-MM-DD"T"HH24\x3AMI\x3ASS.MS"Z"') AS merged_at, to_char(i.created_at AT TIME ZONE 'UTC', E'YYYY-MM-DD"T"HH24\x3AMI\x3ASS.MS"Z"') AS created_at,
         to_char(i.updated_at AT TIME ZONE 'UTC', E'YYYY-MM-DD"T"HH24\x3AMI\x3ASS.MS"Z"') AS updated_at, i.source, i.owner, i.deployment_flow, i.deploy_stage,
         i.spec, i.design_spec, i.technical_plan, i.worktree_plan, i.shepherd_log, i.shepherd_caveats, i.test_results, i.deploy_log,
         i.db_mutation_profile, i.db_compatibility_attestation, to_char(i.spec_updated_at AT TIME ZONE 'UTC', E'YYYY-MM-DD"T"HH24\x3AMI\x3ASS.MS"Z"') AS spec_updated_at,
         i.spec_updated_by, i.resolution, i.resolution_ref, i.resolution_comment, i.depends_on, p.policy AS project_policy FROM items i 
    JOIN projects p ON p.id = i.project
    JOIN workflow_versions v ON v.id = i.workflow_version_id
                                WHERE p.public_item_prefix = 'BN' AND i.project_sequence = :seq::integer FOR UPDATE OF i)
       SELECT i.*, (SELECT json_build_object('session_id', c.session_id, 'actor_id', s.actor_id, 'actor', a.name,
                                  'harness', s.harness, 'expires_at', c.expires_at)
             FROM item_claims c
             JOIN executor_sessions s ON s.id = c.session_id
             LEFT JOIN actors a ON a.id = s.actor_id
            WHERE c.item_id = i.id AND c.expires_at > now()
            FOR UPDATE OF c) AS claim_holder FROM i
\gset
WITH i AS (UPDATE items SET priority = (CASE priority WHEN 'high' THEN 'medium' WHEN 'medium' THEN 'low' ELSE 'high' END), updated_at = now() WHERE id = :id::integer RETURNING *) SELECT 
         i.id, p.public_item_prefix || '-' || i.project_sequence AS ref, i.project, i.project_sequence, i.title,
         i.workflow_id, i.workflow_version_id, v.version AS workflow_version, i.workflow_posture, i.status,
         i.priority, i.frozen, i.blocked, i.blocked_reason, i.github_issue, i.deployed_to, i.body,
         to_char(i.merged_at AT TIME ZONE 'UTC', E'YYYY-MM-DD"T"HH24\x3AMI\x3ASS.MS"Z"') AS merged_at, to_char(i.created_at AT TIME ZONE 'UTC', E'YYYY-MM-DD"T"HH24\x3AMI\x3ASS.MS"Z"') AS created_at,
         to_char(i.updated_at AT TIME ZONE 'UTC', E'YYYY-MM-DD"T"HH24\x3AMI\x3ASS.MS"Z"') AS updated_at, i.source, i.owner, i.deployment_flow, i.deploy_stage,
         i.spec, i.design_spec, i.technical_plan, i.worktree_plan, i.shepherd_log, i.shepherd_caveats, i.test_results, i.deploy_log,
         i.db_mutation_profile, i.db_compatibility_attestation, to_char(i.spec_updated_at AT TIME ZONE 'UTC', E'YYYY-MM-DD"T"HH24\x3AMI\x3ASS.MS"Z"') AS spec_updated_at,
         i.spec_updated_by, i.resolution, i.resolution_ref, i.resolution_comment, i.depends_on, 
         (SELECT COALESCE(json_agg(json_build_object(
                   'item_id', s.item_id, 'section_name', s.section_name, 'content', s.content, 'ordering', s.ordering,
                   'created_at', to_char(s.created_at AT TIME ZONE 'UTC', E'YYYY-MM-DD"T"HH24\x3AMI\x3ASS.MS"Z"'), 'updated_at', to_char(s.updated_at AT TIME ZONE 'UTC', E'YYYY-MM-DD"T"HH24\x3AMI\x3ASS.MS"Z"'))
                   ORDER BY s.ordering, s.section_name), '[]')
            FROM item_sections s WHERE s.item_id = i.id) AS sections, 
         (SELECT COALESCE(json_agg(json_build_object(
                   'id', c.id::text, 'item_id', c.item_id, 'actor_name', c.actor_name, 'session_id', c.session_id,
                   'harness', c.harness, 'path', c.path, 'body', c.body, 'created_at', to_char(c.created_at AT TIME ZONE 'UTC', E'YYYY-MM-DD"T"HH24\x3AMI\x3ASS.MS"Z"'))
                   ORDER BY c.id DESC), '[]')
            FROM (SELECT * FROM item_comments WHERE item_id = i.id ORDER BY id DESC LIMIT 5) c)
           AS recent_comments,
         (SELECT count(*)::integer FROM item_comments WHERE item_id = i.id) AS comment_count FROM i 
    JOIN projects p ON p.id = i.project
    JOIN workflow_versions v ON v.id = i.workflow_version_id;
COMMIT;
