import { Injectable } from '@nestjs/common';

import {
  applyDeploymentHalts,
  computeFrontier,
  DEFAULT_WIP_CAP,
  DependencyEdge,
  evaluateGateBatch,
  explainItem,
  FrontierComputation,
  FrontierItem,
  FrontierMemo,
} from '@app/core';

import { AccessService } from '../auth/access.service';
import { AuthenticatedActor } from '../auth/actor';
import { DependencyFactsService } from '../dependencies/dependency-facts.service';
import { EventsService } from '../events/events.service';
import { RefsService } from '../refs/refs.service';
import {
  DependencyEdgeWire,
  ExplainResponse,
  FrontierListQueryDto,
  FrontierListResponse,
  FrontierQueryDto,
  LIST_GATE_POINTS,
  MAX_WIP_CAP,
  toExplainResponse,
  toWireList,
} from './dto/frontier.dto';
import { toDeploymentHalts } from './deployment-halts';
import {
  buildProjectGraph,
  deliveryState,
  GraphReuse,
  patchProjectGraph,
  ProjectGraph,
  usesDeployedForm,
} from './frontier-graph';
import {
  addEdges,
  addOutside,
  applyDelta,
  createGraphState,
  DeltaOutcome,
  GraphState,
  settleOutside,
  stateRows,
} from './frontier-graph-state';
import { projectNotFound, projectRequired } from './frontier.errors';
import { FrontierRepository, ProjectRow } from './frontier.repository';
import { elapsedMs, FrontierObserver } from './frontier-observer';
import { FrontierSerializer, SerializedFrontier } from './frontier-serializer';
import { AnswerDelta, firstItemsJson, firstItemsOfBody, FrontierHistory, quotedEtag } from './frontier-delta';
import { parseWorkflowStages, WorkflowStages } from './workflow-stages';

export interface ComputedFrontier {
  graph: ProjectGraph;
  computation: FrontierComputation;
}

export { serializeFrontier } from './frontier-serializer';
export type { SerializedFrontier } from './frontier-serializer';

// One computed state of a project's graph. Never changed once published: a refresh publishes a new version, so a
// result serialized from an older graph can never be stored under a newer one.
export interface GraphVersion {
  // changes whenever the graph changes (a cheap validator for the serialized results)
  fingerprint: string;
  graph: ProjectGraph;
  // the serialized FrontierResult (with its strong ETag) and its FrontierComputed counts, per wip_cap
  results: Map<number, SerializedFrontier>;
  counts: Map<number, FrontierCounts>;
  // shared by the successive versions of one cached graph: unchanged items keep their JSON across versions
  serializer: FrontierSerializer;
  // compute_frontier's memo of its last run over this cached graph (unchanged items keep their output object)
  memo: FrontierMemo;
}

interface CachedGraph {
  current: GraphVersion;
  // the rows the graph is built from, brought up to date by reading only what changed
  state: GraphState;
  // what the last build derived from each unchanged row object
  reuse: GraphReuse;
  projectKey: string;
  options: LoadOptions;
  // refreshes of one entry run one at a time
  lock: Promise<unknown>;
  // a refresh failed part-way: the state is no longer trusted and the next refresh reloads it
  broken?: boolean;
}

// Tombstones are kept an hour: a graph refreshed within that reads its deletions as a delta, an older one reloads.
export const TOMBSTONE_RETENTION_SECONDS = 3600;

// Projects whose loaded graph is kept between reads (a 100k-item graph is a few hundred MB at most).
const GRAPH_CACHE_PROJECTS = 4;

export interface LoadOptions {
  gates: readonly string[];
  rationale: boolean;
  inFlightRuns: boolean;
}

const ACTIVATION_ONLY: LoadOptions = { gates: ['activation'], rationale: false, inFlightRuns: false };

interface FrontierCounts {
  counts: { runnable: number; blocked: number; frozen: number; conduct_eligible: number };
  wip_cap: number;
  wip_active: number;
  wip_remaining: number;
  cycles: number;
}

function frontierCounts(computation: FrontierComputation): FrontierCounts {
  return {
    counts: {
      runnable: computation.runnable.length,
      blocked: computation.blocked.length,
      frozen: computation.frozen.length,
      conduct_eligible: computation.conduct_eligible.length,
    },
    wip_cap: computation.wip_cap,
    wip_active: computation.wip_active,
    wip_remaining: computation.wip_remaining,
    cycles: computation.cycles.length,
  };
}

export function wipCapOf(project: ProjectRow, override: number | undefined): number {
  if (override !== undefined) return override;
  const stored = project.policy?.wip_cap;
  return typeof stored === 'number' && Number.isInteger(stored) && stored >= 0 && stored <= MAX_WIP_CAP
    ? stored
    : DEFAULT_WIP_CAP;
}

@Injectable()
export class FrontierService {
  // Workflow versions are immutable, so a parsed version never goes stale on any replica.
  private readonly workflowCache = new Map<number, WorkflowStages>();
  // Loaded graphs, refreshed from the rows written since they were read (see the ChangeTracking migration).
  private readonly graphCache = new Map<string, CachedGraph>();
  private generation = 0;
  // the last answers served per project and wip_cap, for deltas (frontier-delta.ts)
  readonly history = new FrontierHistory();

  constructor(
    private readonly repository: FrontierRepository,
    private readonly access: AccessService,
    private readonly events: EventsService,
    private readonly refs: RefsService,
    private readonly dependencyFacts: DependencyFactsService,
    // defaulted for the benchmarks and integration tests that build the service by hand
    private readonly observer: FrontierObserver = new FrontierObserver(),
  ) {}

  async resolveProject(actor: AuthenticatedActor, projectId: string | undefined): Promise<ProjectRow> {
    const accessible = await this.access.accessibleProjects(actor);
    if (!projectId) throw projectRequired(accessible);
    if (!accessible.some((p) => p.id === projectId)) throw projectNotFound(projectId);
    const project = await this.repository.findProject(projectId);
    if (!project) throw projectNotFound(projectId);
    return project;
  }

  // Projects the caller can access, with their policies (the schedule's cross-project scope).
  async accessibleProjects(actor: AuthenticatedActor): Promise<ProjectRow[]> {
    const accessible = await this.access.accessibleProjects(actor);
    return this.repository.findProjects(accessible.map((p) => p.id));
  }

  // GET /v1/charge/frontier: serialized once per graph and wip_cap, so repeated reads of an unchanged backlog
  // cost the few indexed change queries of a refresh.
  async frontierJson(actor: AuthenticatedActor, dto: FrontierQueryDto): Promise<SerializedFrontier> {
    const project = await this.resolveProject(actor, dto.project);
    return this.frontierBody(project, wipCapOf(project, dto.wip_cap), actor.id);
  }

  // GET /v1/charge/frontier?since=<etag>: the current answer and, unless it is the base itself, the delta to it.
  async frontierSince(
    actor: AuthenticatedActor,
    dto: FrontierQueryDto,
    since: string,
  ): Promise<{ serialized: SerializedFrontier; outcome: AnswerDelta | null }> {
    const project = await this.resolveProject(actor, dto.project);
    const wipCap = wipCapOf(project, dto.wip_cap);
    const serialized = await this.frontierBody(project, wipCap, actor.id);
    const key = FrontierHistory.key(project.id, wipCap);
    // null: the client holds the current answer already
    if (quotedEtag(since) === serialized.etag) return { serialized, outcome: null };
    return { serialized, outcome: this.history.delta(key, since, serialized.etag, serialized.length) };
  }

  // GET /v1/charge/frontier?limit=N: the first N items of each list of the current answer.
  async frontierFirstItems(actor: AuthenticatedActor, dto: FrontierQueryDto, limit: number): Promise<Buffer> {
    const project = await this.resolveProject(actor, dto.project);
    const wipCap = wipCapOf(project, dto.wip_cap);
    const serialized = await this.frontierBody(project, wipCap, actor.id);
    const answer = this.history.find(FrontierHistory.key(project.id, wipCap), serialized.etag);
    return answer ? firstItemsJson(answer, limit) : firstItemsOfBody(serialized, limit);
  }

  // The served body of one project's frontier (the incremental-refresh property test compares it to a full reload).
  async frontierBody(project: ProjectRow, wipCap: number, actorId: number | null): Promise<SerializedFrontier> {
    const { graph, computation, version, recorded } = await this.computeWithCache(
      project,
      wipCap,
      actorId,
      null,
      ACTIVATION_ONLY,
    );
    let serialized = version.results.get(wipCap);
    if (serialized === undefined) {
      serialized = version.serializer.serialize(computation!, graph.refOf);
      version.results.set(wipCap, serialized);
      this.history.record(FrontierHistory.key(project.id, wipCap), serialized.etag, computation!, graph.refOf);
    }
    // the FrontierComputed row is written while the answer is serialized, and in place before it is sent
    await recorded;
    return serialized;
  }

  // compute_frontier for one project; every call records FrontierComputed.
  async compute(
    project: ProjectRow,
    wipCap: number,
    actorId: number | null,
    sessionId: number | null = null,
    options: LoadOptions = ACTIVATION_ONLY,
  ): Promise<ComputedFrontier> {
    const { graph, computation, recorded } = await this.computeWithCache(
      project,
      wipCap,
      actorId,
      sessionId,
      options,
      true,
    );
    await recorded;
    return { graph, computation: computation! };
  }

  // With `always` false, a read whose serialized result is cached skips the computation (it would be identical).
  private async computeWithCache(
    project: ProjectRow,
    wipCap: number,
    actorId: number | null,
    sessionId: number | null,
    options: LoadOptions,
    always = false,
  ): Promise<{
    graph: ProjectGraph;
    computation: FrontierComputation | null;
    version: GraphVersion;
    // the FrontierComputed event's insert, under way (best effort: never rejects)
    recorded: Promise<void>;
  }> {
    const started = process.hrtime.bigint();
    const { version, reused } = await this.cachedGraph(project, options);
    const graph = version.graph;
    const computeStarted = process.hrtime.bigint();
    const computation =
      always || !version.results.has(wipCap)
        ? applyDeploymentHalts(
            computeFrontier(
              { items: graph.items, edges: graph.activation, blockerFacts: graph.facts, wipCap },
              version.memo,
            ),
            graph.halts,
          )
        : null;
    if (computation) this.observer.computed(elapsedMs(computeStarted));
    const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
    const counts = computation ? frontierCounts(computation) : version.counts.get(wipCap);
    if (computation) version.counts.set(wipCap, frontierCounts(computation));
    const recorded = this.events.recordBestEffort({
      name: 'FrontierComputed',
      kind: 'workflow',
      project: project.id,
      actorId,
      sessionId,
      payload: {
        project: project.id,
        ...counts,
        items: graph.items.length,
        edges: graph.activation.length,
        graph_reused: reused,
        result_reused: computation === null,
        duration_ms: Math.round(durationMs * 10) / 10,
      },
    });
    return { graph, computation, version, recorded };
  }

  private async cachedGraph(
    project: ProjectRow,
    options: LoadOptions,
  ): Promise<{ version: GraphVersion; reused: boolean }> {
    const projectKey = JSON.stringify(project);
    const key = `${project.id}|${options.gates.join(',')}|${options.rationale}|${options.inFlightRuns}`;
    const hit = this.graphCache.get(key);
    if (hit && hit.projectKey === projectKey) {
      this.graphCache.delete(key);
      this.graphCache.set(key, hit);
      const run = hit.lock.then(() => this.refresh(hit));
      hit.lock = run.catch(() => undefined);
      const started = process.hrtime.bigint();
      try {
        const changed = await run;
        this.observer.graphRefreshed(elapsedMs(started), changed ? 'changed' : 'unchanged');
        return { version: hit.current, reused: !changed };
      } catch (err) {
        this.observer.graphRefreshed(elapsedMs(started), 'failed');
        // a half-applied delta is never served: the next read loads the project again
        if (this.graphCache.get(key) === hit) this.graphCache.delete(key);
        throw err;
      }
    }
    const loadStarted = process.hrtime.bigint();
    // Let the stale graph go before the new one is built: two 100k-item graphs at once double the GC work.
    this.graphCache.delete(key);
    const state = await this.loadState(project, options);
    const reuse = new GraphReuse();
    const entry: CachedGraph = {
      current: this.version(await this.buildGraph(state, reuse), new FrontierSerializer(), new FrontierMemo()),
      state,
      reuse,
      projectKey,
      options,
      lock: Promise.resolve(),
    };
    this.graphCache.set(key, entry);
    while (this.graphCache.size > GRAPH_CACHE_PROJECTS) {
      this.graphCache.delete(this.graphCache.keys().next().value as string);
    }
    this.observer.graphRefreshed(elapsedMs(loadStarted), 'load');
    return { version: entry.current, reused: false };
  }

  private version(graph: ProjectGraph, serializer: FrontierSerializer, memo: FrontierMemo): GraphVersion {
    return { fingerprint: `${++this.generation}`, graph, results: new Map(), counts: new Map(), serializer, memo };
  }

  // The next version of an entry's graph, sharing its serializer and memo.
  private next(entry: CachedGraph, graph: ProjectGraph): GraphVersion {
    return this.version(graph, entry.current.serializer, entry.current.memo);
  }

  // Brings a cached graph up to date by reading only the rows written since its watermark; true when it changed.
  private async refresh(entry: CachedGraph): Promise<boolean> {
    try {
      return await this.applyChanges(entry);
    } catch (err) {
      entry.broken = true;
      throw err;
    }
  }

  private async applyChanges(entry: CachedGraph): Promise<boolean> {
    const { state, options } = entry;
    if (entry.broken) {
      entry.state = await this.loadState(state.project, options);
      entry.reuse = new GraphReuse();
      entry.current = this.next(entry, await this.buildGraph(entry.state, entry.reuse));
      entry.broken = false;
      return true;
    }
    const changes = await this.repository.findChangesSince(state.watermark, options.rationale);
    const { watermark, items, edges } = changes;
    const outcome: DeltaOutcome = changes.pruned
      ? { reload: true, changed: true, newCandidates: [], updated: [], shape: true }
      : applyDelta(state, { items, edges, tombstones: changes.tombstones });
    if (outcome.reload) {
      entry.state = await this.loadState(state.project, options);
      entry.reuse = new GraphReuse();
    } else {
      let changed = outcome.changed;
      if (changed && !outcome.shape && !changes.delivery) {
        // candidates replaced in place, nothing else: patch the graph at their positions
        const rows = outcome.updated.map((id) => state.candidates.get(id)!);
        const known = entry.current.graph.workflows;
        if (rows.every((row) => known.has(row.workflow_version_id))) {
          entry.current = this.next(entry, patchProjectGraph(entry.current.graph, rows, known, entry.reuse));
          state.watermark = watermark;
          return true;
        }
      }
      if (outcome.newCandidates.length > 0) {
        addEdges(
          state,
          await this.repository.findEdgesOfDependents(outcome.newCandidates, state.gates, options.rationale),
        );
      }
      // the outside blockers follow the edges and candidates: nothing to settle when the delta left those alone
      const settled = outcome.shape ? settleOutside(state) : { missing: [] };
      if (settled.missing.length > 0) {
        addOutside(state, settled.missing, await this.repository.findItemsById(settled.missing));
        changed = true;
      }
      if (!changed && !changes.delivery) {
        state.watermark = watermark;
        return false;
      }
      await this.loadDelivery(state, options);
      if (changes.delivery) state.halts = await this.repository.findDeploymentHalts(state.project.id);
      state.watermark = watermark;
    }
    entry.current = this.next(entry, await this.buildGraph(entry.state, entry.reuse));
    return true;
  }

  // A full load of one project's rows; the watermark is read first, so a write committing meanwhile is read again
  // by the next refresh.
  private async loadState(project: ProjectRow, options: LoadOptions): Promise<GraphState> {
    const watermark = await this.repository.watermark();
    const [candidates, edges, outside] = await Promise.all([
      this.repository.findCandidates(project.id),
      this.repository.findEdges(project.id, options.gates, options.rationale),
      this.repository.findOutsideBlockers(project.id, options.gates),
    ]);
    const state = createGraphState(project, options.gates, watermark, { candidates, edges, outside });
    await this.loadDelivery(state, options);
    state.halts = await this.repository.findDeploymentHalts(project.id);
    return state;
  }

  // Delivery facts (runs and environments) are read whole, and only when some edge uses fact:deployed.
  private async loadDelivery(state: GraphState, options: LoadOptions): Promise<void> {
    const edges = [...state.edges.values()];
    if (!usesDeployedForm(edges)) {
      state.runs = [];
      state.environments = [];
      return;
    }
    const blockers = [
      ...new Set(edges.filter((e) => e.satisfaction.startsWith('fact:deployed:')).map((e) => e.blocker)),
    ];
    const projects = [state.project.id, ...[...state.outside.values()].map((o) => o.project)];
    const { runs, environments } = await this.dependencyFacts.deliveryFacts(blockers, projects, {
      inFlight: options.inFlightRuns,
    });
    state.runs = runs;
    state.environments = environments;
  }

  private async buildGraph(state: GraphState, reuse?: GraphReuse): Promise<ProjectGraph> {
    const rows = stateRows(state);
    const versionIds = new Set<number>();
    for (const row of rows.candidates) versionIds.add(row.workflow_version_id);
    for (const row of rows.outside) versionIds.add(row.workflow_version_id);
    const workflows = await this.workflowStages([...versionIds]);
    return buildProjectGraph(
      {
        project: state.project,
        ...rows,
        workflows,
        runs: state.runs,
        environments: state.environments,
        halts: toDeploymentHalts(state.halts),
      },
      reuse,
    );
  }

  // Tombstones older than the retention are deleted; a cached graph older than them reloads on its next read.
  pruneTombstones(retentionSeconds = TOMBSTONE_RETENTION_SECONDS): Promise<number> {
    return this.repository.pruneTombstones(retentionSeconds);
  }

  // A full load, bypassing the cache (benchmarks and the incremental-refresh property test compare against it).
  async loadGraph(project: ProjectRow, options: LoadOptions = ACTIVATION_ONLY): Promise<ProjectGraph> {
    return this.buildGraph(await this.loadState(project, options));
  }

  // The cached graph of a project, brought up to date (what every frontier read computes from).
  async currentGraph(project: ProjectRow, options: LoadOptions = ACTIVATION_ONLY): Promise<ProjectGraph> {
    return (await this.cachedGraph(project, options)).version.graph;
  }

  async workflowStages(ids: readonly number[]): Promise<Map<number, WorkflowStages>> {
    const missing = ids.filter((id) => !this.workflowCache.has(id));
    if (missing.length > 0) {
      for (const row of await this.repository.findWorkflowVersions(missing)) {
        this.workflowCache.set(row.id, parseWorkflowStages(row.id, row.workflow_id, row.definition));
      }
    }
    const result = new Map<number, WorkflowStages>();
    for (const id of ids) {
      const stages = this.workflowCache.get(id);
      if (stages) result.set(id, stages);
    }
    return result;
  }

  // frontier.list: the buckets plus every unsatisfied edge at activation, integration and closure.
  async list(actor: AuthenticatedActor, dto: FrontierListQueryDto): Promise<FrontierListResponse> {
    const project = await this.resolveProject(actor, dto.project);
    const { graph, computation } = await this.compute(project, wipCapOf(project, dto.wip_cap), actor.id, null, {
      gates: LIST_GATE_POINTS,
      rationale: true,
      inFlightRuns: true,
    });
    const keepRow = (item: FrontierItem) =>
      (!dto.adapter || item.adapter === dto.adapter) && (!dto.priority || item.priority === dto.priority);
    const rows = (list: FrontierItem[]) => toWireList(list.filter(keepRow), graph.refOf);
    const only = dto.only;
    return {
      project: project.id,
      wip_cap: computation.wip_cap,
      wip_active: computation.wip_active,
      ready_rows: !only || only === 'ready' ? rows(computation.runnable) : [],
      blocked_rows: !only || only === 'blocked' ? rows(computation.blocked) : [],
      frozen_rows: !only || only === 'frozen' ? rows(computation.frozen) : [],
      dependency_edges: !only || only === 'edges' ? this.dependencyEdges(graph, dto) : [],
    };
  }

  private dependencyEdges(graph: ProjectGraph, dto: FrontierListQueryDto): DependencyEdgeWire[] {
    const rationale = new Map<string, string>();
    const edges: DependencyEdge[] = graph.edges.map((e) => {
      rationale.set(`${e.dependent}:${e.blocker}:${e.g}`, e.r);
      return {
        blocker: e.blocker,
        dependent: e.dependent,
        gatePoint: e.g,
        satisfaction: e.satisfaction,
        rationale: e.r,
      };
    });
    const dependents = graph.items.map((i) => i.id);
    const wanted = (ref: string | undefined) => ref?.toUpperCase();
    const blockerFilter = wanted(dto.blocker);
    const dependentFilter = wanted(dto.dependent);
    const result: DependencyEdgeWire[] = [];
    for (const gate of dto.gate_point ? [dto.gate_point] : LIST_GATE_POINTS) {
      const evaluations = evaluateGateBatch(dependents, gate, edges, graph.facts, { refOf: graph.refOf });
      for (const evaluation of evaluations.values()) {
        const dependent = graph.refOf(evaluation.item_id) as string;
        if (dependentFilter && dependent !== dependentFilter) continue;
        for (const b of evaluation.blockers) {
          const blocker = b.blocker_status === null ? null : (graph.refOf(b.blocker) ?? null);
          if (blockerFilter && blocker !== blockerFilter) continue;
          if (dto.abandoned !== undefined && b.blocking_abandoned !== dto.abandoned) continue;
          const form = b.form;
          result.push({
            blocker,
            dependent,
            gate_point: gate,
            satisfaction: b.satisfaction,
            rationale: rationale.get(`${evaluation.item_id}:${b.blocker}:${gate}`) ?? '',
            blocker_resolves: b.blocker_status !== null,
            blocker_stage: b.blocker_status,
            blocker_title: b.blocker_title,
            blocking_terminal: b.blocking_terminal,
            blocking_abandoned: b.blocking_abandoned,
            reason: b.reason,
            need: b.need,
            environment:
              form.kind === 'deployed'
                ? { name: form.environment, ...deliveryState(graph, b.blocker, form.environment) }
                : null,
          });
        }
      }
    }
    return result;
  }

  // Why an item is (not) runnable, down to each unsatisfied fact, and its critical path.
  async explain(actor: AuthenticatedActor, ref: string, wipCap?: number): Promise<ExplainResponse> {
    const resolved = await this.refs.resolve(ref);
    const accessible = await this.access.accessibleProjects(actor);
    if (!accessible.some((p) => p.id === resolved.project)) throw projectNotFound(resolved.project);
    const project = await this.repository.findProject(resolved.project);
    if (!project) throw projectNotFound(resolved.project);
    const { graph, computation } = await this.compute(project, wipCapOf(project, wipCap), actor.id);
    const explanation = explainItem(resolved.id, computation, graph.activation, graph.facts);
    const item = graph.items.find((i) => i.id === resolved.id);
    const status = item?.status ?? (await this.repository.locateItem(resolved.id))?.status ?? 'unknown';
    const placed =
      computation.runnable.find((i) => i.item_id === resolved.id) ??
      computation.blocked.find((i) => i.item_id === resolved.id) ??
      computation.frozen.find((i) => i.item_id === resolved.id);
    const response = toExplainResponse(explanation, {
      ref: resolved.ref,
      project: project.id,
      status,
      item: placed,
      computation,
      refOf: graph.refOf,
    });
    if (explanation.bucket === 'not_candidate') {
      response.summary = [
        item ? `not a frontier candidate: status ${status}` : `not a frontier candidate: ${status} is terminal`,
      ];
    }
    return response;
  }
}
