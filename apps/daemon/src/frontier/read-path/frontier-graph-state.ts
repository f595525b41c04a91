import { isTerminalStatus } from '@app/core';

import {
  BlockerRow,
  CandidateRow,
  ChangedItemRow,
  EdgeRow,
  EnvironmentRow,
  ProjectRow,
  RunRow,
  TombstoneRow,
} from './frontier.repository';
import { DeploymentHaltRow } from './deployment-halts';

// Kept between reads so that a write costs a delta, not a reload. `watermark` is the oldest transaction running
// when these rows were last read (see FrontierRepository).
export interface GraphState {
  project: ProjectRow;
  gates: readonly string[];
  watermark: string;
  candidates: Map<number, CandidateRow>;
  outside: Map<number, BlockerRow>;
  edges: Map<number, EdgeRow>;
  runs: RunRow[];
  environments: EnvironmentRow[];
  halts: DeploymentHaltRow[];
  // ids are never reused, so they stay missing
  absent: Set<number>;
}

export interface GraphDelta {
  items: readonly ChangedItemRow[];
  edges: readonly EdgeRow[];
  tombstones: readonly TombstoneRow[];
}

export interface DeltaOutcome {
  changed: boolean;
  reload: boolean;
  newCandidates: number[];
  updated: number[];
  // the graph is rebuilt rather than patched
  shape: boolean;
  // Only candidates updated in place, candidates new or back (an outside blocker back from a terminal status
  // included), candidates of the project to a terminal status, edges added and edges removed: the graph can be
  // reshaped step by step (FrontierGraphCache.composedGraph) rather than built over every row.
  composable: boolean;
  addedEdges: EdgeRow[];
  // edges taken out of the state other than a departed candidate's own (those leave with it)
  removedEdges: number[];
  departed: number[];
}

export function createGraphState(
  project: ProjectRow,
  gates: readonly string[],
  watermark: string,
  rows: { candidates: CandidateRow[]; edges: EdgeRow[]; outside: BlockerRow[] },
): GraphState {
  const state: GraphState = {
    project,
    gates,
    watermark,
    candidates: new Map(),
    outside: new Map(),
    edges: new Map(),
    runs: [],
    environments: [],
    halts: [],
    absent: new Set(),
  };
  for (const row of rows.candidates) state.candidates.set(row.id, row);
  for (const row of rows.outside) state.outside.set(row.id, row);
  rows.edges.forEach((row, i) => state.edges.set(row.id ?? -1 - i, row));
  for (const edge of rows.edges) {
    if (!state.candidates.has(edge.blocker) && !state.outside.has(edge.blocker)) state.absent.add(edge.blocker);
  }
  return state;
}

const CANDIDATE_FIELDS: readonly (keyof CandidateRow)[] = [
  'seq',
  'title',
  'status',
  'priority',
  'workflow_id',
  'workflow_version_id',
  'frozen',
  'blocked',
  'blocked_reason',
  'created_at',
  'merged_at',
];
const BLOCKER_FIELDS: readonly (keyof BlockerRow)[] = [
  'prefix',
  'seq',
  'title',
  'status',
  'merged_at',
  'project',
  'workflow_id',
  'workflow_version_id',
];

function same<T extends object>(a: T | undefined, b: T, fields: readonly (keyof T)[]): boolean {
  if (a === undefined) return false;
  for (const f of fields) if (a[f] !== b[f]) return false;
  return true;
}

function sameEdge(a: EdgeRow | undefined, b: EdgeRow): boolean {
  return (
    a !== undefined &&
    a.blocker === b.blocker &&
    a.dependent === b.dependent &&
    a.satisfaction === b.satisfaction &&
    a.g === b.g &&
    a.r === b.r
  );
}

function toCandidate(row: ChangedItemRow): CandidateRow {
  return {
    id: row.id,
    seq: row.seq,
    title: row.title,
    status: row.status,
    priority: row.priority,
    workflow_id: row.workflow_id,
    workflow_version_id: row.workflow_version_id,
    frozen: row.frozen,
    blocked: row.blocked,
    blocked_reason: row.blocked_reason,
    created_at: row.created_at,
    merged_at: row.merged_at,
  };
}

function toBlocker(row: ChangedItemRow): BlockerRow {
  return {
    id: row.id,
    prefix: row.prefix,
    seq: row.seq,
    title: row.title,
    status: row.status,
    merged_at: row.merged_at,
    project: row.project,
    workflow_id: row.workflow_id,
    workflow_version_id: row.workflow_version_id,
  };
}

function emptyOutcome(): DeltaOutcome {
  return {
    changed: false,
    reload: false,
    newCandidates: [],
    updated: [],
    shape: false,
    composable: true,
    addedEdges: [],
    removedEdges: [],
    departed: [],
  };
}

export const RELOAD: Readonly<DeltaOutcome> = { ...emptyOutcome(), reload: true, changed: true, shape: true };

export function applyDelta(state: GraphState, delta: GraphDelta): DeltaOutcome {
  const outcome = emptyOutcome();
  for (const t of delta.tombstones) {
    if (t.row_id === '*') return { ...RELOAD, composable: false };
    const id = Number(t.row_id);
    if (t.table_name === 'items') {
      state.absent.add(id);
      const candidate = state.candidates.delete(id);
      if (state.outside.delete(id) || candidate) {
        outcome.changed = outcome.shape = true;
        outcome.composable = false;
      }
    } else if (t.table_name === 'item_dependencies' && state.edges.delete(id)) {
      outcome.changed = outcome.shape = true;
      outcome.removedEdges.push(id);
    }
  }
  const leftCandidates = new Set<number>();
  for (const row of delta.items) {
    if (row.project === state.project.id && !isTerminalStatus(row.status)) applyCandidate(state, row, outcome);
    else applyNonCandidate(state, row, outcome, leftCandidates);
  }
  if (leftCandidates.size > 0) {
    for (const [id, edge] of state.edges) {
      if (leftCandidates.has(edge.dependent)) state.edges.delete(id);
    }
  }
  for (const edge of delta.edges) applyEdge(state, edge, outcome);
  return outcome;
}

function applyCandidate(state: GraphState, row: ChangedItemRow, outcome: DeltaOutcome): void {
  const before = state.candidates.get(row.id);
  if (!same(before, row, CANDIDATE_FIELDS)) {
    state.candidates.set(row.id, toCandidate(row));
    outcome.changed = true;
    if (before === undefined) {
      outcome.newCandidates.push(row.id);
      outcome.shape = true;
    } else {
      outcome.updated.push(row.id);
    }
  }
  // back from a terminal status: its facts become a candidate's
  if (state.outside.delete(row.id)) outcome.changed = outcome.shape = true;
}

function applyNonCandidate(
  state: GraphState,
  row: ChangedItemRow,
  outcome: DeltaOutcome,
  leftCandidates: Set<number>,
): void {
  if (state.candidates.delete(row.id)) {
    leftCandidates.add(row.id);
    outcome.changed = outcome.shape = true;
    if (row.project === state.project.id) outcome.departed.push(row.id);
    else outcome.composable = false;
  }
  // kept as an outside blocker until settleOutside finds no edge naming it
  const before = state.outside.get(row.id);
  if (before === undefined && !leftCandidates.has(row.id) && !state.absent.has(row.id)) return;
  if (!same(before, toBlocker(row), BLOCKER_FIELDS)) {
    state.outside.set(row.id, toBlocker(row));
    outcome.shape = true;
    if (before !== undefined) outcome.changed = true;
    if (!leftCandidates.has(row.id)) outcome.composable = false;
  }
}

function applyEdge(state: GraphState, edge: EdgeRow, outcome: DeltaOutcome): void {
  const id = edge.id!;
  if (state.candidates.has(edge.dependent) && state.gates.includes(edge.g)) {
    const before = state.edges.get(id);
    if (!sameEdge(before, edge)) {
      state.edges.set(id, edge);
      outcome.changed = outcome.shape = true;
      if (before === undefined) outcome.addedEdges.push(edge);
      else outcome.composable = false;
    }
  } else if (state.edges.delete(id)) {
    outcome.changed = outcome.shape = true;
    outcome.removedEdges.push(id);
  }
}

export function addEdges(state: GraphState, edges: readonly EdgeRow[]): EdgeRow[] {
  const added: EdgeRow[] = [];
  for (const edge of edges) {
    if (state.candidates.has(edge.dependent) && state.gates.includes(edge.g)) {
      if (!state.edges.has(edge.id!)) added.push(edge);
      state.edges.set(edge.id!, edge);
    }
  }
  return added;
}

// Returns the ids still to read (a vanished blocker stays unread: its facts are absent, as on a full load).
export function settleOutside(state: GraphState): { missing: number[]; changed: boolean } {
  const referenced = new Set<number>();
  for (const edge of state.edges.values()) if (!state.candidates.has(edge.blocker)) referenced.add(edge.blocker);
  let changed = false;
  // unreferenced outside rows change no answer; dropping them keeps the state equal to a full load's
  for (const id of state.outside.keys()) if (!referenced.has(id)) state.outside.delete(id);
  const missing: number[] = [];
  for (const id of referenced) if (!state.outside.has(id) && !state.absent.has(id)) missing.push(id);
  if (missing.length > 0) changed = true;
  return { missing, changed };
}

export function addOutside(state: GraphState, requested: readonly number[], rows: readonly BlockerRow[]): void {
  for (const row of rows) if (!state.candidates.has(row.id)) state.outside.set(row.id, row);
  for (const id of requested) if (!state.outside.has(id) && !state.candidates.has(id)) state.absent.add(id);
}

// Map order is already ascending after most refreshes (new rows have the largest ids), so check first.
function byId<T extends { id?: number }>(rows: Iterable<T>): T[] {
  const list = [...rows];
  for (let i = 1; i < list.length; i++) {
    if (list[i - 1].id! > list[i].id!) return list.sort((a, b) => a.id! - b.id!);
  }
  return list;
}

// A fixed order, so a refreshed graph and a full load are identical inputs.
export function stateRows(state: GraphState): { candidates: CandidateRow[]; edges: EdgeRow[]; outside: BlockerRow[] } {
  return {
    candidates: byId(state.candidates.values()),
    edges: byId(state.edges.values()),
    outside: byId(state.outside.values()),
  };
}
