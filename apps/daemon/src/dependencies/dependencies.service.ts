import { Injectable } from '@nestjs/common';

import {
  DEFAULT_SATISFACTION,
  DependencyPair,
  evaluateSatisfaction,
  findCycleIfAdded,
  parseSatisfaction,
} from '@app/core';
import { DependencyAddWire, DependencyListEntryWire } from '@app/contracts/backlog';

import { EntityManager } from 'typeorm';

import { AuthenticatedActor } from '../auth/actor';
import { notePassed } from '../database/write-context';
import { ProjectAccessService } from '../projects/project-access.service';
import { RefsService } from '../refs/refs.service';
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

// The column's CHECK constraint, so a form the kernel parses but the table refuses is a 400, not a 500.
const STORABLE_SATISFACTION = /^(status:[a-z][a-z0-9-]*|fact:merged|fact:deployed:[A-Za-z0-9._-]+)$/;
export const EVIDENCE_LIMIT = 64 * 1024;

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
    const created = await this.repository.transaction((manager) => this.addIn(input, manager));
    const row = await this.repository.find(dependent.id, blocker.id, input.gatePoint);
    return { created, dependency: toDependencyResponse(row!) };
  }

  // Shared with import: validates the form against the blocker's pinned stages and refuses cycles.
  // `pairs` (import) is the activation graph loaded once under the lock; each accepted edge is appended.
  async addIn(input: EdgeInput, manager: EntityManager, pairs?: DependencyPair[]): Promise<boolean> {
    if (input.dependent.id === input.blocker.id) {
      throw selfDependency(input.dependent.ref);
    }
    if (await this.repository.crossesOrganization(input.dependent.id, input.blocker.id, manager)) {
      throw dependencyCrossesOrganization(input.dependent.ref, input.blocker.ref);
    }
    notePassed('org_edges');
    const form = parseSatisfaction(input.satisfaction);
    if (form.kind === 'invalid') throw invalidSatisfaction(input.satisfaction, form.error);
    if (!STORABLE_SATISFACTION.test(input.satisfaction)) {
      throw invalidSatisfaction(input.satisfaction, 'stage ids are lowercase; environment names use A-Z a-z 0-9 . _ -');
    }
    if (form.kind === 'status') {
      const [facts] = [await this.facts.facts([input.blocker.id], manager)];
      const order = facts.get(input.blocker.id)?.stageOrder ?? [];
      if (!order.includes(form.stage)) {
        throw invalidSatisfaction(
          input.satisfaction,
          `${form.stage} is not a stage of ${input.blocker.ref}'s workflow`,
        );
      }
    }
    const evidenceJson = input.evidenceJson ?? JSON.stringify(input.evidence);
    if (evidenceJson.length > EVIDENCE_LIMIT) {
      throw evidenceTooLarge(EVIDENCE_LIMIT);
    }
    if (input.gatePoint === 'activation') {
      let cycle: number[] | null;
      if (pairs) {
        cycle = findCycleIfAdded(pairs, { blocker: input.blocker.id, dependent: input.dependent.id });
      } else {
        await this.repository.lockActivationGraph(manager);
        const found = await this.repository.activationCycleIfAdded(manager, input.blocker.id, input.dependent.id);
        cycle =
          found !== undefined
            ? found
            : findCycleIfAdded(await this.repository.activationPairs(manager), {
                blocker: input.blocker.id,
                dependent: input.dependent.id,
              });
      }
      if (cycle) {
        const refs = await this.refs.refsOf(cycle, manager);
        const named = cycle.map((id) => refs.get(id) ?? `#${id}`);
        throw activationCycle(input.dependent.ref, input.blocker.ref, named);
      }
    }
    const edge: NewEdge = {
      dependent: input.dependent.id,
      blocker: input.blocker.id,
      gatePoint: input.gatePoint,
      satisfaction: input.satisfaction,
      source: input.source,
      sessionId: input.sessionId,
      rationale: input.rationale,
      evidenceJson,
      createdAt: input.createdAt,
    };
    const created = await this.repository.insert(edge, manager);
    if (created && pairs && input.gatePoint === 'activation') {
      pairs.push({ blocker: input.blocker.id, dependent: input.dependent.id });
    }
    return created;
  }

  // For another feature that checked the caller's access itself (transfer's export): the project's edges as stored.
  edgesOfProject(project: string): Promise<EdgeRow[]> {
    return this.repository.edgesOfProject(project);
  }

  async lockGraph(manager: EntityManager): Promise<DependencyPair[]> {
    await this.repository.lockActivationGraph(manager);
    return this.repository.activationPairs(manager);
  }

  async list(
    actor: AuthenticatedActor,
    ref: string,
    direction: string | undefined,
    gatePoint: string | undefined,
  ): Promise<{ item_id: string; dependencies: DependencyListEntryWire[] }> {
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
  ): Promise<{ removed: boolean; dependent: string; blocker: string; gate_point: string }> {
    const resolved = await this.access.resolveItems(actor, [dependentRef, blockerRef]);
    const dependent = resolved.get(dependentRef)!;
    const blocker = resolved.get(blockerRef)!;
    const gate = gatePoint ?? 'activation';
    if (!(await this.repository.remove(dependent.id, blocker.id, gate))) {
      throw dependencyNotFound(dependent.ref, gate, blocker.ref);
    }
    return { removed: true, dependent: dependent.ref, blocker: blocker.ref, gate_point: gate };
  }
}
