import type { BlockerFacts } from '../dependencies/satisfaction';

export const ADAPTER_CATEGORIES = [
  'refine',
  'shepherd',
  'conduct',
  'polish',
  'usher',
  'wait',
  'skip',
  'advance',
  'dash',
  'blitz',
] as const;
export type AdapterCategory = (typeof ADAPTER_CATEGORIES)[number];

export const PRIORITIES = ['high', 'medium', 'low'] as const;
export type Priority = (typeof PRIORITIES)[number];

export const CHARGE_RELEVANT_STATUSES = [
  'idea',
  'refining-idea',
  'refined-idea',
  'plan-drafted',
  'refining-plan',
  'planning',
  'planned',
  'implementing',
  'reviewing-implementation',
  'reviewed-implementation',
  'polishing-implementation',
  'implemented',
  'release',
] as const;

export interface StageAdapters {
  issue: AdapterCategory;
  epic: AdapterCategory;
}

// Issues skip maturation. An issue implementing or in implementation review is re-entry (advance); an epic there
// keeps dispatching its tasks (conduct), the work the WIP cap suppresses.
export const DEFAULT_STAGE_ADAPTERS: Readonly<Record<string, StageAdapters>> = {
  idea: { issue: 'refine', epic: 'refine' },
  'refining-idea': { issue: 'refine', epic: 'refine' },
  'refined-idea': { issue: 'conduct', epic: 'shepherd' },
  'plan-drafted': { issue: 'refine', epic: 'refine' },
  'refining-plan': { issue: 'refine', epic: 'refine' },
  planning: { issue: 'conduct', epic: 'shepherd' },
  planned: { issue: 'conduct', epic: 'conduct' },
  implementing: { issue: 'advance', epic: 'conduct' },
  'reviewing-implementation': { issue: 'advance', epic: 'conduct' },
  'reviewed-implementation': { issue: 'polish', epic: 'polish' },
  'polishing-implementation': { issue: 'polish', epic: 'polish' },
  implemented: { issue: 'usher', epic: 'usher' },
  release: { issue: 'usher', epic: 'usher' },
  done: { issue: 'skip', epic: 'skip' },
  cancelled: { issue: 'skip', epic: 'skip' },
  stopped: { issue: 'skip', epic: 'skip' },
  failed: { issue: 'skip', epic: 'skip' },
};

// Statuses outside the table are exceptional for the frontier: wait.
export function defaultStageAdapter(status: string, isEpic: boolean): AdapterCategory {
  const entry = Object.prototype.hasOwnProperty.call(DEFAULT_STAGE_ADAPTERS, status)
    ? DEFAULT_STAGE_ADAPTERS[status]
    : undefined;
  return entry ? (isEpic ? entry.epic : entry.issue) : 'wait';
}

export interface FrontierInputItem {
  id: number;
  ref: string;
  title: string;
  status: string;
  priority: string;
  project: string;
  workflowId: string;
  workflowVersionId: number;
  frozen: boolean;
  blocked: boolean;
  blockedReason: string | null;
  createdAt: string;
  stageAdapter: AdapterCategory;
  // larger = closer to done
  lifecycleRank: number;
  isEpic: boolean;
}

export interface FrontierEdge {
  blocker: number;
  dependent: number;
  satisfaction: string;
}

export interface FrontierInput {
  items: readonly FrontierInputItem[];
  edges: readonly FrontierEdge[];
  blockerFacts: ReadonlyMap<number, BlockerFacts>;
  wipCap: number;
  acceptForeignRuns?: boolean;
}

export interface FrontierItem {
  item_id: number;
  ref: string;
  title: string;
  status: string;
  priority: string;
  project: string;
  workflow_id: string;
  workflow_version_id: number;
  adapter: AdapterCategory;
  blocked_by: readonly number[];
  blocked_reasons: readonly string[];
  unblocks_count: number;
  downstream_depth: number;
  created_at: string;
  // in-process only; not part of the wire shape
  stage_adapter: AdapterCategory;
  lifecycle_rank: number;
  is_epic: boolean;
  frozen: boolean;
  blocked_flag: boolean;
}

export interface FrontierComputation {
  runnable: FrontierItem[];
  blocked: FrontierItem[];
  frozen: FrontierItem[];
  wip_cap: number;
  wip_active: number;
  conduct_eligible: FrontierItem[];
  // max(0, wip_cap - wip_active)
  wip_remaining: number;
  wip_suppressed: FrontierItem[];
  // internal ids, first id repeated last
  cycles: number[][];
}

export const RANKING_KEYS = [
  'priority',
  'downstream_depth',
  'unblocks_count',
  'lifecycle_stage',
  'created_at',
  'item_id',
] as const;
export type RankingKey = (typeof RANKING_KEYS)[number];
