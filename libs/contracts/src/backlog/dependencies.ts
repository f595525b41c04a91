// libs/core declares the same lists (it imports no other project code); dependencies-vocabulary.spec.ts in the
// daemon fails when the two drift apart.
export const GATE_POINTS = ['activation', 'integration', 'closure', 'coordination_only'] as const;
export type GatePointWire = (typeof GATE_POINTS)[number];
export const DEPENDENCY_SOURCES = ['shepherd', 'conduct', 'operator', 'migration', 'feed', 'idea', 'refine'] as const;
export type DependencySourceWire = (typeof DEPENDENCY_SOURCES)[number];

export type DependencyDirection = 'depends_on' | 'blocks';

export interface DependencyWire {
  dependent: string | null;
  blocker: string | null;
  gate_point: string;
  satisfaction: string;
  source: string;
  session_id: number | null;
  rationale: string;
  evidence: Record<string, unknown>;
  created_at: string;
}

export interface DependencyListEntryWire extends DependencyWire {
  direction: DependencyDirection;
  // the counterpart's public ref; null when it no longer resolves to an item
  other_item: string | null;
  other_title: string | null;
  other_status: string | null;
  satisfied: boolean;
  reason: string;
}

export interface DependencyAddWire {
  created: boolean;
  dependency: DependencyWire;
}

export interface GateBlockerWire {
  blocker: string | null;
  gate_point: string;
  satisfaction: string;
  reason: string;
  need: string;
  blocker_status: string | null;
  blocker_title: string | null;
  blocking_terminal: boolean;
  blocking_abandoned: boolean;
}

export interface GateEvaluationWire {
  item_id: string;
  gate_point: string;
  satisfied: boolean;
  blockers: GateBlockerWire[];
}

export interface CandidatePlanWire {
  gate_point: string;
  eligible: string[];
  blocked: { item_id: string; blockers: GateBlockerWire[]; reasons: string[]; cycle: string[] | null }[];
}

export interface DependencyListResponse {
  item_id: string;
  dependencies: DependencyListEntryWire[];
}

export interface DependencyRemovedResponse {
  removed: boolean;
  dependent: string;
  blocker: string;
  gate_point: string;
}

export interface GateEvaluationResponse {
  gate_point: string;
  evaluations: GateEvaluationWire[];
}
