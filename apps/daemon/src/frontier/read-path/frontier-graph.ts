import {
  alignItems,
  BlockerFacts,
  ChangeAwareFacts,
  DeploymentHalt,
  FrontierEdge,
  FrontierInputItem,
  isTerminalStatus,
  recordedEdit,
  recordEdit,
  recordItemsPatch,
} from '@app/core';

import { FactsById } from './facts-by-id';
import { BlockerRow, CandidateRow, EdgeRow, EnvironmentRow, ProjectRow, RunRow } from './frontier.repository';
import { lifecycleRankOf, stageAdapterOf, WorkflowStages } from './workflow-stages';

export interface ProjectGraph {
  project: ProjectRow;
  items: FrontierInputItem[];
  activation: FrontierEdge[];
  edges: EdgeRow[];
  facts: ReadonlyMap<number, BlockerFacts>;
  workflows: Map<number, WorkflowStages>;
  environments: Map<string, Map<string, EnvironmentRow>>;
  runs: RunRow[];
  halts: ReadonlyMap<number, DeploymentHalt>;
  blockerProjects: Map<number, string>;
  refOf: (id: number) => string | undefined;
  refSource?: RefSource;
  positions?: Map<number, number>;
}

// A ref is an item's for good, so an older version still answers the refs it wrote.
export interface RefSource {
  facts: ReadonlyMap<number, BlockerFacts>;
  retired?: Map<number, string>;
}

const NO_ENVIRONMENTS: ReadonlySet<string> = new Set();
const NO_IDS: ReadonlySet<number> = new Set();
const EMPTY_ORDER: readonly string[] = [];

export function usesDeployedForm(edges: readonly EdgeRow[]): boolean {
  for (const edge of edges) if (edge.satisfaction.startsWith('fact:deployed:')) return true;
  return false;
}

export interface GraphRows {
  project: ProjectRow;
  candidates: CandidateRow[];
  edges: EdgeRow[];
  outside: BlockerRow[];
  workflows: Map<number, WorkflowStages>;
  runs: RunRow[];
  environments: EnvironmentRow[];
  halts?: ReadonlyMap<number, DeploymentHalt>;
  // projects of another organization: their items gate this project's as blockers but are sealed
  foreignProjects?: ReadonlySet<string>;
}

// Untouched rows keep their object, so their input item and facts are taken over; rows are in id order in both
// builds, so a side-by-side walk finds them without hashing (WeakMaps cost build time and ephemeron work per full GC).
// The reuse owns its candidates and their facts (a build takes a copy of the rows' array), so a patch or a growth
// updates them in place: a copy of both per write cost more than the write at scale.
export class GraphReuse {
  candidates: CandidateRow[] = [];
  items: readonly FrontierInputItem[] = [];
  candidateFacts: BlockerFacts[] = [];
  outside: readonly BlockerRow[] = [];
  outsideFacts: readonly BlockerFacts[] = [];
  runs: RunRow[] | null = null;
  environments: EnvironmentRow[] | null = null;

  patched(
    items: readonly FrontierInputItem[],
    replaced: readonly { at: number; row: CandidateRow; facts: BlockerFacts }[],
  ): void {
    this.items = items;
    for (const r of replaced) {
      this.candidates[r.at] = r.row;
      this.candidateFacts[r.at] = r.facts;
    }
  }

  grew(items: readonly FrontierInputItem[], rows: readonly CandidateRow[], facts: readonly BlockerFacts[]): void {
    for (const row of rows) this.candidates.push(row);
    for (const f of facts) this.candidateFacts.push(f);
    this.items = items;
  }

  shrank(items: readonly FrontierInputItem[], at: readonly number[]): void {
    this.candidates = withoutPositions(this.candidates, at);
    this.candidateFacts = withoutPositions(this.candidateFacts, at);
    this.items = items;
  }

  joined(items: readonly FrontierInputItem[], rows: readonly CandidateRow[], facts: readonly BlockerFacts[]): void {
    const candidates: CandidateRow[] = [];
    const candidateFacts: BlockerFacts[] = [];
    let j = 0;
    for (let i = 0; i < this.candidates.length; i++) {
      while (j < rows.length && rows[j].id < this.candidates[i].id) {
        candidates.push(rows[j]);
        candidateFacts.push(facts[j++]);
      }
      candidates.push(this.candidates[i]);
      candidateFacts.push(this.candidateFacts[i]);
    }
    for (; j < rows.length; j++) {
      candidates.push(rows[j]);
      candidateFacts.push(facts[j]);
    }
    this.candidates = candidates;
    this.candidateFacts = candidateFacts;
    this.items = items;
  }
}

// A few taken out of a whole copy (one block move each), many by copying what is left.
function withoutPositions<T>(list: readonly T[], at: readonly number[]): T[] {
  if (at.length <= 16) {
    const copy = list.slice();
    for (let i = at.length - 1; i >= 0; i--) copy.splice(at[i], 1);
    return copy;
  }
  const out: T[] = [];
  let from = 0;
  for (const k of at) {
    for (let i = from; i < k; i++) out.push(list[i]);
    from = k + 1;
  }
  for (let i = from; i < list.length; i++) out.push(list[i]);
  return out;
}

function candidateInputs(
  row: CandidateRow,
  projectId: string,
  prefix: string,
  workflow: WorkflowStages | undefined,
  environments: { deployed: ReadonlySet<string>; registered: ReadonlySet<string> },
): { item: FrontierInputItem; facts: BlockerFacts } {
  const isEpic = workflow?.isEpic ?? row.workflow_id === 'epic';
  const ref = prefix + row.seq;
  const item: FrontierInputItem = {
    id: row.id,
    ref,
    title: row.title,
    status: row.status,
    priority: row.priority,
    project: projectId,
    workflowId: row.workflow_id,
    workflowVersionId: row.workflow_version_id,
    frozen: row.frozen === 1,
    blocked: row.blocked === 1,
    blockedReason: row.blocked_reason,
    createdAt: row.created_at,
    stageAdapter: stageAdapterOf(workflow, row.status, isEpic),
    lifecycleRank: lifecycleRankOf(workflow, row.status),
    isEpic,
  };
  const facts: BlockerFacts = {
    status: row.status,
    mergedAt: row.merged_at,
    deployedEnvironments: environments.deployed,
    registeredEnvironments: environments.registered,
    stageOrder: workflow?.order ?? EMPTY_ORDER,
    ref,
    title: row.title,
  };
  return { item, facts };
}

// Replaced entries over the last build's map (never mutated), less `gone`. Only get and has are on the hot path.
export class PatchedFacts implements ChangeAwareFacts {
  constructor(
    readonly base: ReadonlyMap<number, BlockerFacts>,
    readonly top: ReadonlyMap<number, BlockerFacts>,
    readonly gone: ReadonlySet<number> = NO_IDS,
  ) {}

  // compute_frontier then looks up only these.
  changedSince(previous: ReadonlyMap<number, BlockerFacts>): Iterable<number> | null {
    if (previous === this.base && this.gone.size === 0) return this.top.keys();
    if (previous === this.base || (previous instanceof PatchedFacts && previous.base === this.base)) {
      const ids = new Set(this.top.keys());
      for (const id of this.gone) ids.add(id);
      if (previous instanceof PatchedFacts) {
        for (const id of previous.top.keys()) ids.add(id);
        for (const id of previous.gone) ids.add(id);
      }
      return ids;
    }
    return null;
  }

  get(id: number): BlockerFacts | undefined {
    const facts = this.top.get(id);
    if (facts !== undefined || (this.gone.size !== 0 && this.gone.has(id))) return facts;
    return this.base.get(id);
  }

  has(id: number): boolean {
    return this.get(id) !== undefined;
  }

  get size(): number {
    return this.merged().size;
  }

  forEach(callback: (value: BlockerFacts, key: number, map: ReadonlyMap<number, BlockerFacts>) => void): void {
    this.merged().forEach((value, key) => callback(value, key, this));
  }

  entries(): MapIterator<[number, BlockerFacts]> {
    return this.merged().entries();
  }

  keys(): MapIterator<number> {
    return this.merged().keys();
  }

  values(): MapIterator<BlockerFacts> {
    return this.merged().values();
  }

  [Symbol.iterator](): MapIterator<[number, BlockerFacts]> {
    return this.merged().entries();
  }

  merged(): Map<number, BlockerFacts> {
    const all = new Map(this.base);
    for (const id of this.gone) all.delete(id);
    for (const [id, facts] of this.top) all.set(id, facts);
    return all;
  }
}

function factLayers(facts: ReadonlyMap<number, BlockerFacts>): {
  base: ReadonlyMap<number, BlockerFacts>;
  top: Map<number, BlockerFacts>;
  gone: Set<number>;
} {
  if (!(facts instanceof PatchedFacts)) return { base: facts, top: new Map(), gone: new Set() };
  return { base: facts.base, top: new Map(facts.top), gone: new Set(facts.gone) };
}

const PATCH_FOLD_AT = 4096;

function laidOver(
  base: ReadonlyMap<number, BlockerFacts>,
  top: ReadonlyMap<number, BlockerFacts>,
  gone: ReadonlySet<number> = NO_IDS,
): ReadonlyMap<number, BlockerFacts> {
  if (top.size + gone.size <= PATCH_FOLD_AT) return new PatchedFacts(base, top, gone);
  if (base instanceof FactsById) return base.with(top, gone);
  const all = new Map(base);
  for (const id of gone) all.delete(id);
  for (const [id, f] of top) all.set(id, f);
  return all;
}

// Invariant: equal to buildProjectGraph over the same rows, at the cost of the rows changed.
export function patchProjectGraph(
  previous: ProjectGraph,
  rows: readonly CandidateRow[],
  workflows: ReadonlyMap<number, WorkflowStages>,
  reuse?: GraphReuse,
): ProjectGraph {
  const prefix = `${previous.project.public_item_prefix}-`;
  let positions = previous.positions;
  if (positions === undefined) {
    positions = new Map();
    for (let i = 0; i < previous.items.length; i++) positions.set(previous.items[i].id, i);
  }
  const items = previous.items.slice();
  const { base, top, gone } = factLayers(previous.facts);
  const replaced: { at: number; row: CandidateRow; facts: BlockerFacts }[] = [];
  for (const row of rows) {
    const at = positions.get(row.id);
    const before = previous.facts.get(row.id);
    if (at === undefined || before === undefined) throw new Error(`patchProjectGraph: ${row.id} is not a candidate`);
    const built = candidateInputs(row, previous.project.id, prefix, workflows.get(row.workflow_version_id), {
      deployed: before.deployedEnvironments,
      registered: before.registeredEnvironments,
    });
    items[at] = built.item;
    top.set(row.id, built.facts);
    replaced.push({ at, row, facts: built.facts });
  }
  recordItemsPatch(
    items,
    previous.items,
    replaced.map((r) => r.at),
  );
  if (reuse !== undefined && reuse.items === previous.items) reuse.patched(items, replaced);
  const facts = laidOver(base, top, gone);
  return {
    ...previous,
    items,
    facts,
    positions,
    // refs are prefix and seq: the same refOf tells the serializer no blocker's ref changed
    refOf: previous.refOf,
  };
}

// The input items and facts of candidates new to a graph, laid over its facts; `check` refuses a row out of place.
function newCandidates(
  previous: ProjectGraph,
  rows: readonly CandidateRow[],
  workflows: ReadonlyMap<number, WorkflowStages>,
  check: (row: CandidateRow) => void,
) {
  const prefix = `${previous.project.public_item_prefix}-`;
  const registered = previous.environments.get(previous.project.id);
  const projectEnvironments = registered === undefined ? NO_ENVIRONMENTS : new Set(registered.keys());
  const added: FrontierInputItem[] = [];
  const addedFacts: BlockerFacts[] = [];
  const { base, top, gone } = factLayers(previous.facts);
  for (const row of rows) {
    check(row);
    const built = candidateInputs(row, previous.project.id, prefix, workflows.get(row.workflow_version_id), {
      deployed: NO_ENVIRONMENTS,
      registered: projectEnvironments,
    });
    added.push(built.item);
    addedFacts.push(built.facts);
    top.set(row.id, built.facts);
    gone.delete(row.id);
  }
  return { added, addedFacts, base, top, gone };
}

// Invariant: equal to buildProjectGraph over the same rows, with only the arrays' ends extended.
export function growProjectGraph(
  previous: ProjectGraph,
  rows: readonly CandidateRow[],
  edges: readonly EdgeRow[],
  workflows: ReadonlyMap<number, WorkflowStages>,
  reuse?: GraphReuse,
): ProjectGraph {
  let last = previous.items.length > 0 ? previous.items[previous.items.length - 1].id : -Infinity;
  const { added, addedFacts, base, top, gone } = newCandidates(previous, rows, workflows, (row) => {
    if (!(row.id > last)) throw new Error(`growProjectGraph: ${row.id} does not come after the candidates`);
    last = row.id;
  });
  let lastEdge = previous.edges.length > 0 ? previous.edges[previous.edges.length - 1].id! : -Infinity;
  for (const edge of edges) {
    if (!(edge.id! > lastEdge)) throw new Error(`growProjectGraph: edge ${edge.id} does not come after the edges`);
    lastEdge = edge.id!;
  }
  // concat, not spread: a copy of 100k entries in half the time (Node 20). Recorded as edits of the arrays before, so
  // the next run aligns them without comparing their entries (recordEdit).
  const items = previous.items.concat(added);
  const allEdges = previous.edges.concat(edges);
  const activation =
    previous.activation.length === previous.edges.length && edges.every((e) => e.g === 'activation')
      ? allEdges
      : previous.activation.concat(edges.filter((e) => e.g === 'activation'));
  recordEdit(items, previous.items);
  recordEdit(allEdges, previous.edges);
  if (activation !== allEdges) recordEdit(activation, previous.activation);
  carryEdgeIds(allEdges, previous.edges);
  if (activation !== allEdges) carryEdgeIds(activation, previous.activation);
  if (reuse !== undefined && reuse.items === previous.items) reuse.grew(items, rows, addedFacts);
  // the positions so far are still right; older versions never look up the new ones
  const positions = previous.positions;
  if (positions !== undefined) added.forEach((item, k) => positions.set(item.id, previous.items.length + k));
  const facts = laidOver(base, top, gone);
  return {
    ...previous,
    items,
    activation,
    edges: allEdges,
    facts,
    positions,
    ...grownRefs(previous, facts),
  };
}

const edgeId = (edge: FrontierEdge): number => (edge as Partial<EdgeRow>).id!;

function mergedById<T>(a: readonly T[], b: readonly T[], idOf: (entry: T) => number): T[] {
  if (b.length === 0) return a.slice();
  const out: T[] = [];
  let j = 0;
  for (const entry of a) {
    while (j < b.length && idOf(b[j]) < idOf(entry)) out.push(b[j++]);
    out.push(entry);
  }
  while (j < b.length) out.push(b[j++]);
  return out;
}

// Invariant: equal to buildProjectGraph over the same rows, at one merge's cost (the caller checks the rest).
export function joinProjectGraph(
  previous: ProjectGraph,
  rows: readonly CandidateRow[],
  edges: readonly EdgeRow[],
  workflows: ReadonlyMap<number, WorkflowStages>,
  reuse?: GraphReuse,
): ProjectGraph {
  let blockerProjects = previous.blockerProjects;
  let last = -Infinity;
  const { added, addedFacts, base, top, gone } = newCandidates(previous, rows, workflows, (row) => {
    if (!(row.id > last) || positionOf(previous.items, row.id) >= 0) {
      throw new Error(`joinProjectGraph: ${row.id} is a candidate already, or out of order`);
    }
    last = row.id;
    if (blockerProjects.has(row.id)) {
      if (blockerProjects === previous.blockerProjects) blockerProjects = new Map(blockerProjects);
      blockerProjects.delete(row.id);
    }
  });
  for (let k = 1; k < edges.length; k++) {
    if (!(edges[k].id! > edges[k - 1].id!)) throw new Error(`joinProjectGraph: edge ${edges[k].id} out of order`);
  }
  const items = mergedById(previous.items, added, (item) => item.id);
  const allEdges = mergedById(previous.edges, edges, edgeId);
  const activation =
    previous.activation.length === previous.edges.length && edges.every((e) => e.g === 'activation')
      ? allEdges
      : mergedById<FrontierEdge>(
          previous.activation,
          edges.filter((e) => e.g === 'activation'),
          edgeId,
        );
  if (reuse !== undefined && reuse.items === previous.items) reuse.joined(items, rows, addedFacts);
  const facts = laidOver(base, top, gone);
  return {
    ...previous,
    items,
    activation,
    edges: allEdges,
    facts,
    blockerProjects,
    // later positions moved: the next patch maps them again
    positions: undefined,
    ...grownRefs(previous, facts),
  };
}

function positionOf(items: readonly FrontierInputItem[], id: number): number {
  let low = 0;
  let high = items.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const at = items[mid].id;
    if (at === id) return mid;
    if (at < id) low = mid + 1;
    else high = mid - 1;
  }
  return -1;
}

// Candidates leaving for a terminal status, and edges removed (by id). A departed item stays an outside blocker while
// an edge names it, and an outside blocker no edge names any more leaves. Invariant: equal to buildProjectGraph over
// the same rows. `dropped`: the ids no longer outside blockers.
export function shrinkProjectGraph(
  previous: ProjectGraph,
  departed: readonly BlockerRow[],
  reuse?: GraphReuse,
  removedEdges: ReadonlySet<number> = NO_IDS,
): { graph: ProjectGraph; dropped: number[] } {
  const leaving = new Map<number, BlockerRow>();
  const at: number[] = [];
  for (const row of departed) {
    const k = positionOf(previous.items, row.id);
    if (k < 0 || row.project !== previous.project.id || !isTerminalStatus(row.status)) {
      throw new Error(`shrinkProjectGraph: ${row.id} is not a candidate leaving for a terminal status`);
    }
    if (!leaving.has(row.id)) at.push(k);
    leaving.set(row.id, row);
  }
  at.sort((a, b) => a - b);
  // only edges removed: the items array and its positions stay
  const items = at.length === 0 ? previous.items : withoutPositions(previous.items, at);
  const reconsidered = new Set<number>(leaving.keys());
  const goes = (edge: FrontierEdge): boolean => leaving.has(edge.dependent) || removedEdges.has(edgeId(edge));
  // a dependency's removal, the usual shrink: its edges found by id, the rest copied in runs
  const onlyEdges = leaving.size === 0 && removedEdges.size <= FEW_EDGES;
  const removedAt = onlyEdges ? edgePositions(previous.edges, removedEdges) : null;
  let edges: EdgeRow[];
  if (removedAt !== null) {
    edges = withoutPositions(previous.edges, removedAt);
    recordEdit(edges, previous.edges, removedAt);
    carryEdgeIds(edges, previous.edges);
    for (const k of removedAt) {
      const { blocker } = previous.edges[k];
      if (previous.blockerProjects.has(blocker)) reconsidered.add(blocker);
    }
  } else {
    edges = [];
    for (const edge of previous.edges) {
      if (goes(edge)) {
        if (previous.blockerProjects.has(edge.blocker)) reconsidered.add(edge.blocker);
      } else edges.push(edge);
    }
  }
  const named = new Set<number>();
  if (reconsidered.size > 0) for (const edge of edges) if (reconsidered.has(edge.blocker)) named.add(edge.blocker);
  let activation: FrontierEdge[] = edges;
  if (previous.activation !== previous.edges) {
    const activationAt = onlyEdges ? edgePositions(previous.activation, removedEdges) : null;
    activation =
      activationAt === null
        ? previous.activation.filter((e) => !goes(e))
        : withoutPositions(previous.activation, activationAt);
    if (activationAt !== null) {
      recordEdit(activation, previous.activation, activationAt);
      carryEdgeIds(activation, previous.activation);
    }
  }
  const { base, top, gone } = factLayers(previous.facts);
  let blockerProjects = previous.blockerProjects;
  const own = () =>
    blockerProjects === previous.blockerProjects ? (blockerProjects = new Map(blockerProjects)) : blockerProjects;
  const retired = new Map<number, string>();
  const dropped: number[] = [];
  for (const id of reconsidered) {
    const row = leaving.get(id);
    const before = previous.facts.get(id);
    if (named.has(id)) {
      if (row === undefined) continue;
      // as a load builds an outside blocker's facts; the delivery rows are the same, so are its environments
      top.set(id, {
        status: row.status,
        mergedAt: row.merged_at,
        deployedEnvironments: before?.deployedEnvironments ?? NO_ENVIRONMENTS,
        registeredEnvironments: before?.registeredEnvironments ?? NO_ENVIRONMENTS,
        stageOrder: previous.workflows.get(row.workflow_version_id)?.order ?? EMPTY_ORDER,
        ref: `${row.prefix}-${row.seq}`,
        title: row.title,
      });
      own().set(id, row.project);
      continue;
    }
    top.delete(id);
    gone.add(id);
    if (blockerProjects.has(id)) own().delete(id);
    if (before?.ref !== undefined) retired.set(id, before.ref);
    dropped.push(id);
  }
  if (reuse !== undefined && reuse.items === previous.items && at.length > 0) reuse.shrank(items, at);
  const facts = laidOver(base, top, gone);
  return {
    graph: {
      ...previous,
      items,
      activation,
      edges,
      facts,
      blockerProjects,
      // later positions moved: the next patch maps them again
      positions: at.length === 0 ? previous.positions : undefined,
      ...grownRefs(previous, facts, retired),
    },
    dropped,
  };
}

// Edges are not in id order (a load reads them unordered): a pass comparing ids, which stops when all are found. From
// the end, where the grow step puts new edges: an edge removed soon after it was added is found first.
const FEW_EDGES = 16;

function edgePositions(list: readonly FrontierEdge[], removed: ReadonlySet<number>): number[] {
  const at: number[] = [];
  const ids = [...removed];
  const listIds = edgeIdsOf(list);
  for (let k = list.length - 1; k >= 0 && at.length < ids.length; k--) {
    const id = listIds[k];
    for (let r = 0; r < ids.length; r++) {
      if (ids[r] === id) {
        at.push(k);
        break;
      }
    }
  }
  return at.reverse();
}

// An edge list's ids in a typed array, kept per list while it lives: the pass above read every edge object (a cache
// miss each at 100k, 1.6 ms a removal). Once a removal has read them, each list the grow or removal step makes from a
// list with known ids (recordEdit) takes that list's ids in runs and reads only its own new edges (`carryEdgeIds`), so
// the ids stay known along the versions a project's writes make.
const edgeIds = new WeakMap<readonly FrontierEdge[], Float64Array>();

function edgeIdsOf(list: readonly FrontierEdge[]): Float64Array {
  let ids = edgeIds.get(list);
  if (ids !== undefined) return ids;
  ids = new Float64Array(list.length);
  const edit = recordedEdit(list);
  const base = edit === undefined ? undefined : edgeIds.get(edit.base);
  let to = 0;
  if (base !== undefined) {
    let from = 0;
    for (const at of edit!.removed) {
      ids.set(base.subarray(from, at), to);
      to += at - from;
      from = at + 1;
    }
    const rest = Math.min(base.length - from, list.length - to);
    ids.set(base.subarray(from, from + rest), to);
    to += rest;
  }
  for (let k = to; k < list.length; k++) ids[k] = edgeId(list[k]);
  edgeIds.set(list, ids);
  return ids;
}

// After `list` was made from `base` (and recorded so): its ids, if base's are known.
function carryEdgeIds(list: readonly FrontierEdge[], base: readonly FrontierEdge[]): void {
  if (list !== base && edgeIds.has(base)) edgeIdsOf(list);
}

function refsThrough(refSource: RefSource): Pick<ProjectGraph, 'refOf' | 'refSource'> {
  return { refOf: (id) => refSource.facts.get(id)?.ref ?? refSource.retired?.get(id), refSource };
}

// Refs never change, so the grown graph keeps refOf and tells the serializer no ref it wrote changed.
function grownRefs(
  previous: ProjectGraph,
  facts: ReadonlyMap<number, BlockerFacts>,
  retired: ReadonlyMap<number, string> = new Map(),
): Pick<ProjectGraph, 'refOf' | 'refSource'> {
  const refSource = previous.refSource ?? { facts };
  refSource.facts = facts;
  if (retired.size > 0) {
    refSource.retired ??= new Map();
    for (const [id, ref] of retired) refSource.retired.set(id, ref);
  }
  return previous.refSource === undefined ? refsThrough(refSource) : { refOf: previous.refOf, refSource };
}

export function buildProjectGraph(rows: GraphRows, reuse?: GraphReuse): ProjectGraph {
  const { project, workflows } = rows;
  const sameDelivery =
    reuse !== undefined &&
    ((reuse.runs === rows.runs && reuse.environments === rows.environments) ||
      (reuse.runs?.length === 0 &&
        rows.runs.length === 0 &&
        reuse.environments?.length === 0 &&
        rows.environments.length === 0));
  const candidateAt = reuse === undefined ? null : alignItems(rows.candidates, reuse.candidates);
  const outsideAt = reuse === undefined || !sameDelivery ? null : alignItems(rows.outside, reuse.outside);
  const prefix = `${project.public_item_prefix}-`;
  const registered = new Map<string, Set<string>>();
  const environments = new Map<string, Map<string, EnvironmentRow>>();
  for (const env of rows.environments) {
    let names = registered.get(env.project);
    if (!names) registered.set(env.project, (names = new Set()));
    names.add(env.name);
    let byName = environments.get(env.project);
    if (!byName) environments.set(env.project, (byName = new Map()));
    byName.set(env.name, env);
  }
  const deployed = new Map<number, Set<string>>();
  for (const run of rows.runs) {
    if (run.status !== 'succeeded') continue;
    let set = deployed.get(run.item_id);
    if (!set) deployed.set(run.item_id, (set = new Set()));
    set.add(run.environment);
  }

  const items: FrontierInputItem[] = new Array<FrontierInputItem>(rows.candidates.length);
  const candidateFacts: BlockerFacts[] = new Array<BlockerFacts>(rows.candidates.length);
  const facts = FactsById.forRows(rows.candidates, rows.outside);
  const projectEnvironments = registered.get(project.id) ?? NO_ENVIRONMENTS;
  for (let i = 0; i < rows.candidates.length; i++) {
    const row = rows.candidates[i];
    const was = candidateAt === null ? -1 : candidateAt[i];
    if (was >= 0 && sameDelivery) {
      items[i] = reuse.items[was];
      candidateFacts[i] = reuse.candidateFacts[was];
      facts.set(row.id, candidateFacts[i]);
      continue;
    }
    const built = candidateInputs(row, project.id, prefix, workflows.get(row.workflow_version_id), {
      deployed: deployed.get(row.id) ?? NO_ENVIRONMENTS,
      registered: projectEnvironments,
    });
    items[i] = was >= 0 ? reuse!.items[was] : built.item;
    candidateFacts[i] = built.facts;
    facts.set(row.id, built.facts);
  }
  const blockerProjects = new Map<number, string>();
  const outsideFacts: BlockerFacts[] = new Array<BlockerFacts>(rows.outside.length);
  for (let i = 0; i < rows.outside.length; i++) {
    const row = rows.outside[i];
    blockerProjects.set(row.id, row.project);
    const was = outsideAt === null ? -1 : outsideAt[i];
    const sealed = rows.foreignProjects?.has(row.project) === true;
    if (was >= 0 && (reuse!.outsideFacts[was].sealed === true) === sealed) {
      outsideFacts[i] = reuse!.outsideFacts[was];
      facts.set(row.id, outsideFacts[i]);
      continue;
    }
    const ref = `${row.prefix}-${row.seq}`;
    const rowFacts: BlockerFacts = {
      status: row.status,
      mergedAt: row.merged_at,
      deployedEnvironments: deployed.get(row.id) ?? NO_ENVIRONMENTS,
      registeredEnvironments: registered.get(row.project) ?? NO_ENVIRONMENTS,
      stageOrder: workflows.get(row.workflow_version_id)?.order ?? EMPTY_ORDER,
      ref,
      title: row.title,
      ...(sealed ? { sealed } : {}),
    };
    outsideFacts[i] = rowFacts;
    facts.set(row.id, rowFacts);
  }
  let activation: EdgeRow[] = rows.edges;
  for (const edge of rows.edges) {
    if (edge.g !== 'activation') {
      activation = rows.edges.filter((e) => e.g === 'activation');
      break;
    }
  }
  if (reuse !== undefined) {
    reuse.candidates = rows.candidates.slice();
    reuse.items = items;
    reuse.candidateFacts = candidateFacts;
    reuse.outside = rows.outside;
    reuse.outsideFacts = outsideFacts;
    reuse.runs = rows.runs;
    reuse.environments = rows.environments;
  }
  return {
    project,
    items,
    activation,
    edges: rows.edges,
    facts,
    workflows,
    environments,
    runs: rows.runs,
    halts: rows.halts ?? new Map(),
    blockerProjects,
    ...refsThrough({ facts }),
  };
}

export type DeliveryState = 'live' | 'deploying' | 'not deployed' | 'unregistered';

const IN_FLIGHT = new Set(['pending', 'running', 'halted']);

export function deliveryState(
  graph: ProjectGraph,
  blocker: number,
  environment: string,
): { delivery_state: DeliveryState; in_delivery_flow: boolean } {
  const facts = graph.facts.get(blocker);
  const blockerProject = graph.blockerProjects.get(blocker) ?? graph.project.id;
  const env = graph.environments.get(blockerProject)?.get(environment);
  const inFlow = env?.in_flow ?? false;
  if (!env) return { delivery_state: 'unregistered', in_delivery_flow: false };
  if (facts?.deployedEnvironments.has(environment)) return { delivery_state: 'live', in_delivery_flow: inFlow };
  const deploying = graph.runs.some(
    (r) => r.item_id === blocker && r.environment === environment && IN_FLIGHT.has(r.status),
  );
  return { delivery_state: deploying ? 'deploying' : 'not deployed', in_delivery_flow: inFlow };
}

export function terminalBlocker(graph: ProjectGraph, blocker: number): boolean {
  return isTerminalStatus(graph.facts.get(blocker)?.status ?? null);
}
