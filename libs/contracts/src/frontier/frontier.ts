export type FrontierBucket = 'runnable' | 'blocked' | 'frozen' | 'not_candidate';

export interface FrontierItemWire {
  item_id: string;
  title: string;
  status: string;
  priority: string;
  project: string;
  workflow_id: string;
  workflow_version_id: number;
  // adapter category: refine, shepherd, conduct, advance, polish, usher, wait, ...
  adapter: string;
  blocked_by: string[];
  blocked_reasons: string[];
  unblocks_count: number;
  downstream_depth: number;
  created_at: string;
}

export interface FrontierResultWire {
  runnable: FrontierItemWire[];
  blocked: FrontierItemWire[];
  frozen: FrontierItemWire[];
  wip_cap: number;
  wip_active: number;
  conduct_eligible: FrontierItemWire[];
}

// GET /v1/charge/frontier/window: one list of the answer, filtered and sorted by the list query (list-query.ts), a
// window of it. The other lists are empty, conduct_eligible holds the window's eligible rows; `window` says where the
// rows sit (docs/api-frontier.md).
export const FRONTIER_WINDOW_LISTS = ['runnable', 'blocked', 'frozen'] as const;
export type FrontierWindowList = (typeof FRONTIER_WINDOW_LISTS)[number];
export const FRONTIER_WINDOW_MAX_ROWS = 1000;

export interface FrontierWindowMeta {
  list: FrontierWindowList;
  // the first row's place among the rows that pass the filter, in the order asked
  offset: number;
  // rows that pass the filter
  total: number;
  // each list's length in the answer, unfiltered
  totals: Record<FrontierWindowList, number>;
  // each row's place in its list (the frontier's rank, from 0)
  ranks: number[];
  // the runnable conduct items the WIP cap holds back (the WIP line's suppressed count)
  wip_suppressed: number;
  filter: string;
  sort: string;
  desc: boolean;
  // the ETag of the answer the window was cut from
  etag: string;
}

export interface FrontierWindowWire extends FrontierResultWire {
  window: FrontierWindowMeta;
}

export type DeliveryStateWire = string;

export interface DependencyEdgeWire {
  blocker: string | null;
  dependent: string;
  gate_point: string;
  satisfaction: string;
  rationale: string;
  blocker_resolves: boolean;
  blocker_stage: string | null;
  blocker_title: string | null;
  blocking_terminal: boolean;
  blocking_abandoned: boolean;
  reason: string;
  need: string;
  environment: { name: string; delivery_state: DeliveryStateWire; in_delivery_flow: boolean } | null;
}

export interface FrontierListResponse {
  project: string;
  wip_cap: number;
  wip_active: number;
  ready_rows: FrontierItemWire[];
  blocked_rows: FrontierItemWire[];
  frozen_rows: FrontierItemWire[];
  dependency_edges: DependencyEdgeWire[];
}

export interface UnsatisfiedFactWire {
  blocker: string | null;
  satisfaction: string;
  form: string;
  state: string | null;
  blocker_bucket: FrontierBucket;
  reason: string;
  need: string;
}

export interface RankNeighbourWire {
  item_id: string;
  position: number;
  deciding_key: string;
  item_value: string | number;
  neighbour_value: string | number;
  summary: string;
}

export interface ExplainResponse {
  item_id: string;
  project: string;
  status: string;
  bucket: FrontierBucket;
  position: number | null;
  adapter: string | null;
  summary: string[];
  operator_block: string | null;
  unsatisfied: UnsatisfiedFactWire[];
  critical_path: string[];
  unblock_roots: string[];
  stuck: string[];
  ranking: {
    keys: {
      priority: string;
      downstream_depth: number;
      unblocks_count: number;
      lifecycle_stage: string;
      created_at: string;
    };
    above: RankNeighbourWire | null;
    below: RankNeighbourWire | null;
  } | null;
  conduct: 'eligible' | 'suppressed' | null;
  wip_cap: number;
  wip_active: number;
}
