import { Injectable } from '@nestjs/common';

import {
  DEFAULT_SATISFACTION,
  DEPENDENCY_EVIDENCE_LIMIT,
  dependencyEdgeRefusal,
  edgeStorable,
  evaluateSatisfaction,
  GrowingActivationGraph,
  isSelfDependency,
  parseSatisfaction,
} from '@app/core';
import { DependencyAddWire, DependencyListResponse, DependencyRemovedResponse } from '@app/contracts/backlog';

import type { EntityManager } from 'typeorm';

import { AuthenticatedActor } from '../auth/actor';
import { notePassed } from '../database/write-context';
import { ProjectAccessService } from '../projects/project-access.service';
import { itemsNotFound } from '../refs/refs.errors';
import { parseRef, REF_PATTERN, RefsService } from '../refs/refs.service';
import { ActivationGraphCache } from './activation-graph-cache';
import { DependenciesRepository, NewEdge } from './dependencies.repository';
import { DependencyFactsService } from './dependency-facts.service';
import {
  activationCycle,
  dependencyCrossesOrganization,
  dependencyNotFound,
  evidenceTooLarge,
  invalidSatisfaction,
  selfDependency,
} from './dependencies.errors';
import { AddDependencyDto, EdgeRow, toDependencyResponse } from './dto/dependencies.dto';

export const EVIDENCE_LIMIT = DEPENDENCY_EVIDENCE_LIMIT;

export { invalidSatisfaction };

export interface EdgeInput {
  dependent: { id: number; ref: string };
  blocker: { id: number; ref: string };
  gatePoint: string;
  satisfaction: string;
  source: string;
  sessionId: number | null;
  rationale: string;
  evidence: Record<string, unknown>;
  // stored text as given (import keeps it byte for byte); default: evidence serialised
  evidenceJson?: string;
  createdAt?: string | null;
}

@Injectable()
export class DependenciesService {
  constructor(
    private readonly repository: DependenciesRepository,
    private readonly facts: DependencyFactsService,
    private readonly access: ProjectAccessService,
    private readonly refs: RefsService,
    private readonly graphs: ActivationGraphCache,
  ) {}

  async add(actor: AuthenticatedActor, dependentRef: string, dto: AddDependencyDto): Promise<DependencyAddWire> {
    const resolved = await this.access.resolveItems(actor, [dependentRef, dto.blocker]);
    const dependent = resolved.get(dependentRef)!;
    const blocker = resolved.get(dto.blocker)!;
    const input: EdgeInput = {
      dependent,
      blocker,
      gatePoint: dto.gate_point ?? 'activation',
      satisfaction: dto.satisfaction ?? DEFAULT_SATISFACTION,
      source: dto.source ?? 'operator',
      sessionId: dto.session_id ?? null,
      rationale: dto.rationale ?? '',
      evidence: dto.evidence ?? {},
    };
    const added = await this.repository.transaction((manager) => this.addIn(input, manager));
    const row = added ?? (await this.repository.find(dependent.id, blocker.id, input.gatePoint));
    return { created: added !== null, dependency: toDependencyResponse(row!) };
  }

  // The edge added, or null when it was already there.
  async addIn(input: EdgeInput, manager: EntityManager): Promise<EdgeRow | null> {
    if (isSelfDependency(input.dependent.id, input.blocker.id)) {
      throw selfDependency(input.dependent.ref);
    }
    // The ends read and the edge inserted in one round trip (ADR 0106): the insert goes ahead of the checks below,
    // each a refusal that rolls it back; one the table's constraints would refuse is not sent.
    const edge = newEdge(input);
    const { ends, added } = await this.repository.insertAtEnds(
      edge,
      edgeStorable({ satisfaction: edge.satisfaction, evidenceLength: edge.evidenceJson.length }),
      manager,
    );
    if (!ends) throw itemsNotFound([input.dependent.ref, input.blocker.ref]);
    if (ends.crosses) throw dependencyCrossesOrganization(input.dependent.ref, input.blocker.ref);
    notePassed('org_edges');
    this.checkEdge(input, edge, ends.blockerStages);
    // Inserted before the organization's lock, so the lock is held for the cycle check and the commit alone (ADR
    // 0096), and taken in the round trip that reads the edges committed before it (ADR 0097): the check leaves this
    // transaction's own edge out, and a refusal rolls the insert back. An edge already there closes nothing new.
    if (added && input.gatePoint === 'activation') {
      const cycle = await this.graphs.cycleIfAdded(manager, ends.organization, input.blocker.id, input.dependent.id);
      if (cycle) await this.refuseCycle(input, cycle, manager);
    }
    return added;
  }

  // Import's edges: addIn's checks in file order, each batched into one statement for the file. `graph` was read
  // under its lock (lockGraph); each accepted edge joins it.
  async addManyIn(inputs: readonly EdgeInput[], manager: EntityManager, graph: GrowingActivationGraph) {
    for (const input of inputs) {
      if (isSelfDependency(input.dependent.id, input.blocker.id)) throw selfDependency(input.dependent.ref);
    }
    const crossing = await this.repository.firstCrossingOrganization(
      inputs.map((input) => ({ dependent: input.dependent.id, blocker: input.blocker.id })),
      manager,
    );
    if (crossing !== null) {
      throw dependencyCrossesOrganization(inputs[crossing].dependent.ref, inputs[crossing].blocker.ref);
    }
    notePassed('org_edges');
    const facts = await this.facts.facts(this.stageChecked(inputs), manager);
    const edges: NewEdge[] = [];
    for (const input of inputs) {
      edges.push(this.checkedEdge(input, facts.get(input.blocker.id)?.stageOrder));
      if (input.gatePoint !== 'activation') continue;
      const pair = { blocker: input.blocker.id, dependent: input.dependent.id };
      const cycle = graph.cycleIfAdded(pair);
      if (cycle) await this.refuseCycle(input, cycle, manager);
      graph.add(pair);
    }
    return this.repository.insertMany(edges, manager);
  }

  async lockGraph(manager: EntityManager, project: string): Promise<GrowingActivationGraph> {
    await this.repository.lockActivationGraph(manager, { project });
    return new GrowingActivationGraph(await this.repository.activationPairs(manager));
  }

  private stageChecked(inputs: readonly EdgeInput[]): number[] {
    return inputs.filter((i) => parseSatisfaction(i.satisfaction).kind === 'status').map((i) => i.blocker.id);
  }

  private checkedEdge(input: EdgeInput, blockerStages: readonly string[] | undefined): NewEdge {
    const edge = newEdge(input);
    this.checkEdge(input, edge, blockerStages);
    return edge;
  }

  private checkEdge(input: EdgeInput, edge: NewEdge, blockerStages: readonly string[] | undefined): void {
    const refusal = dependencyEdgeRefusal({
      satisfaction: edge.satisfaction,
      blockerRef: input.blocker.ref,
      blockerStages,
      evidenceLength: edge.evidenceJson.length,
    });
    if (refusal?.refuse === 'invalid_satisfaction') throw invalidSatisfaction(edge.satisfaction, refusal.detail);
    if (refusal?.refuse === 'evidence_too_large') throw evidenceTooLarge(refusal.limit);
  }

  private async refuseCycle(input: EdgeInput, cycle: number[], manager: EntityManager): Promise<never> {
    const refs = await this.refs.refsOf(cycle, manager);
    throw activationCycle(
      input.dependent.ref,
      input.blocker.ref,
      cycle.map((id) => refs.get(id) ?? `#${id}`),
    );
  }

  // For another feature that checked the caller's access itself (transfer's export): the project's edges as stored.
  edgesOfProject(project: string): Promise<EdgeRow[]> {
    return this.repository.edgesOfProject(project);
  }

  async list(
    actor: AuthenticatedActor,
    ref: string,
    direction: string | undefined,
    gatePoint: string | undefined,
  ): Promise<DependencyListResponse> {
    const item = await this.access.resolveItem(actor, ref);
    const rows = (await this.repository.edgesOf(item.id, gatePoint ?? null)).filter(
      (r) => !direction || direction === 'both' || r.direction === direction,
    );
    // a 'blocks' row's blocker is the item itself; a 'depends_on' row's blocker is sealed when in another organization
    const facts = await this.facts.facts(
      rows.map((r) => r.blocking_item_id),
      undefined,
      [item.id],
    );
    return {
      item_id: item.ref,
      dependencies: rows.map((row) => {
        const result = evaluateSatisfaction(row.satisfaction, facts.get(row.blocking_item_id), {
          blockerRef: row.blocker_ref ?? undefined,
        });
        const sealed = row.other_sealed === true;
        return {
          direction: row.direction,
          other_item: row.direction === 'depends_on' ? row.blocker_ref : row.dependent_ref,
          other_title: sealed ? null : (row.other_title ?? null),
          other_status: sealed ? null : (row.other_status ?? null),
          ...toDependencyResponse(row),
          satisfied: result.satisfied,
          reason: result.reason,
        };
      }),
    };
  }

  // Any actor who can see both items may remove an edge (the operator's call, recorded by who ran it).
  async remove(
    actor: AuthenticatedActor,
    dependentRef: string,
    blockerRef: string,
    gatePoint: string | undefined,
  ): Promise<DependencyRemovedResponse> {
    const gate = gatePoint ?? 'activation';
    // The refs found and the edge removed in one statement (ADR 0106); only when nothing was removed are the refs
    // resolved as every route resolves them, for the refusal: a ref malformed, unknown or unseen, else no such edge.
    if (REF_PATTERN.test(dependentRef) && REF_PATTERN.test(blockerRef)) {
      const projects = await this.access.visibleProjects(actor);
      const removed = await this.repository.removeByRefs(parseRef(dependentRef), parseRef(blockerRef), gate, projects);
      if (removed) return { removed: true, dependent: removed.dependent, blocker: removed.blocker, gate_point: gate };
    }
    const resolved = await this.access.resolveItems(actor, [dependentRef, blockerRef]);
    throw dependencyNotFound(resolved.get(dependentRef)!.ref, gate, resolved.get(blockerRef)!.ref);
  }
}

// The row an input asks for, unchecked.
function newEdge(input: EdgeInput): NewEdge {
  return {
    dependent: input.dependent.id,
    blocker: input.blocker.id,
    gatePoint: input.gatePoint,
    satisfaction: input.satisfaction,
    source: input.source,
    sessionId: input.sessionId,
    rationale: input.rationale,
    evidenceJson: input.evidenceJson ?? JSON.stringify(input.evidence),
    createdAt: input.createdAt,
  };
}
