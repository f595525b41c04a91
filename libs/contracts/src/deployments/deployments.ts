import type { DeploymentHaltWire } from '../backlog/items';

// A stage is a name or an object naming an approval and capabilities; the daemon validates it (flow-stages.ts).
export interface FlowWire {
  id: string;
  project: string;
  name: string;
  stages: unknown[];
  target_tier: string | null;
  done_description: string | null;
  active: boolean;
  closing: boolean;
  complete_before_done: boolean;
  created_at: string;
}

export interface FlowListResponse {
  flows: FlowWire[];
}

export interface EnvironmentWire {
  project: string;
  name: string;
  tier: string | null;
  flow_id: string | null;
  created_at: string;
  retired_at: string | null;
}

export interface EnvironmentListResponse {
  environments: EnvironmentWire[];
}

export interface RunWire {
  id: string;
  project: string;
  flow_id: string | null;
  environment: string;
  status: string;
  current_stage: string | null;
  stage_index: number;
  stage_count: number;
  qa_summary: string | null;
  blocked_reason: string | null;
  started_at: string;
  finished_at: string | null;
  // what the usher step last declared it has (null: never declared)
  capabilities: string[] | null;
  // the approval its environment (and its own flow) needed while it was written, never weakened; null: none
  required_approval: 'member' | 'admin' | null;
  carried_work: { items: string[] };
  halt: DeploymentHaltWire | null;
}

export interface RunListResponse {
  runs: RunWire[];
}

export interface DeploymentApprovalResponse {
  item_id: string;
  run_id: string;
  environment: string;
  stage: string;
  stage_index: number;
  approved_by: string;
  approved_at: string;
  event_id: string;
  // the usher step re-runs the run (PATCH /v1/deployments/runs/:id) to pass the gate
  run: RunWire;
}

export interface CreateFlowRequest {
  id: string;
  project: string;
  name: string;
  stages: unknown[];
  target_tier?: string;
  done_description?: string;
  active?: boolean;
  closing?: boolean;
  // false: the flow's items may reach done before their run completes (default true)
  complete_before_done?: boolean;
}

export interface CreateEnvironmentRequest {
  project: string;
  name: string;
  tier?: string;
  flow_id?: string;
}

export interface UpdateRunRequest {
  status?: string;
  current_stage?: string;
  stage_index?: number;
  stage_count?: number;
  qa_summary?: string;
  blocked_reason?: string;
  // capabilities the usher step has here (a stage needing others halts with needs-capability)
  capabilities?: string[];
}

export interface CreateRunRequest extends UpdateRunRequest {
  project: string;
  flow_id?: string;
  environment: string;
  items: string[];
}

// POST /v1/deployments/runs/:id/resume: omitted capabilities keep what the run last declared
export interface ResumeRunRequest {
  capabilities?: string[];
}
