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

export interface EpicTasksResponse {
  epic: string;
  tasks: EpicTaskWire[];
}

export interface TaskFileWire {
  task_num: number;
  file_path: string;
  action: string | null;
}

export interface EpicFilesResponse {
  epic: string;
  files: TaskFileWire[];
}

export interface ChainWire {
  epic: string;
  worktree: string;
  worktree_path: string | null;
  queue: number[];
  current_index: number;
  current_task: string | null;
  current_attempt: number;
  max_attempts: number;
  no_chain: number;
  started_at: string | null;
  last_updated: string | null;
}

export interface EpicChainsResponse {
  epic: string;
  chains: ChainWire[];
}

export interface NoteWire {
  task_num: number;
  note_num: number;
  body: string;
  author: string | null;
  created_at: string;
}

export interface EpicNotesResponse {
  epic: string;
  notes: NoteWire[];
}
