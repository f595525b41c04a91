import {
  alignItems,
  BlockerFacts,
  ChangeAwareFacts,
  DeploymentHalt,
  FrontierEdge,
  FrontierInputItem,
  isTerminalStatus,
  recordItemsPatch,
} from '@app/core';

import { FactsById } from './facts-by-id';
import { BlockerRow, CandidateRow, EdgeRow, EnvironmentRow, ProjectRow, RunRow } from './frontier.repository';
import { lifecycleRankOf, stageAdapterOf, WorkflowStages } from './workflow-stages';

// One project's frontier inputs, in the core's in-process shapes (internal ids; refs alongside).
export interface ProjectGraph {
  project: ProjectRow;
  items: FrontierInputItem[];
  // activation edges (the frontier computation's input)
  activation: FrontierEdge[];
  // every loaded edge with its gate point and rationale (frontier.list)
  edges: EdgeRow[];
  facts: ReadonlyMap<number, BlockerFacts>;
  workflows: Map<number, WorkflowStages>;
  // environment name → registered for that project, with its delivery-flow reach
  environments: Map<string, Map<string, EnvironmentRow>>;
  runs: RunRow[];
  // item → its deployment pipeline halt (applied after compute_frontier by applyDeploymentHalts)
  halts: ReadonlyMap<number, DeploymentHalt>;
  // projects of blockers outside the candidate set
  blockerProjects: Map<number, string>;
  refOf: (id: number) => string | undefined;
  // the facts refOf reads (a grown or shrunk graph points it at its own: see growProjectGraph)
  refSource?: RefSource;
  // position of each candidate in `items`, built on the first patch and shared by the patched versions
  positions?: Map<number, number>;
}

// What refOf reads: the graph's facts, then the refs of items that left them since the last build (a ref is an
// item's for good, so an older version still answers the refs it wrote).
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
  // projects of another organization than `project`: their items gate this project's as blockers but are sealed
  // (title, status and delivery withheld; issue 36)
  foreignProjects?: ReadonlySet<string>;
}

// What the last build of a project's state derived from its rows, position by position, for the next build: rows a
// refresh left untouched keep their object, so their input item and facts are taken over instead of rebuilt (an edge
// row is its own activation edge). Rows are in id order in both builds, so a side-by-side walk finds them
// (alignItems) at no hashing cost; keyed by row object (WeakMaps) this cost ~50 ms of a 100k-item project's first
// build and ephemeron work in every full GC. Facts also depend on the delivery rows, so they are reused only while
// those are the same arrays.
export class GraphReuse {
  candidates: readonly CandidateRow[] = [];
  items: readonly FrontierInputItem[] = [];
  candidateFacts: readonly BlockerFacts[] = [];
  // rows and facts replaced by patches since `candidates` and `candidateFacts` were set, laid over them when the next
  // build reads them (settle): copying both per patch cost ~50 ms at 1M items
  private pending: { at: number; row: CandidateRow; facts: BlockerFacts }[] = [];
  outside: readonly BlockerRow[] = [];
  outsideFacts: readonly BlockerFacts[] = [];
  runs: RunRow[] | null = null;
  environments: EnvironmentRow[] | null = null;

  // A patch replaced these positions: `items` is the patched graph's.
  patched(
    items: readonly FrontierInputItem[],
    replaced: readonly { at: number; row: CandidateRow; facts: BlockerFacts }[],
  ): void {
    this.items = items;
    for (const r of replaced) this.pending.push(r);
    // amortized: a long run of patches with no build in between folds them in now and then
    if (this.pending.length > (this.candidates.length >> 3) + 64) this.settle();
  }

  // `candidates` and `candidateFacts` as of `items`.
  settle(): void {
    if (this.pending.length === 0) return;
    const candidates = this.candidates.slice();
    const candidateFacts = this.candidateFacts.slice();
    for (const r of this.pending) {
      candidates[r.at] = r.row;
      candidateFacts[r.at] = r.facts;
    }
    this.candidates = candidates;
    this.candidateFacts = candidateFacts;
    this.pending = [];
  }

  // New candidates came after the last ones: `items` is the grown graph's.
  grew(items: readonly FrontierInputItem[], rows: readonly CandidateRow[], facts: readonly BlockerFacts[]): void {
    this.settle();
    this.candidates = [...this.candidates, ...rows];
    this.candidateFacts = [...this.candidateFacts, ...facts];
    this.items = items;
  }

  // Candidates at these positions (ascending) left: `items` is the shrunk graph's.
  shrank(items: readonly FrontierInputItem[], at: readonly number[]): void {
    this.settle();
    this.candidates = withoutPositions(this.candidates, at);
    this.candidateFacts = withoutPositions(this.candidateFacts, at);
    this.items = items;
  }

  // Candidates came among the others (`rows` and their `facts` in id order): `items` is the graph's with them.
  joined(items: readonly FrontierInputItem[], rows: readonly CandidateRow[], facts: readonly BlockerFacts[]): void {
    this.settle();
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

  // A build set every array afresh.
  built(): void {
    this.pending = [];
  }
}

// `list` without the entries at `at` (positions ascending), in one copy: a few taken out of a copy of the whole (one
// block move each, where pushing every entry cost ~1 ms per 66k-entry array), many by copying what is left.
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

// A candidate row's input item and facts (its facts as a blocker of other candidates).
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

// Blocker facts of a patched graph: the replaced entries over the full map of the last build (never mutated), less
// the ids that left it (`gone`, disjoint from `top`). Only get and has are on the hot path; the rest reads a merged
// copy.
export class PatchedFacts implements ChangeAwareFacts {
  constructor(
    readonly base: ReadonlyMap<number, BlockerFacts>,
    readonly top: ReadonlyMap<number, BlockerFacts>,
    readonly gone: ReadonlySet<number> = NO_IDS,
  ) {}

  // The ids that may map to another object than in `previous` (or to none): the replaced and gone ones, when
  // `previous` is this map's base or another patch of it (compute_frontier then looks up only these).
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

// The layers of a graph's facts, copied for the next version to change: its base, replaced entries and gone ids.
function factLayers(facts: ReadonlyMap<number, BlockerFacts>): {
  base: ReadonlyMap<number, BlockerFacts>;
  top: Map<number, BlockerFacts>;
  gone: Set<number>;
} {
  if (!(facts instanceof PatchedFacts)) return { base: facts, top: new Map(), gone: new Set() };
  return { base: facts.base, top: new Map(facts.top), gone: new Set(facts.gone) };
}

// Past this many replaced or gone entries a patch folds them into a new full map (one copy of the map, amortized).
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

// The graph after candidate rows were replaced in place (same candidates, edges, outside blockers and delivery
// rows as `previous`): a new items array with those positions replaced and their facts laid over the previous
// ones, everything else shared. Equal to buildProjectGraph over the same rows, at the cost of the rows changed.
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
  // a run with a memo over the previous items looks at these positions only
  recordItemsPatch(
    items,
    previous.items,
    replaced.map((r) => r.at),
  );
  // the reuse describes this graph from now on (its positions are the items' positions)
  if (reuse !== undefined && reuse.items === previous.items) reuse.patched(items, replaced);
  const facts = laidOver(base, top, gone);
  return {
    ...previous,
    items,
    facts,
    positions,
    // the same candidates (an item's ref is its project's prefix and its seq), so every ref is what it was: the same
    // function, which tells the serializer it need not look at every blocker's ref again (frontier-serializer.ts)
    refOf: previous.refOf,
  };
}

// The graph after new candidates (ids above every candidate's, ascending) and new edges (ids above every edge's,
// ascending, every blocker a candidate or an outside blocker the graph has, or one known not to exist) came, and
// nothing else changed (the same delivery rows; no edge uses fact:deployed): each array extended at its end, the
// rest shared. Equal to buildProjectGraph over the same rows; a run with a memo then places only the new items
// and the edges' dependents (compute_frontier's reshaped run), where a build would also cost a pass over every row.
export function growProjectGraph(
  previous: ProjectGraph,
  rows: readonly CandidateRow[],
  edges: readonly EdgeRow[],
  workflows: ReadonlyMap<number, WorkflowStages>,
  reuse?: GraphReuse,
): ProjectGraph {
  const prefix = `${previous.project.public_item_prefix}-`;
  const registered = previous.environments.get(previous.project.id);
  const projectEnvironments = registered === undefined ? NO_ENVIRONMENTS : new Set(registered.keys());
  const added: FrontierInputItem[] = [];
  const addedFacts: BlockerFacts[] = [];
  const { base, top, gone } = factLayers(previous.facts);
  let last = previous.items.length > 0 ? previous.items[previous.items.length - 1].id : -Infinity;
  for (const row of rows) {
    if (!(row.id > last)) throw new Error(`growProjectGraph: ${row.id} does not come after the candidates`);
    last = row.id;
    const built = candidateInputs(row, previous.project.id, prefix, workflows.get(row.workflow_version_id), {
      deployed: NO_ENVIRONMENTS,
      registered: projectEnvironments,
    });
    added.push(built.item);
    addedFacts.push(built.facts);
    top.set(row.id, built.facts);
    gone.delete(row.id);
  }
  let lastEdge = previous.edges.length > 0 ? previous.edges[previous.edges.length - 1].id! : -Infinity;
  for (const edge of edges) {
    if (!(edge.id! > lastEdge)) throw new Error(`growProjectGraph: edge ${edge.id} does not come after the edges`);
    lastEdge = edge.id!;
  }
  const items = [...previous.items, ...added];
  const allEdges = [...previous.edges, ...edges];
  const activation =
    previous.activation.length === previous.edges.length && edges.every((e) => e.g === 'activation')
      ? allEdges
      : [...previous.activation, ...edges.filter((e) => e.g === 'activation')];
  if (reuse !== undefined && reuse.items === previous.items) reuse.grew(items, rows, addedFacts);
  // the positions so far are still right: the shared map learns the new ones (older versions never look them up)
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

// the graph's edges, activation ones included, are edge rows (buildProjectGraph), in id order
const edgeId = (edge: FrontierEdge): number => (edge as Partial<EdgeRow>).id!;

// Two lists in id order, merged in id order.
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

// The graph after candidates came anywhere among the others (ids ascending: an item back from a terminal status, with
// or without new ones) with their edges (ids ascending, every blocker a candidate or an outside blocker the graph
// has, or one known not to exist), and nothing else changed (no delivery rows loaded; no edge uses fact:deployed: the
// caller checks). A returning item that was an outside blocker takes the facts of a candidate. Equal to
// buildProjectGraph over the same rows, at the cost of one merge of the items and of the edges.
export function joinProjectGraph(
  previous: ProjectGraph,
  rows: readonly CandidateRow[],
  edges: readonly EdgeRow[],
  workflows: ReadonlyMap<number, WorkflowStages>,
  reuse?: GraphReuse,
): ProjectGraph {
  const prefix = `${previous.project.public_item_prefix}-`;
  const registered = previous.environments.get(previous.project.id);
  const projectEnvironments = registered === undefined ? NO_ENVIRONMENTS : new Set(registered.keys());
  const added: FrontierInputItem[] = [];
  const addedFacts: BlockerFacts[] = [];
  const { base, top, gone } = factLayers(previous.facts);
  let blockerProjects = previous.blockerProjects;
  let last = -Infinity;
  for (const row of rows) {
    if (!(row.id > last) || positionOf(previous.items, row.id) >= 0) {
      throw new Error(`joinProjectGraph: ${row.id} is a candidate already, or out of order`);
    }
    last = row.id;
    const built = candidateInputs(row, previous.project.id, prefix, workflows.get(row.workflow_version_id), {
      deployed: NO_ENVIRONMENTS,
      registered: projectEnvironments,
    });
    added.push(built.item);
    addedFacts.push(built.facts);
    top.set(row.id, built.facts);
    gone.delete(row.id);
    if (blockerProjects.has(row.id)) {
      if (blockerProjects === previous.blockerProjects) blockerProjects = new Map(blockerProjects);
      blockerProjects.delete(row.id);
    }
  }
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

// Position of the item with this id in `items` (ids ascending), or -1.
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

// The graph after candidates left for a terminal status (`departed`: their rows now, as this project's outside
// blockers), taking the edges they are the dependent of with them, and nothing else changed (the same delivery rows,
// no delivery read for the edges that went: the caller checks). Each departed item stays as an outside blocker while
// an edge still names it; an outside blocker that only the departed edges named goes, as on a load. Equal to
// buildProjectGraph over the same rows, without its pass over every row: what is left is one copy of the items and
// edges arrays. `dropped`: the ids no longer outside blockers (for the caller's state).
export function shrinkProjectGraph(
  previous: ProjectGraph,
  departed: readonly BlockerRow[],
  reuse?: GraphReuse,
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
  const items = withoutPositions(previous.items, at);
  // the ids whose place among the outside blockers the departure may change: the departed, and the outside blockers
  // of their edges; those named by a remaining edge are (still) outside blockers
  const reconsidered = new Set<number>(leaving.keys());
  const edges: EdgeRow[] = [];
  for (const edge of previous.edges) {
    if (leaving.has(edge.dependent)) {
      if (previous.blockerProjects.has(edge.blocker)) reconsidered.add(edge.blocker);
    } else edges.push(edge);
  }
  const named = new Set<number>();
  for (const edge of edges) if (reconsidered.has(edge.blocker)) named.add(edge.blocker);
  const activation =
    previous.activation === previous.edges ? edges : previous.activation.filter((e) => !leaving.has(e.dependent));
  const { base, top, gone } = factLayers(previous.facts);
  // copied only when it changes (~2.5 ms for 22k outside blockers)
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
  if (reuse !== undefined && reuse.items === previous.items) reuse.shrank(items, at);
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
      positions: undefined,
      ...grownRefs(previous, facts, retired),
    },
    dropped,
  };
}

function refsThrough(refSource: RefSource): Pick<ProjectGraph, 'refOf' | 'refSource'> {
  return { refOf: (id) => refSource.facts.get(id)?.ref ?? refSource.retired?.get(id), refSource };
}

// A ref is its project's prefix and the item's seq, neither of which changes: the grown graph keeps refOf, which from
// now on also knows the new items (an older version asked about them answers their refs too, which no one asks it),
// and so tells the serializer that no ref it wrote changed (frontier-serializer.ts).
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
  reuse?.settle();
  // position of each row in the last build's rows (same object), or -1
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
    // an unchanged row keeps its input item even when its facts are rebuilt (new delivery rows)
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
  // an edge row is its own activation edge (the core never mutates it, a refresh replaces a changed row)
  let activation: EdgeRow[] = rows.edges;
  for (const edge of rows.edges) {
    if (edge.g !== 'activation') {
      activation = rows.edges.filter((e) => e.g === 'activation');
      break;
    }
  }
  if (reuse !== undefined) {
    reuse.candidates = rows.candidates;
    reuse.items = items;
    reuse.candidateFacts = candidateFacts;
    reuse.outside = rows.outside;
    reuse.outsideFacts = outsideFacts;
    reuse.runs = rows.runs;
    reuse.environments = rows.environments;
    reuse.built();
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
    // every candidate and outside blocker has facts carrying its ref
    ...refsThrough({ facts }),
  };
}

export type DeliveryState = 'live' | 'deploying' | 'not deployed' | 'unregistered';

const IN_FLIGHT = new Set(['pending', 'running', 'halted']);

// The delivery state of one blocker in one environment, for a fact:deployed edge.
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
