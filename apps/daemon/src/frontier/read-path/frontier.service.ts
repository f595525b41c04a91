import { Injectable } from '@nestjs/common';

import { parseFilter } from '@app/contracts';
import type { FrontierResultWire } from '@app/contracts';

import {
  applyDeploymentHalts,
  computeFrontier,
  DependencyEdge,
  evaluateGateBatch,
  explainItem,
  FrontierComputation,
  FrontierItem,
} from '@app/core';

import { AuthenticatedActor } from '../../auth/actor';
import { EventsService } from '../../events/events.service';
import {
  DependencyEdgeWire,
  ExplainResponse,
  FrontierListQueryDto,
  FrontierListResponse,
  FrontierQueryDto,
  LIST_GATE_POINTS,
  toExplainResponse,
  toWireList,
} from '../dto/frontier.dto';
import { deliveryState, ProjectGraph } from './frontier-graph';
import {
  ACTIVATION_ONLY,
  FrontierCounts,
  FrontierGraphCache,
  GraphVersion,
  LoadOptions,
  TOMBSTONE_RETENTION_SECONDS,
} from './frontier-graph-cache';
import { FrontierProjects, wipCapOf } from './frontier-projects';
import { FrontierRepository, ProjectRow } from './frontier.repository';
import { elapsedMs, FrontierObserver } from './frontier-observer';
import { bodyBytes, SerializedFrontier } from '../wire/frontier-serializer';
import { bodySource, frontierWindowJson, recordedSource } from '../wire/frontier-window';
import type { FrontierWindowQueryDto } from '../dto/frontier-read.dto';
import { AnswerDelta, firstItemsJson, firstItemsOfBody, FrontierHistory, quotedEtag } from '../wire/frontier-delta';
import { WorkflowStages } from './workflow-stages';

export interface ComputedFrontier {
  graph: ProjectGraph;
  computation: FrontierComputation;
}

export { serializeFrontier } from '../wire/frontier-serializer';
export type { SerializedFrontier } from '../wire/frontier-serializer';
export type { GraphVersion, LoadOptions } from './frontier-graph-cache';
export { TOMBSTONE_RETENTION_SECONDS } from './frontier-graph-cache';
export { wipCapOf } from './frontier-projects';

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

@Injectable()
export class FrontierService {
  readonly history = new FrontierHistory();

  constructor(
    private readonly graphs: FrontierGraphCache,
    private readonly projects: FrontierProjects,
    private readonly repository: FrontierRepository,
    private readonly events: EventsService,
    // defaulted for the benchmarks and integration tests that build the service by hand
    private readonly observer: FrontierObserver = new FrontierObserver(),
  ) {}

  resolveProject(actor: AuthenticatedActor, projectId: string | undefined): Promise<ProjectRow> {
    return this.projects.resolveProject(actor, projectId);
  }

  accessibleProjects(actor: AuthenticatedActor): Promise<ProjectRow[]> {
    return this.projects.accessibleProjects(actor);
  }

  pruneTombstones(retentionSeconds = TOMBSTONE_RETENTION_SECONDS): Promise<number> {
    return this.graphs.pruneTombstones(retentionSeconds);
  }

  loadGraph(project: ProjectRow, options: LoadOptions = ACTIVATION_ONLY): Promise<ProjectGraph> {
    return this.graphs.loadGraph(project, options);
  }

  currentGraph(project: ProjectRow, options: LoadOptions = ACTIVATION_ONLY): Promise<ProjectGraph> {
    return this.graphs.currentGraph(project, options);
  }

  workflowStages(ids: readonly number[]): Promise<Map<number, WorkflowStages>> {
    return this.graphs.workflowStages(ids);
  }

  // Serialized once per graph and wip_cap: repeated reads of an unchanged backlog cost a refresh's few queries.
  async frontierJson(actor: AuthenticatedActor, dto: FrontierQueryDto): Promise<SerializedFrontier> {
    const project = await this.resolveProject(actor, dto.project);
    return this.frontierBody(project, wipCapOf(project, dto.wip_cap), actor.id);
  }

  async frontierSince(
    actor: AuthenticatedActor,
    dto: FrontierQueryDto,
    since: string,
  ): Promise<{ serialized: SerializedFrontier; outcome: AnswerDelta | null }> {
    const project = await this.resolveProject(actor, dto.project);
    const wipCap = wipCapOf(project, dto.wip_cap);
    const serialized = await this.frontierBody(project, wipCap, actor.id);
    const key = FrontierHistory.key(project.id, wipCap);
    if (quotedEtag(since) === serialized.etag) return { serialized, outcome: null };
    return { serialized, outcome: this.history.delta(key, since, serialized.etag, serialized.length) };
  }

  async frontierFirstItems(actor: AuthenticatedActor, dto: FrontierQueryDto, limit: number): Promise<Buffer> {
    const project = await this.resolveProject(actor, dto.project);
    const wipCap = wipCapOf(project, dto.wip_cap);
    const serialized = await this.frontierBody(project, wipCap, actor.id);
    const answer = this.history.find(FrontierHistory.key(project.id, wipCap), serialized.etag);
    return answer ? firstItemsJson(answer, limit) : firstItemsOfBody(serialized, limit);
  }

  // A window of one list, filtered and sorted (frontier-window.ts): a client that cannot hold the whole answer.
  async frontierWindow(actor: AuthenticatedActor, dto: FrontierWindowQueryDto): Promise<Buffer> {
    const project = await this.resolveProject(actor, dto.project);
    const wipCap = wipCapOf(project, dto.wip_cap);
    const filter = (dto.filter ?? '').trim();
    const [serialized, mine] = await Promise.all([
      this.frontierBody(project, wipCap, actor.id),
      parseFilter(filter).me ? this.repository.claimedRefsOf(project.id, actor.id) : null,
    ]);
    const query = {
      list: dto.list ?? 'runnable',
      offset: dto.offset ?? 0,
      limit: dto.limit ?? 200,
      filter,
      sort: dto.sort ?? 'rank',
      desc: dto.desc ?? false,
      mine: mine && new Set(mine),
    };
    const answer = this.history.find(FrontierHistory.key(project.id, wipCap), serialized.etag);
    if (answer) return frontierWindowJson(recordedSource(answer), query);
    const body = JSON.parse(bodyBytes(serialized).toString('utf8')) as FrontierResultWire;
    return frontierWindowJson(bodySource(body, serialized.etag), query);
  }

  // `record` false: the live stream's notice computes it for no caller, and a recorded event would be one more
  // change notice for the project.
  async frontierBody(
    project: ProjectRow,
    wipCap: number,
    actorId: number | null,
    record = true,
  ): Promise<SerializedFrontier> {
    const { graph, computation, version, recorded } = await this.computeWithCache(
      project,
      wipCap,
      actorId,
      null,
      ACTIVATION_ONLY,
      false,
      record,
    );
    let serialized = version.results.get(wipCap);
    if (serialized === undefined) {
      const answer = version.serializer.serialize(computation!, graph.refOf);
      serialized = { chunks: answer.chunks, length: answer.length, etag: answer.etag };
      version.results.set(wipCap, serialized);
      this.history.record(FrontierHistory.key(project.id, wipCap), answer.etag, computation!, answer.refs);
    }
    // the FrontierComputed row is written while the answer is serialized, and in place before it is sent
    await recorded;
    return serialized;
  }

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

  // With `always` false, a cached serialized result skips the computation (it would be identical).
  private async computeWithCache(
    project: ProjectRow,
    wipCap: number,
    actorId: number | null,
    sessionId: number | null,
    options: LoadOptions,
    always = false,
    record = true,
  ): Promise<{
    graph: ProjectGraph;
    computation: FrontierComputation | null;
    version: GraphVersion;
    // best effort: never rejects
    recorded: Promise<void>;
  }> {
    const started = process.hrtime.bigint();
    const { version, reused } = await this.graphs.cachedGraph(project, options);
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
    if (!record) return { graph, computation, version, recorded: Promise.resolve() };
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
          const resolves = b.blocker_status !== null || b.blocker_sealed;
          const blocker = resolves ? (graph.refOf(b.blocker) ?? null) : null;
          if (blockerFilter && blocker !== blockerFilter) continue;
          if (dto.abandoned !== undefined && b.blocking_abandoned !== dto.abandoned) continue;
          const form = b.form;
          result.push({
            blocker,
            dependent,
            gate_point: gate,
            satisfaction: b.satisfaction,
            rationale: rationale.get(`${evaluation.item_id}:${b.blocker}:${gate}`) ?? '',
            blocker_resolves: resolves,
            blocker_stage: b.blocker_status,
            blocker_title: b.blocker_title,
            blocking_terminal: b.blocking_terminal,
            blocking_abandoned: b.blocking_abandoned,
            reason: b.reason,
            need: b.need,
            environment:
              form.kind === 'deployed' && !b.blocker_sealed
                ? { name: form.environment, ...deliveryState(graph, b.blocker, form.environment) }
                : null,
          });
        }
      }
    }
    return result;
  }

  async explain(actor: AuthenticatedActor, ref: string, wipCap?: number): Promise<ExplainResponse> {
    const { resolved, project } = await this.projects.resolveItem(actor, ref);
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
