import { WorkflowDefinition, WorkflowSummaryWire, WorkflowVersionWire } from '@app/contracts/backlog';

export interface WorkflowVersionRow {
  workflow_id: string;
  version: number;
  id: number;
  checksum: string;
  current: boolean;
  created_by: string | null;
  created_at: string;
  definition: WorkflowDefinition;
}

export interface WorkflowSummaryRow {
  id: string;
  name: string;
  current_version: number | null;
  versions: string;
  created_at: string;
}

export function toWorkflowVersionResponse(row: WorkflowVersionRow): WorkflowVersionWire {
  return {
    workflow_id: row.workflow_id,
    version: row.version,
    workflow_version_id: row.id,
    checksum: row.checksum,
    current: row.current,
    created_by: row.created_by,
    created_at: row.created_at,
    definition: row.definition,
  };
}

export function toWorkflowSummary(row: WorkflowSummaryRow): WorkflowSummaryWire {
  return {
    workflow_id: row.id,
    name: row.name,
    current_version: row.current_version,
    versions: Number(row.versions),
    created_at: row.created_at,
  };
}
