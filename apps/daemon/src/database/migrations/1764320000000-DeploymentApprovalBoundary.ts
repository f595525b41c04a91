import { MigrationInterface, QueryRunner } from 'typeorm';

// Issue 24, deployment approvals cannot be walked around:
// - svc_deployment_approval_role(project, environment, flow): the approval an environment of a project needs, as its
//   flows say: 'admin' or 'member' when some flow of the project has an approval stage and reaches the environment
//   (the stage names it as its environment, or as its name when it names no environment; the flow is the
//   environment's registered flow; a run of the flow targets it; or the flow is the one given), null when none does.
//   The project policy deployment_approval_role: "admin" makes every such approval an admin's.
// - deployment_runs.required_approval: the strongest approval the run's environment (and its own flow) needed while
//   the run was written, recorded by a trigger on every insert and update by any writer (the deployments routes,
//   backlog import, plain SQL) and never weakened. fact:deployed counts a succeeded run only when an approval of that
//   strength is recorded on it.
// - deployment_approvals.approver_role: whether the approver approved as an admin (an admin of the project's
//   organization; the server admin for a project of no organization) or as a member.
// Existing rows are backfilled the same way, so a succeeded run that walked around an approval before this
// migration stops counting.
export class DeploymentApprovalBoundary1764320000000 implements MigrationInterface {
  name = 'DeploymentApprovalBoundary1764320000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION svc_deployment_approval_role(p_project text, p_environment text, p_flow text)
      RETURNS text LANGUAGE sql STABLE AS $fn$
        SELECT CASE WHEN bool_or(x.admin) THEN 'admin' WHEN count(*) > 0 THEN 'member' END
          FROM (
            SELECT (s.value -> 'approval' ->> 'role') IS NOT DISTINCT FROM 'admin'
                   OR (SELECT p.policy ->> 'deployment_approval_role' FROM projects p WHERE p.id = p_project)
                      IS NOT DISTINCT FROM 'admin' AS admin
              FROM deployment_flows f
             CROSS JOIN LATERAL jsonb_array_elements(
                     CASE WHEN jsonb_typeof(f.stages) = 'array' THEN f.stages ELSE '[]'::jsonb END) AS s(value)
             WHERE f.project = p_project
               AND jsonb_typeof(s.value) = 'object'
               AND (s.value -> 'approval' = 'true'::jsonb OR jsonb_typeof(s.value -> 'approval') = 'object')
               AND (f.id = p_flow
                    OR COALESCE(s.value ->> 'environment', s.value ->> 'name') = p_environment
                    OR EXISTS (SELECT 1 FROM environments e
                                WHERE e.project = p_project AND e.name = p_environment AND e.flow_id = f.id)
                    OR EXISTS (SELECT 1 FROM deployment_runs r
                                WHERE r.project = p_project AND r.environment = p_environment AND r.flow_id = f.id))
          ) x
      $fn$;

      ALTER TABLE deployment_runs ADD COLUMN required_approval text,
        ADD CONSTRAINT ck_deployment_runs_required_approval
          CHECK (required_approval IS NULL OR required_approval IN ('member', 'admin'));

      CREATE FUNCTION svc_deployment_run_required_approval() RETURNS trigger LANGUAGE plpgsql AS $fn$
      DECLARE
        needed text := svc_deployment_approval_role(NEW.project, NEW.environment, NEW.flow_id);
      BEGIN
        IF TG_OP = 'UPDATE' AND OLD.required_approval = 'admin' OR needed = 'admin' THEN
          NEW.required_approval := 'admin';
        ELSE
          NEW.required_approval := COALESCE(needed, CASE WHEN TG_OP = 'UPDATE' THEN OLD.required_approval END);
        END IF;
        RETURN NEW;
      END
      $fn$;

      UPDATE deployment_runs SET required_approval = svc_deployment_approval_role(project, environment, flow_id);

      CREATE TRIGGER tr_deployment_runs_required_approval BEFORE INSERT OR UPDATE ON deployment_runs
        FOR EACH ROW EXECUTE FUNCTION svc_deployment_run_required_approval();

      ALTER TABLE deployment_approvals ADD COLUMN approver_role text NOT NULL DEFAULT 'member',
        ADD CONSTRAINT ck_deployment_approvals_approver_role CHECK (approver_role IN ('member', 'admin'));
      UPDATE deployment_approvals a SET approver_role = 'admin'
        FROM deployment_runs r, projects p, actors x
       WHERE r.id = a.run_id AND p.id = r.project AND x.id = a.approved_by
         AND CASE WHEN p.organization_id IS NULL THEN x.is_admin
                  ELSE EXISTS (SELECT 1 FROM memberships m
                                WHERE m.organization_id = p.organization_id AND m.actor_id = x.id
                                  AND m.role = 'admin' AND m.status = 'active') END;
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE deployment_approvals DROP CONSTRAINT IF EXISTS ck_deployment_approvals_approver_role,
        DROP COLUMN IF EXISTS approver_role;
      DROP TRIGGER IF EXISTS tr_deployment_runs_required_approval ON deployment_runs;
      DROP FUNCTION IF EXISTS svc_deployment_run_required_approval();
      ALTER TABLE deployment_runs DROP CONSTRAINT IF EXISTS ck_deployment_runs_required_approval,
        DROP COLUMN IF EXISTS required_approval;
      DROP FUNCTION IF EXISTS svc_deployment_approval_role(text, text, text);
    `);
  }
}
