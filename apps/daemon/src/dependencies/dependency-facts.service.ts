import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

import { BlockerFacts, DependencyEdge, GateBlocker } from '@app/core';
import { GateBlockerWire } from '@app/contracts/backlog';

import { DependenciesRepository } from './dependencies.repository';
import { DeliveryRunRow, EnvironmentFactRow } from './dependency-facts.rows';

const SUCCEEDED = ['succeeded'];
const SUCCEEDED_OR_IN_FLIGHT = ['succeeded', 'pending', 'running', 'halted'];

// Loads edges and the blocker facts the kernel evaluates, in a fixed number of queries per call.
@Injectable()
export class DependencyFactsService {
  constructor(private readonly repository: DependenciesRepository) {}

  edgesFor(
    dependentIds: readonly number[],
    gatePoint: string | null,
    manager?: EntityManager,
  ): Promise<DependencyEdge[]> {
    return this.repository.edgesForDependents(dependentIds, gatePoint, manager);
  }

  // The frontier and the gates both read delivery facts here, so a blocker is satisfied on one exactly when on the
  // other.
  async deliveryFacts(
    itemIds: readonly number[],
    projects: readonly string[],
    options: { inFlight?: boolean; manager?: EntityManager } = {},
  ): Promise<{ runs: DeliveryRunRow[]; environments: EnvironmentFactRow[] }> {
    const [runs, environments] = await Promise.all([
      this.repository.runsCarrying(itemIds, options.inFlight ? SUCCEEDED_OR_IN_FLIGHT : SUCCEEDED, options.manager),
      this.repository.environmentsOf([...new Set(projects)], options.manager),
    ]);
    return { runs, environments };
  }

  // A blocker in another organization than one of `dependents` comes sealed: it gates, but its title and status are
  // not told.
  async facts(
    ids: readonly number[],
    manager?: EntityManager,
    dependents: readonly number[] = [],
  ): Promise<Map<number, BlockerFacts>> {
    const unique = [...new Set(ids)];
    const facts = new Map<number, BlockerFacts>();
    if (unique.length === 0) return facts;
    const items = await this.repository.blockerItems(unique, [...new Set(dependents)], manager);
    const { runs, environments } = await this.deliveryFacts(
      unique,
      items.map((i) => i.project),
      { manager },
    );
    const deployedBy = new Map<number, Set<string>>();
    for (const d of runs) deployedBy.set(d.item_id, (deployedBy.get(d.item_id) ?? new Set()).add(d.environment));
    const registeredBy = new Map<string, Set<string>>();
    for (const e of environments) {
      registeredBy.set(e.project, (registeredBy.get(e.project) ?? new Set()).add(e.name));
    }
    // one array per workflow version: the kernel caches its stage index by array identity
    const orders = new Map<number, string[]>();
    for (const item of items) {
      if (!orders.has(item.workflow_version_id)) orders.set(item.workflow_version_id, item.stages);
      facts.set(item.id, {
        status: item.status,
        mergedAt: item.merged_at,
        deployedEnvironments: deployedBy.get(item.id) ?? new Set(),
        registeredEnvironments: registeredBy.get(item.project) ?? new Set(),
        stageOrder: orders.get(item.workflow_version_id),
        ref: item.ref,
        title: item.title,
        ...(item.sealed ? { sealed: true } : {}),
      });
    }
    return facts;
  }
}

export function toGateBlockerWire(
  blocker: GateBlocker,
  gatePoint: string,
  facts: ReadonlyMap<number, BlockerFacts>,
): GateBlockerWire {
  return {
    blocker: facts.get(blocker.blocker)?.ref ?? null,
    gate_point: gatePoint,
    satisfaction: blocker.satisfaction,
    reason: blocker.reason,
    need: blocker.need,
    blocker_status: blocker.blocker_status,
    blocker_title: blocker.blocker_title,
    blocking_terminal: blocker.blocking_terminal,
    blocking_abandoned: blocker.blocking_abandoned,
  };
}
