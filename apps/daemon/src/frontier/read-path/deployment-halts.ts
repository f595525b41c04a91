import { DeploymentHalt } from '@app/core';

// Halted runs kept per carried item only when no newer run of a flow carries it (the newest is the authority, as
// for the deployment_complete gate and svc approve). Both lookups use indexes.
export const DEPLOYMENT_HALTS_SQL = `
  SELECT x.item_id, r.id AS run_id, r.halt_kind AS kind, r.halt_stage AS stage,
         COALESCE(r.halt_missing, '[]'::jsonb) AS missing,
         to_char(r.halted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI') || ' UTC' AS since,
         EXISTS (SELECT 1 FROM deployment_approvals a
                  WHERE a.run_id = r.id AND a.stage_index = r.stage_index) AS approved
    FROM deployment_runs r
   CROSS JOIN LATERAL (SELECT (v.value)::int AS item_id
                         FROM jsonb_array_elements_text(r.carried_work -> 'items') AS v(value)
                        WHERE v.value ~ '^[0-9]{1,9}$') x
   WHERE r.project = $1 AND r.status = 'halted' AND r.flow_id IS NOT NULL
     AND r.halt_kind IS NOT NULL AND r.halt_stage IS NOT NULL AND r.halted_at IS NOT NULL
     AND NOT EXISTS (SELECT 1 FROM deployment_runs n
                      WHERE n.flow_id IS NOT NULL AND n.carried_work -> 'items' @> jsonb_build_array(x.item_id)
                        AND (n.started_at, n.id) > (r.started_at, r.id))
   ORDER BY x.item_id, r.started_at DESC, r.id DESC`;

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
