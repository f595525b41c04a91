import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

import { ActivationGraph } from '@app/core';

import { DependenciesRepository } from './dependencies.repository';

// Organizations whose activation graphs are kept (least recently checked let go first).
const ORGANIZATIONS_KEPT = 16;

interface Kept {
  graph: ActivationGraph;
  watermark: string;
}

// The cycle check in memory, per organization, refreshed before each check from the edges written and deleted since
// (change stamps and tombstones). It runs in the adding transaction, after its insert, and takes the organization's
// lock in the round trip that reads the changes (ADR 0097): every edge checked before has committed and is read, and
// an edge inserted but still waiting for the lock is checked after, against this one: exact across replicas. The
// reads leave the transaction's own edge out (a refusal rolls it back); the next check reads it back once committed.
//
// At boot the organizations with the most activation edges have their graphs loaded in the background (ADR 0097): a
// load is a watermark and the committed edges, read under no lock, and the first check reads what changed since, so
// the first addition after a boot does not wait for a whole organization's edges (about half a second at 100k items).
@Injectable()
export class ActivationGraphCache implements OnApplicationBootstrap {
  private readonly logger = new Logger(ActivationGraphCache.name);
  private readonly kept = new Map<string, Kept>();
  // one refresh at a time per organization in this process (concurrent transactions share its graph); a check
  // waiting for one organization's lock holds no other organization's back
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(private readonly repository: DependenciesRepository) {}

  onApplicationBootstrap(): void {
    setImmediate(() => {
      void this.warm().catch((err: unknown) =>
        this.logger.warn(`activation graphs not loaded at boot: ${err instanceof Error ? err.message : String(err)}`),
      );
    });
  }

  // Each organization's graph not kept yet, loaded in its turn (a check that comes first loads it itself).
  async warm(): Promise<void> {
    const manager = this.repository.manager;
    for (const organization of await this.repository.busiestActivationOrganizations(ORGANIZATIONS_KEPT)) {
      const key = `${organization ?? ''}`;
      await this.inTurn(key, async () => {
        if (!this.kept.has(key)) this.keep(key, await this.load(manager, organization));
      });
    }
  }

  // Takes the organization's activation lock (held to the transaction's end), then checks.
  cycleIfAdded(
    manager: EntityManager,
    organization: number | null,
    blocker: number,
    dependent: number,
  ): Promise<number[] | null> {
    const key = `${organization ?? ''}`;
    return this.inTurn(key, async () =>
      (await this.current(manager, key, organization)).cycleIfAdded(blocker, dependent),
    );
  }

  private inTurn<T>(key: string, work: () => Promise<T>): Promise<T> {
    const run = (this.queues.get(key) ?? Promise.resolve()).then(work);
    const settled = run.catch(() => undefined);
    this.queues.set(key, settled);
    void settled.then(() => {
      if (this.queues.get(key) === settled) this.queues.delete(key);
    });
    return run;
  }

  private async current(manager: EntityManager, key: string, organization: number | null): Promise<ActivationGraph> {
    const hit = this.kept.get(key);
    // dropped first: a failed refresh never leaves a half-applied graph behind
    this.kept.delete(key);
    let kept: Kept;
    if (hit) {
      const changes = await this.repository.activationChangesSince(manager, organization, hit.watermark, true);
      if (changes.reload) {
        kept = await this.load(manager, organization);
      } else {
        for (const id of changes.deleted) hit.graph.remove(Number(id));
        for (const [id, blocker, dependent, activation] of changes.edges) {
          if (activation) hit.graph.add(id, blocker, dependent);
          else hit.graph.remove(id);
        }
        hit.watermark = changes.watermark;
        kept = hit;
      }
    } else {
      await this.repository.lockActivationGraph(manager, { organization });
      kept = await this.load(manager, organization);
    }
    this.keep(key, kept);
    return kept.graph;
  }

  private keep(key: string, kept: Kept): void {
    this.kept.set(key, kept);
    while (this.kept.size > ORGANIZATIONS_KEPT) this.kept.delete(this.kept.keys().next().value as string);
  }

  private async load(manager: EntityManager, organization: number | null): Promise<Kept> {
    const { watermark, edges } = await this.repository.activationEdgesOf(manager, organization);
    const graph = new ActivationGraph();
    graph.load(edges);
    return { graph, watermark };
  }
}
