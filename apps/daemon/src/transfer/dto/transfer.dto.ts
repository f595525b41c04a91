import { IsIn, IsOptional, Matches } from 'class-validator';

import type { ImportResponse, ProjectSnapshot, ProjectSnapshotList } from '@app/contracts';
import { WorkflowDefinition } from '@app/contracts/backlog';

export class ExportQueryDto {
  @Matches(/^[a-z0-9][a-z0-9_-]{0,62}$/)
  project!: string;
}

export class ImportQueryDto {
  // replace the contents of an existing project instead of refusing (project_not_empty)
  @IsOptional()
  @IsIn(['0', '1', 'true', 'false'])
  replace?: string;
}

export interface DocSection {
  section_name: string;
  content?: string | null;
  ordering?: number;
  created_at?: string;
  updated_at?: string;
}

export type DocItem = {
  ref: string;
  title: string;
  workflow_id?: string;
  workflow_version?: number;
  status?: string;
  sections?: DocSection[];
} & Record<string, unknown>;

export interface DocDependency {
  dependent: string;
  blocker: string;
  gate_point?: string;
  satisfaction?: string;
  source?: string;
  session_id?: number | null;
  rationale?: string;
  evidence?: Record<string, unknown>;
  evidence_json?: string;
  created_at?: string;
}

export interface DocTask {
  task_num: number;
  dependencies?: number[];
  [column: string]: unknown;
}

export interface DocEpic {
  epic: string;
  tasks?: DocTask[];
  files?: { task_num: number; file_path: string; action?: string | null }[];
  chains?: ({ worktree: string; queue?: number[] } & Record<string, unknown>)[];
  notes?: { task_num: number; note_num: number; body: string; author?: string | null; created_at?: string }[];
}

export interface DocVerdict {
  key?: number;
  item: string;
  transition: string;
  worker: string;
  verdict: string;
  caveats?: string | null;
  attempt?: number;
  created_at?: string;
}

export interface DocDisposition {
  item: string;
  transition: string;
  attempt?: number;
  caveat_num: number;
  caveat_text: string;
  disposition: string;
  resolution_details?: string | null;
  verdict_key?: number | null;
  created_at?: string;
}

export interface DocFlow {
  id: string;
  name: string;
  stages?: unknown[];
  target_tier?: string | null;
  done_description?: string | null;
  active?: boolean;
  closing?: boolean;
  complete_before_done?: boolean;
  created_at?: string;
}

export interface DocEnvironment {
  name: string;
  tier?: string | null;
  flow_id?: string | null;
  created_at?: string;
  retired_at?: string | null;
}

export interface DocRun {
  id?: string;
  flow_id?: string | null;
  environment: string;
  status?: string;
  current_stage?: string | null;
  stage_index?: number;
  stage_count?: number;
  items: string[];
  qa_summary?: string | null;
  blocked_reason?: string | null;
  started_at?: string;
  finished_at?: string | null;
  approvals?: DocApproval[];
}

export interface DocApproval {
  stage_index: number;
  stage: string;
  item?: string | null;
  approved_by?: string | null;
  approver_role: 'member' | 'admin';
  approved_at: string;
}

export interface BacklogDocument {
  format: string;
  project: {
    id: string;
    name?: string;
    public_item_prefix: string;
    next_sequence?: number;
    policy?: Record<string, unknown>;
  };
  workflows?: { id: string; name?: string; versions: { version: number; definition: WorkflowDefinition }[] }[];
  items?: DocItem[];
  dependencies?: DocDependency[];
  epics?: DocEpic[];
  records?: { shepherd_verdicts?: DocVerdict[]; caveat_dispositions?: DocDisposition[] };
  deployments?: { flows?: DocFlow[]; environments?: DocEnvironment[]; runs?: DocRun[] };
}

export type ImportSummary = ImportResponse;

export type SnapshotList = ProjectSnapshotList;
export type Snapshot = ProjectSnapshot;
