import { Inject, Injectable, Optional } from '@nestjs/common';

import { FrontierMemo } from '@app/core';

import { APP_CONFIG, AppConfig, DEFAULT_FRONTIER_CACHE_BUDGET } from '../../config/app-config';
import { DependencyFactsService } from '../../dependencies/dependency-facts.service';
import { toDeploymentHalts } from './deployment-halts';
import {
  buildProjectGraph,
  GraphReuse,
  growProjectGraph,
  joinProjectGraph,
  patchProjectGraph,
  ProjectGraph,
  shrinkProjectGraph,
  usesDeployedForm,
} from './frontier-graph';
import {
  addEdges,
  addOutside,
  applyDelta,
  createGraphState,
  DeltaOutcome,
  GraphState,
  RELOAD,
  settleOutside,
  stateRows,
} from './frontier-graph-state';
import { BlockerRow, CandidateRow, EdgeRow, FrontierRepository, ProjectRow } from './frontier.repository';
import { elapsedMs, FrontierObserver } from './frontier-observer';
import { FrontierSerializer, SerializedFrontier } from '../wire/frontier-serializer';
import { parseWorkflowStages, WorkflowStages } from './workflow-stages';

// Never changed once published, so a result serialized from an older graph can never be stored under a newer one.
export interface GraphVersion {
  fingerprint: string;
  graph: ProjectGraph;
  results: Map<number, SerializedFrontier>;
  counts: Map<number, FrontierCounts>;
  serializer: FrontierSerializer;
  memo: FrontierMemo;
}

export interface FrontierCounts {
  counts: { runnable: number; blocked: number; frozen: number; conduct_eligible: number };
  wip_cap: number;
  wip_active: number;
  wip_remaining: number;
  cycles: number;
}

interface CachedGraph {
  current: GraphVersion;
  state: GraphState;
  reuse: GraphReuse;
  projectKey: string;
  options: LoadOptions;
  lock: Promise<unknown>;
  // a refresh failed part-way: the state is no longer trusted and the next refresh reloads it
  broken?: boolean;
}

// The unit of the cache's budget (SVC_FRONTIER_CACHE_BUDGET): what a cached graph retains grows with these.
export function graphSize(state: GraphState): number {
  return state.candidates.size + state.edges.size + state.outside.size;
}

// Tombstones are kept an hour: a graph refreshed within that reads its deletions as a delta, an older one reloads.
export const TOMBSTONE_RETENTION_SECONDS = 3600;

export interface LoadOptions {
  gates: readonly string[];
  rationale: boolean;
  inFlightRuns: boolean;
}

export const ACTIVATION_ONLY: LoadOptions = { gates: ['activation'], rationale: false, inFlightRuns: false };

// New candidates above every candidate's id, none an outside blocker coming back, and new edges above every edge's id.
function growsAtEnds(graph: ProjectGraph, rows: readonly CandidateRow[], edges: readonly EdgeRow[]): boolean {
  const lastItem = graph.items.length > 0 ? graph.items[graph.items.length - 1].id : -Infinity;
  const lastEdge = graph.edges.length > 0 ? (graph.edges[graph.edges.length - 1].id ?? Infinity) : -Infinity;
  if (rows.length > 0 && !(rows[0].id > lastItem)) return false;
  if (edges.length > 0 && !(edges[0].id! > lastEdge)) return false;
  return rows.every((row) => !graph.blockerProjects.has(row.id));
}

@Injectable()
export class FrontierGraphCache {
  // Workflow versions are immutable, so a parsed version never goes stale on any replica.
  private readonly workflowCache = new Map<number, WorkflowStages>();
  private readonly graphCache = new Map<string, CachedGraph>();
  private generation = 0;

  private readonly budget: number;

  constructor(
    private readonly repository: FrontierRepository,
    private readonly dependencyFacts: DependencyFactsService,
    private readonly observer: FrontierObserver = new FrontierObserver(),
    // absent for the benchmarks and integration tests that build the cache by hand
    @Optional() @Inject(APP_CONFIG) config?: Pick<AppConfig, 'frontierCacheBudget'>,
  ) {
    this.budget = config?.frontierCacheBudget ?? DEFAULT_FRONTIER_CACHE_BUDGET;
  }

  async cachedGraph(project: ProjectRow, options: LoadOptions): Promise<{ version: GraphVersion; reused: boolean }> {
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
    this.evictOver(entry);
    this.observer.graphRefreshed(elapsedMs(loadStarted), 'load');
    return { version: entry.current, reused: false };
  }

  // Least recently used first, until the graphs kept fit the budget. The one just loaded stays even when it alone is
  // over it, so a project larger than the budget is still refreshed, not reloaded, by its next read. Sizes are read
  // here, not kept: refreshes grow and shrink graphs in place.
  private evictOver(loaded: CachedGraph): void {
    let total = 0;
    for (const entry of this.graphCache.values()) total += graphSize(entry.state);
    let evicted = 0;
    for (const [key, entry] of this.graphCache) {
      if (total <= this.budget || entry === loaded) break;
      this.graphCache.delete(key);
      total -= graphSize(entry.state);
      evicted++;
    }
    if (evicted > 0) this.observer.graphsEvicted(evicted);
  }

  private version(graph: ProjectGraph, serializer: FrontierSerializer, memo: FrontierMemo): GraphVersion {
    return { fingerprint: `${++this.generation}`, graph, results: new Map(), counts: new Map(), serializer, memo };
  }

  private next(entry: CachedGraph, graph: ProjectGraph): GraphVersion {
    return this.version(graph, entry.current.serializer, entry.current.memo);
  }

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
    const outcome = changes.pruned
      ? { ...RELOAD }
      : applyDelta(state, { items, edges, tombstones: changes.tombstones });
    if (outcome.reload) {
      entry.state = await this.loadState(state.project, options);
      entry.reuse = new GraphReuse();
    } else {
      let changed = outcome.changed;
      if (outcome.newCandidates.length > 0) {
        const added = addEdges(
          state,
          await this.repository.findEdgesOfDependents(outcome.newCandidates, state.gates, options.rationale),
        );
        outcome.addedEdges.push(...added);
      }
      const composed = changed && outcome.composable && !changes.delivery ? this.composedGraph(entry, outcome) : null;
      if (composed !== null) {
        entry.current = this.next(entry, composed);
        state.watermark = watermark;
        return true;
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

  // The delta's steps one after the other, each over the graph before it: the updated rows patched in place, the new
  // candidates and edges grown at the ends or joined by id, then the departed candidates and removed edges taken out
  // (after the additions, so an outside blocker a new edge names stays). null, before any step, when one of them
  // cannot apply: a workflow version not loaded, an edge using fact:deployed or naming a blocker not read, delivery
  // rows loaded while items or edges leave or come back (they may be why the rows were read, or have runs).
  private composedGraph(entry: CachedGraph, outcome: DeltaOutcome): ProjectGraph | null {
    const { state, reuse } = entry;
    const graph = entry.current.graph;
    const known = graph.workflows;
    const updated = outcome.updated.map((id) => state.candidates.get(id)!);
    const rows = [...outcome.newCandidates].sort((a, b) => a - b).map((id) => state.candidates.get(id)!);
    const edges = [...outcome.addedEdges].sort((a, b) => a.id! - b.id!);
    const departed = outcome.departed.map((id) => state.outside.get(id));
    if (![...updated, ...rows].every((row) => known.has(row.workflow_version_id))) return null;
    if (!departed.every((row) => row !== undefined && known.has(row.workflow_version_id))) return null;
    if (!edges.every((edge) => this.readyEdge(state, edge))) return null;
    const grows = growsAtEnds(graph, rows, edges);
    const delivery = state.runs.length > 0 || state.environments.length > 0;
    const leaving = departed.length > 0 || outcome.removedEdges.length > 0;
    if (delivery && (leaving || (!grows && rows.length + edges.length > 0))) return null;
    let next = updated.length > 0 ? patchProjectGraph(graph, updated, known, reuse) : graph;
    if (rows.length + edges.length > 0) {
      next = (grows ? growProjectGraph : joinProjectGraph)(next, rows, edges, known, reuse);
    }
    if (!leaving) return next;
    const shrunk = shrinkProjectGraph(next, departed as BlockerRow[], reuse, new Set(outcome.removedEdges));
    for (const id of shrunk.dropped) state.outside.delete(id);
    return shrunk.graph;
  }

  // An added edge a graph can take without a load: no delivery facts, and its blocker read (or known not to exist).
  private readyEdge(state: GraphState, edge: EdgeRow): boolean {
    if (edge.id === undefined || edge.satisfaction.startsWith('fact:deployed:')) return false;
    return state.candidates.has(edge.blocker) || state.outside.has(edge.blocker) || state.absent.has(edge.blocker);
  }

  // The watermark is read first, so a write committing meanwhile is read again by the next refresh.
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
    const otherProjects = new Set<string>();
    for (const row of rows.outside) if (row.project !== state.project.id) otherProjects.add(row.project);
    const foreignProjects =
      otherProjects.size === 0
        ? undefined
        : new Set(await this.repository.projectsOutsideOrganizationOf(state.project.id, [...otherProjects]));
    return buildProjectGraph(
      {
        project: state.project,
        ...rows,
        foreignProjects,
        workflows,
        runs: state.runs,
        environments: state.environments,
        halts: toDeploymentHalts(state.halts),
      },
      reuse,
    );
  }

  // A cached graph older than the tombstones deleted reloads on its next read.
  pruneTombstones(retentionSeconds = TOMBSTONE_RETENTION_SECONDS): Promise<number> {
    return this.repository.pruneTombstones(retentionSeconds);
  }

  async loadGraph(project: ProjectRow, options: LoadOptions = ACTIVATION_ONLY): Promise<ProjectGraph> {
    return this.buildGraph(await this.loadState(project, options));
  }

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
}
