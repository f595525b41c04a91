import { DeploymentHalt } from '@app/core';

// The frontier's one read of deployment halts (issue 15): per item of the project, its newest deployment run of a
// flow (as the deployment_complete gate and svc approve pick it), kept when that run is halted. Read whole on a full
// load and whenever a deployment row (run, environment, flow or approval) was written or deleted.
export const DEPLOYMENT_HALTS_SQL = `
  SELECT item_id, run_id, kind, stage, missing, since, approved FROM (
    SELECT DISTINCT ON (x.item_id) x.item_id, r.id AS run_id, r.status, r.halt_kind AS kind, r.halt_stage AS stage,
           COALESCE(r.halt_missing, '[]'::jsonb) AS missing,
           to_char(r.halted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI') || ' UTC' AS since,
           EXISTS (SELECT 1 FROM deployment_approvals a
                    WHERE a.run_id = r.id AND a.stage_index = r.stage_index) AS approved
      FROM deployment_runs r
     CROSS JOIN LATERAL (SELECT (v.value)::int AS item_id
                           FROM jsonb_array_elements_text(r.carried_work -> 'items') AS v(value)
                          WHERE v.value ~ '^[0-9]{1,9}$') x
     WHERE r.project = $1 AND r.flow_id IS NOT NULL
     ORDER BY x.item_id, r.started_at DESC, r.id DESC) newest
   WHERE status = 'halted' AND kind IS NOT NULL AND stage IS NOT NULL AND since IS NOT NULL
   ORDER BY item_id`;

export interface DeploymentHaltRow {
  item_id: number;
  run_id: string;
  kind: DeploymentHalt['kind'];
  stage: string;
  missing: string[];
  since: string;
  approved: boolean;
}

export function toDeploymentHalts(rows: readonly DeploymentHaltRow[]): Map<number, DeploymentHalt> {
  const halts = new Map<number, DeploymentHalt>();
  for (const row of rows) {
    halts.set(row.item_id, {
      runId: row.run_id,
      kind: row.kind,
      stage: row.stage,
      missing: row.missing,
      since: row.since,
      approved: row.approved,
    });
  }
  return halts;
}
