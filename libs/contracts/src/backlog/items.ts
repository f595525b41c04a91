import type { ItemCommentWire } from './comments';

export const PRIORITIES = ['high', 'medium', 'low'] as const;
export type ItemPriority = (typeof PRIORITIES)[number];

export const RESOLUTIONS = ['completed', 'duplicate', 'wontfix'] as const;
export type ItemResolution = (typeof RESOLUTIONS)[number];

export const STRUCTURED_FIELDS = [
  'spec',
  'design_spec',
  'technical_plan',
  'worktree_plan',
  'shepherd_log',
  'shepherd_caveats',
  'test_results',
  'deploy_log',
] as const;
export type StructuredField = (typeof STRUCTURED_FIELDS)[number];

export interface ProjectWire {
  id: string;
  name: string;
  public_item_prefix: string;
  next_sequence: number;
  policy: Record<string, unknown>;
  title_max_length: number;
  organization: string | null;
  created_at: string;
  updated_at: string;
}

// item_id is the public ref; body is rendered on read.
export interface ItemWire {
  item_id: string;
  title: string;
  project: string;
  workflow_id: string;
  workflow_version_id: number;
  workflow_version: number;
  workflow_posture: string;
  status: string;
  priority: string;
  frozen: 0 | 1;
  blocked: 0 | 1;
  blocked_reason: string | null;
  github_issue: string | null;
  deployed_to: string | null;
  body: string;
  merged_at: string | null;
  created_at: string;
  updated_at: string;
  source: string;
  owner: string | null;
  deployment_flow: string | null;
  deploy_stage: string | null;
  spec: string | null;
  design_spec: string | null;
  technical_plan: string | null;
  worktree_plan: string | null;
  shepherd_log: string | null;
  shepherd_caveats: string | null;
  test_results: string | null;
  deploy_log: string | null;
  db_mutation_profile: string;
  db_compatibility_attestation: string;
  spec_updated_at: string | null;
  spec_updated_by: string | null;
  resolution: string | null;
  resolution_ref: string | null;
  resolution_comment: string | null;
  depends_on: string | null;
}

export interface ItemSectionWire {
  section_name: string;
  content: string | null;
  ordering: number;
  created_at: string;
  updated_at: string;
}

export interface ItemDetailWire extends ItemWire {
  sections: ItemSectionWire[];
  comments: ItemCommentWire[];
  comment_count: number;
}

export interface ItemListWire {
  items: ItemWire[];
  total: number;
  limit: number;
  offset: number;
}

export interface ItemFieldWire {
  item_id: string;
  field: string;
  value: unknown;
}

export interface ItemProgressWire {
  item_id: string;
  status: string;
  flow_name: string | null;
  run_id: string | null;
  current_stage: string | null;
  target_environment: string | null;
  stage_progress: string | null;
  done_description: string | null;
  qa_summary: string | null;
  blocked_reason: string | null;
  // where the item's newest run halted, or null
  halt: DeploymentHaltWire | null;
}

// A run stopped at a stage awaiting a human approval, or missing capabilities there.
export interface DeploymentHaltWire {
  kind: 'awaiting-approval' | 'needs-capability';
  stage: string;
  missing: string[];
  since: string;
  // "awaiting approval for production since 3h"
  summary: string;
}

export type ProjectResponse = ProjectWire;

export interface ProjectListResponse {
  projects: ProjectWire[];
}

export type ItemResponse = ItemDetailWire;

export interface ItemSectionResponse {
  item_id: string;
  section: ItemSectionWire;
}

export interface ItemSectionRemovedResponse {
  item_id: string;
  removed: boolean;
}
