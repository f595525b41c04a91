export interface WorkflowGateSpec {
  type: string;
  // only meaningful for gate types that evaluate dependencies (check_hard_blocks); default activation
  gate_point?: string;
  options?: Record<string, unknown>;
}

export interface WorkflowStage {
  id: string;
  name: string;
  adapter: string;
  // the skill binding dispatched for an item at this stage; `{ref}` is replaced by the item's public ref
  entrypoint: string | null;
  gates: WorkflowGateSpec[];
  terminal: boolean;
}

export interface DbClaimProseGate {
  enter: string[];
  exit: string[];
}

export interface WorkflowDefinition {
  id: string;
  name: string;
  description?: string;
  initial_stage: string;
  stages: WorkflowStage[];
  db_claim_prose_gate?: DbClaimProseGate;
  // the stage where the merge is recorded: a write of merged_at passes this stage's gates
  merge_stage?: string;
}

export interface WorkflowVersionWire {
  workflow_id: string;
  version: number;
  workflow_version_id: number;
  checksum: string;
  current: boolean;
  created_by: string | null;
  created_at: string;
  definition: WorkflowDefinition;
}

export interface WorkflowRegisterWire extends WorkflowVersionWire {
  created: boolean;
}

export interface WorkflowSummaryWire {
  workflow_id: string;
  name: string;
  current_version: number | null;
  versions: number;
  created_at: string;
}

export interface ItemWorkflowWire {
  item_id: string;
  workflow_id: string;
  workflow_version: number;
  workflow_version_id: number;
  status: string;
  stage: (WorkflowStage & { entrypoint_rendered: string | null }) | null;
  definition: WorkflowDefinition;
}

export interface WorkflowListResponse {
  workflows: WorkflowSummaryWire[];
}

export const STAGE_REF_PLACEHOLDER = '{ref}';

export function renderEntrypoint(entrypoint: string | null, ref: string): string | null {
  return entrypoint === null ? null : entrypoint.split(STAGE_REF_PLACEHOLDER).join(ref);
}
