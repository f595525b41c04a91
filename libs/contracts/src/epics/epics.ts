export const EPIC_TASK_STATUSES = [
  'planning',
  'plan-drafted',
  'refining-plan',
  'planned',
  'implementing',
  'reviewing-implementation',
  'reviewed-implementation',
  'polishing-implementation',
  'implemented',
  'release',
  'done',
  'failed',
  'blocked',
  'stopped',
] as const;
export const CONTEXT_ESTIMATES = ['S', 'M', 'L', 'XL'] as const;
export const FILE_ACTIONS = ['create', 'modify', 'delete'] as const;

export interface EpicTaskWire {
  epic: string;
  task_num: number;
  title: string | null;
  worktree: string | null;
  context_estimate: string | null;
  dependencies: number[];
  status: string;
  dispatch_attempts: number;
  max_attempts: number;
  body: string | null;
  github_issue: string | null;
  branch: string | null;
  worktree_path: string | null;
  agent_id: string | null;
  last_heartbeat: string | null;
}
