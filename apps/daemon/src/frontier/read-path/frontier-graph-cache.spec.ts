import { computeFrontier, FrontierMemo, isTerminalStatus } from '@app/core';

import { DEFAULT_FRONTIER_CACHE_BUDGET } from '../../config/app-config';
import { DependencyFactsService } from '../../dependencies/dependency-facts.service';
import { ACTIVATION_ONLY, FrontierGraphCache } from './frontier-graph-cache';
import { FrontierObserver, GraphRefreshOutcome } from './frontier-observer';
import { ProjectGraph } from './frontier-graph';
import { bodyBytes, serializeFrontier } from '../wire/frontier-serializer';
import { toFrontierResultWire } from '../wire/frontier.mapper';
import {
  ChangeSet,
  ChangedItemRow,
  EdgeRow,
  FrontierRepository,
  ProjectRow,
  TombstoneRow,
} from './frontier.repository';

const PROJECT: ProjectRow = { id: 'p', public_item_prefix: 'BN', policy: {} } as never;

function item(id: number, status = 'planned'): ChangedItemRow {
  return {
    id,
    prefix: 'BN',
    seq: id,
    title: `Item ${id}`,
    status,
    priority: 'medium',
    project: 'p',
    workflow_id: 'issue',
    workflow_version_id: 1,
    frozen: 0,
    blocked: 0,
    blocked_reason: null,
    created_at: '2026-01-01T00:00:00.000',
    merged_at: null,
  };
}

function edge(id: number, blocker: number, dependent: number): EdgeRow {
  return { id, blocker, dependent, satisfaction: 'status:done', g: 'activation', r: '' };
}

// The rows of one project as the database holds them, and what was written since the last refresh.
class Rows {
  items = new Map<number, ChangedItemRow>();
  edges = new Map<number, EdgeRow>();
  written: Pick<ChangeSet, 'items' | 'edges'> = { items: [], edges: [] };
  tombstones: TombstoneRow[] = [];
  // a deployment row was written since the last refresh
  delivery = false;

  write(rows: ChangedItemRow[], edges: EdgeRow[] = []): void {
    for (const row of rows) this.items.set(row.id, row);
    for (const e of edges) this.edges.set(e.id!, e);
    this.written = { items: [...this.written.items, ...rows], edges: [...this.written.edges, ...edges] };
  }

  deleteEdge(id: number): void {
    this.edges.delete(id);
    this.written = { ...this.written, edges: this.written.edges.filter((e) => e.id !== id) };
    this.tombstones.push({ table_name: 'item_dependencies', row_id: String(id) });
  }

  deleteItem(id: number): void {
    this.items.delete(id);
    this.written = { ...this.written, items: this.written.items.filter((row) => row.id !== id) };
    this.tombstones.push({ table_name: 'items', row_id: String(id) });
    for (const e of [...this.edges.values()]) if (e.dependent === id || e.blocker === id) this.deleteEdge(e.id!);
  }

  private candidate(id: number): boolean {
    const row = this.items.get(id);
    return row !== undefined && row.project === 'p' && !isTerminalStatus(row.status);
  }

  repository(): FrontierRepository {
    const candidates = () => [...this.items.values()].filter((r) => this.candidate(r.id)).sort((a, b) => a.id - b.id);
    const edgesOf = (ids: ReadonlySet<number>) =>
      [...this.edges.values()].filter((e) => ids.has(e.dependent)).sort((a, b) => a.id! - b.id!);
    const blockers = (ids: readonly number[]) =>
      ids.flatMap((id) => (this.items.has(id) ? [{ ...this.items.get(id)! }] : []));
    return {
      watermark: async () => '1',
      findCandidates: async () => candidates(),
      findEdges: async () => edgesOf(new Set(candidates().map((r) => r.id))),
      findOutsideBlockers: async () => {
        const ids = edgesOf(new Set(candidates().map((r) => r.id))).map((e) => e.blocker);
        return blockers([...new Set(ids)].filter((id) => !this.candidate(id)).sort((a, b) => a - b));
      },
      findDeploymentHalts: async () => [],
      projectsOutsideOrganizationOf: async () => [],
      findWorkflowVersions: async (ids: readonly number[]) =>
        ids.map((id) => ({ id, workflow_id: 'issue', definition: { stages: [{ id: 'planned' }, { id: 'done' }] } })),
      // as the database answers: each changed row once, as it is now
      findChangesSince: async () => {
        const items = [...new Map(this.written.items.map((row) => [row.id, this.items.get(row.id)!])).values()];
        const edges = [...new Map(this.written.edges.map((e) => [e.id!, this.edges.get(e.id!)!])).values()];
        const { tombstones, delivery } = this;
        this.written = { items: [], edges: [] };
        this.tombstones = [];
        this.delivery = false;
        return { watermark: '1', items, edges, tombstones, delivery, pruned: false };
      },
      findEdgesOfDependents: async (ids: readonly number[]) => edgesOf(new Set(ids)),
      findItemsById: async (ids: readonly number[]) => blockers(ids),
    } as unknown as FrontierRepository;
  }
}

function snapshot(graph: ProjectGraph) {
  return {
    items: graph.items,
    edges: graph.edges,
    activation: graph.activation,
    facts: [...graph.facts.entries()].sort((a, b) => a[0] - b[0]),
    blockerProjects: [...graph.blockerProjects.entries()].sort((a, b) => a[0] - b[0]),
    answer: computeFrontier({ items: graph.items, edges: graph.activation, blockerFacts: graph.facts, wipCap: 3 }),
  };
}

describe(FrontierGraphCache.name, () => {
  let rows: Rows;
  let sut: FrontierGraphCache;

  beforeEach(() => {
    rows = new Rows();
    rows.write([1, 2, 3, 4].map((id) => item(id)).concat(item(5, 'done')), [edge(1, 1, 2), edge(2, 5, 3)]);
    rows.written = { items: [], edges: [] };
    sut = new FrontierGraphCache(rows.repository(), {} as DependencyFactsService);
  });

  describe('currentGraph', () => {
    it('should grow the graph for a new item with its dependencies, equal to a full load', async () => {
      const before = await sut.currentGraph(PROJECT);
      rows.write([item(6)], [edge(3, 2, 6), edge(4, 6, 1)]);
      const after = await sut.currentGraph(PROJECT);

      expect(snapshot(after)).toEqual(snapshot(await sut.loadGraph(PROJECT)));
      // grown, not built: the same refOf and the same objects for the rows that did not change
      expect(after.refOf).toBe(before.refOf);
      expect(after.items[0]).toBe(before.items[0]);
    });

    it('should shrink the graph for an item that blocks another leaving for a terminal status', async () => {
      const before = await sut.currentGraph(PROJECT);
      rows.write([item(1, 'done')]);
      const after = await sut.currentGraph(PROJECT);

      expect(snapshot(after)).toEqual(snapshot(await sut.loadGraph(PROJECT)));
      expect(after.items.map((i) => i.id)).toEqual([2, 3, 4]);
      // still named by 2's dependency: a terminal blocker now
      expect(after.facts.get(1)?.status).toBe('done');
      // shrunk, not built: the same refOf and the same objects for the rows that did not change
      expect(after.refOf).toBe(before.refOf);
      expect(after.items[0]).toBe(before.items[1]);
    });

    it('should shrink the graph for an item leaving with its dependency, dropping the blocker only it named', async () => {
      const before = await sut.currentGraph(PROJECT);
      rows.write([item(3, 'done')]);
      const after = await sut.currentGraph(PROJECT);

      expect(snapshot(after)).toEqual(snapshot(await sut.loadGraph(PROJECT)));
      expect(after.facts.has(5)).toBe(false);
      expect(after.facts.has(3)).toBe(false);
      expect(after.refOf).toBe(before.refOf);
      // the state the next build reads dropped them too: a deployment write builds over it as it is
      rows.delivery = true;
      const rebuilt = await sut.currentGraph(PROJECT);

      expect(rebuilt.refOf).not.toBe(before.refOf);
      expect(snapshot(rebuilt)).toEqual(snapshot(await sut.loadGraph(PROJECT)));
      expect(rebuilt.facts.has(5)).toBe(false);
    });

    it('should shrink for items leaving together, then join them coming back, equal to a full load', async () => {
      const before = await sut.currentGraph(PROJECT);
      rows.write([item(1, 'done'), item(2, 'cancelled')]);
      const shrunk = await sut.currentGraph(PROJECT);

      expect(snapshot(shrunk)).toEqual(snapshot(await sut.loadGraph(PROJECT)));
      expect(shrunk.facts.has(1)).toBe(false);
      rows.write([item(1)]);
      const one = await sut.currentGraph(PROJECT);

      expect(snapshot(one)).toEqual(snapshot(await sut.loadGraph(PROJECT)));
      expect(one.items.map((i) => i.id)).toEqual([1, 3, 4]);
      rows.write([item(2)]);
      const two = await sut.currentGraph(PROJECT);

      expect(snapshot(two)).toEqual(snapshot(await sut.loadGraph(PROJECT)));
      expect(two.items.map((i) => i.id)).toEqual([1, 2, 3, 4]);
      // joined, not built
      expect(two.refOf).toBe(before.refOf);
    });

    it('should join an outside blocker coming back with its dependency on a terminal blocker it has read', async () => {
      const before = await sut.currentGraph(PROJECT);
      rows.write([item(1, 'done')], [edge(3, 5, 1)]);
      const away = await sut.currentGraph(PROJECT);
      rows.write([item(1)]);
      const back = await sut.currentGraph(PROJECT);

      expect(snapshot(away)).not.toEqual(snapshot(back));
      expect(snapshot(back)).toEqual(snapshot(await sut.loadGraph(PROJECT)));
      expect(back.edges.map((e) => e.id)).toEqual([1, 2, 3]);
      expect(back.blockerProjects.has(1)).toBe(false);
      expect(back.refOf).toBe(before.refOf);
    });

    it('should build the graph for an item coming back whose dependency names a blocker it has not read', async () => {
      const before = await sut.currentGraph(PROJECT);
      rows.write([item(7, 'done'), item(4, 'done')], [edge(3, 7, 4)]);
      await sut.currentGraph(PROJECT);
      rows.write([item(4)]);
      const back = await sut.currentGraph(PROJECT);

      expect(snapshot(back)).toEqual(snapshot(await sut.loadGraph(PROJECT)));
      expect(back.facts.get(7)?.status).toBe('done');
      expect(back.refOf).not.toBe(before.refOf);
    });

    it('should take a dependency removed out, dropping the outside blocker only it named', async () => {
      const before = await sut.currentGraph(PROJECT);
      rows.deleteEdge(2);
      const after = await sut.currentGraph(PROJECT);

      expect(snapshot(after)).toEqual(snapshot(await sut.loadGraph(PROJECT)));
      expect(after.facts.has(5)).toBe(false);
      expect(after.edges.map((e) => e.id)).toEqual([1]);
      // not built: the same items array and refOf
      expect(after.items).toBe(before.items);
      expect(after.refOf).toBe(before.refOf);
      expect(after.refOf(5)).toBe('BN-5');
    });

    it('should keep an outside blocker a removed dependency named when one added in the same refresh names it', async () => {
      const before = await sut.currentGraph(PROJECT);
      rows.deleteEdge(2);
      rows.write([item(3, 'planned'), { ...item(2), title: 'renamed' }], [edge(3, 5, 4)]);
      const after = await sut.currentGraph(PROJECT);

      expect(snapshot(after)).toEqual(snapshot(await sut.loadGraph(PROJECT)));
      expect(after.facts.get(5)?.status).toBe('done');
      expect(after.refOf).toBe(before.refOf);
    });

    it('should keep an item leaving as an outside blocker when a dependency added in the same refresh names it', async () => {
      const before = await sut.currentGraph(PROJECT);
      rows.write([item(4, 'done'), item(6)], [edge(3, 4, 3), edge(4, 6, 2)]);
      const after = await sut.currentGraph(PROJECT);

      expect(snapshot(after)).toEqual(snapshot(await sut.loadGraph(PROJECT)));
      expect(after.facts.get(4)?.status).toBe('done');
      expect(after.blockerProjects.get(4)).toBe('p');
      expect(after.refOf).toBe(before.refOf);
    });

    it('should compose an update, a new item, an edge added, an edge removed and a terminal move in one refresh', async () => {
      const before = await sut.currentGraph(PROJECT);
      const memo = new FrontierMemo();
      const answer = (graph: ProjectGraph, with_?: FrontierMemo) =>
        computeFrontier({ items: graph.items, edges: graph.activation, blockerFacts: graph.facts, wipCap: 3 }, with_);
      answer(before, memo);
      rows.deleteEdge(1);
      rows.write([{ ...item(3), priority: 'high' }, item(6), item(4, 'done')], [edge(3, 2, 6), edge(4, 6, 3)]);
      const after = await sut.currentGraph(PROJECT);
      const cold = await sut.loadGraph(PROJECT);

      expect(snapshot(after)).toEqual(snapshot(cold));
      expect(answer(after, memo)).toEqual(answer(cold));
      expect(after.refOf).toBe(before.refOf);
      expect(after.items[0]).toBe(before.items[0]);
    });

    it('should build the graph for a dependency removed with a delivery row written in the same refresh', async () => {
      const before = await sut.currentGraph(PROJECT);
      rows.deleteEdge(2);
      rows.delivery = true;
      const after = await sut.currentGraph(PROJECT);

      expect(snapshot(after)).toEqual(snapshot(await sut.loadGraph(PROJECT)));
      expect(after.refOf).not.toBe(before.refOf);
    });

    it('should build the graph when an item leaves for another project', async () => {
      const before = await sut.currentGraph(PROJECT);
      rows.write([{ ...item(1), project: 'q' }]);
      const after = await sut.currentGraph(PROJECT);

      expect(snapshot(after)).toEqual(snapshot(await sut.loadGraph(PROJECT)));
      expect(after.refOf).not.toBe(before.refOf);
    });

    it('should build the graph when a new edge names a blocker it has not read', async () => {
      await sut.currentGraph(PROJECT);
      rows.write([item(7, 'done')]);
      rows.written = { items: [], edges: [] };
      rows.write([item(6)], [edge(3, 7, 6)]);
      const after = await sut.currentGraph(PROJECT);

      expect(snapshot(after)).toEqual(snapshot(await sut.loadGraph(PROJECT)));
      expect(after.facts.get(7)?.status).toBe('done');
    });
  });

  describe('budget', () => {
    // Projects of `items` candidates in a chain (items - 1 edges), never written: a graph's size is 2 × items - 1.
    class Projects {
      sizes = new Map<string, number>();
      outcomes: GraphRefreshOutcome[] = [];
      evicted = 0;

      project(id: string, items: number, policy: Record<string, unknown> = {}): ProjectRow {
        this.sizes.set(id, items);
        return { id, public_item_prefix: id.toUpperCase(), policy } as never;
      }

      cache(budget?: number): FrontierGraphCache {
        const base = (project: string) => [...this.sizes.keys()].indexOf(project) * 1_000_000;
        const candidates = (project: string) =>
          Array.from({ length: this.sizes.get(project)! }, (_, k) => ({ ...item(base(project) + k + 1), project }));
        const repository = {
          watermark: async () => '1',
          findCandidates: async (project: string) => candidates(project),
          findEdges: async (project: string) =>
            candidates(project)
              .slice(1)
              .map((row) => edge(row.id, row.id - 1, row.id)),
          findOutsideBlockers: async () => [],
          findDeploymentHalts: async () => [],
          findWorkflowVersions: async (ids: readonly number[]) =>
            ids.map((id) => ({ id, workflow_id: 'issue', definition: { stages: [{ id: 'planned' }] } })),
          findChangesSince: async () => ({
            watermark: '1',
            items: [],
            edges: [],
            tombstones: [],
            delivery: false,
            pruned: false,
          }),
        } as unknown as FrontierRepository;
        const observer = new FrontierObserver();
        observer.subscribe({
          graphRefreshed: (_ms, outcome) => this.outcomes.push(outcome),
          graphsEvicted: (count) => (this.evicted += count),
        });
        return new FrontierGraphCache(
          repository,
          {} as DependencyFactsService,
          observer,
          budget === undefined ? undefined : { frontierCacheBudget: budget },
        );
      }

      // the outcome of one read of each project, in order
      async read(cache: FrontierGraphCache, ...projects: ProjectRow[]): Promise<GraphRefreshOutcome[]> {
        this.outcomes = [];
        for (const project of projects) await cache.cachedGraph(project, ACTIVATION_ONLY);
        return this.outcomes;
      }
    }

    it('should keep 200 followed projects of 1,000 items under the default budget', async () => {
      const projects = new Projects();
      const followed = Array.from({ length: 200 }, (_, k) => projects.project(`p${k}`, 1000));
      const cache = projects.cache();

      expect(2 * 1000 * 200).toBeLessThan(DEFAULT_FRONTIER_CACHE_BUDGET);
      expect(new Set(await projects.read(cache, ...followed))).toEqual(new Set(['load']));
      expect(new Set(await projects.read(cache, ...followed))).toEqual(new Set(['unchanged']));
      expect(projects.evicted).toBe(0);
    });

    it('should let the least recently used graphs go when a load passes the budget', async () => {
      const projects = new Projects();
      const [a, b, c] = ['a', 'b', 'c'].map((id) => projects.project(id, 5));
      // 9 each: two fit, three do not
      const cache = projects.cache(20);
      await projects.read(cache, a, b, a);

      expect(await projects.read(cache, c)).toEqual(['load']);
      expect(projects.evicted).toBe(1);
      // b was the least recently read
      expect(await projects.read(cache, a, c)).toEqual(['unchanged', 'unchanged']);
      expect(await projects.read(cache, b)).toEqual(['load']);
      // then a
      expect(await projects.read(cache, c, b, a)).toEqual(['unchanged', 'unchanged', 'load']);
    });

    it('should keep a graph larger than the whole budget alone', async () => {
      const projects = new Projects();
      const small = projects.project('small', 2);
      const large = projects.project('large', 50);
      const cache = projects.cache(10);
      await projects.read(cache, small);

      expect(await projects.read(cache, large, large)).toEqual(['load', 'unchanged']);
      expect(await projects.read(cache, small)).toEqual(['load']);
      expect(await projects.read(cache, small, large)).toEqual(['unchanged', 'load']);
    });

    it('should let a stale graph of a project go before its new one is counted', async () => {
      const projects = new Projects();
      const other = projects.project('other', 5);
      const before = projects.project('p', 4);
      const cache = projects.cache(20);
      await projects.read(cache, other, before);
      // the project row changed (its policy): its graph is loaded again
      const after = projects.project('p', 4, { wip_cap: 3 });

      expect(await projects.read(cache, after)).toEqual(['load']);
      // 9 + 7 fit: the stale 7 were not counted
      expect(await projects.read(cache, other)).toEqual(['unchanged']);
      expect(projects.evicted).toBe(0);
    });
  });
});

// mulberry32: a fixed-seed source for the generated cases
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// The kinds of write a refresh can find together. The last three are never composed: the graph is built.
const WRITE_KINDS = [
  'title',
  'priority',
  'block',
  'new item',
  'dependency added',
  'dependency removed',
  // one removed, one naming the same blocker added: the blocker stays
  'dependency moved',
  'to terminal',
  'back from terminal',
  'outside blocker changed',
  'to another project',
  'item deleted',
] as const;
const COMPOSABLE_KINDS = WRITE_KINDS.length - 3;

// Random writes of every kind into one project's rows, several in one refresh.
class Writer {
  private nextItem = 100;
  private nextEdge = 100;
  private written = 0;

  constructor(
    private readonly rows: Rows,
    private readonly next: () => number,
  ) {}

  private pick<T>(list: readonly T[]): T | undefined {
    return list.length === 0 ? undefined : list[Math.floor(this.next() * list.length)];
  }

  private ofProject(open: boolean): ChangedItemRow[] {
    return [...this.rows.items.values()].filter((r) => r.project === 'p' && isTerminalStatus(r.status) !== open);
  }

  private newEdge(blocker: number, dependent: number): EdgeRow {
    return {
      ...edge(this.nextEdge++, blocker, dependent),
      satisfaction: this.next() < 0.8 ? 'status:done' : 'fact:merged',
    };
  }

  write(kind: (typeof WRITE_KINDS)[number]): void {
    const open = this.pick(this.ofProject(true));
    const any = this.pick([...this.rows.items.values()]);
    const w = ++this.written;
    if (kind === 'title' && open) this.rows.write([{ ...open, title: `written ${w}` }]);
    if (kind === 'priority' && open) this.rows.write([{ ...open, priority: this.pick(['high', 'medium', 'low'])! }]);
    if (kind === 'block' && open) this.rows.write([{ ...open, blocked: 1 - open.blocked, blocked_reason: 'held' }]);
    if (kind === 'new item') {
      const id = this.nextItem++;
      const deps = [any, this.pick([...this.rows.items.values()])].filter((r) => r !== undefined);
      this.rows.write(
        [item(id)],
        deps.filter(() => this.next() < 0.6).map((r) => this.newEdge(r.id, id)),
      );
    }
    if (kind === 'dependency added' && any && open) this.rows.write([], [this.newEdge(any.id, open.id)]);
    if (kind === 'dependency removed') {
      const gone = this.pick([...this.rows.edges.keys()]);
      if (gone !== undefined) this.rows.deleteEdge(gone);
    }
    const moved = this.pick([...this.rows.edges.values()]);
    if (kind === 'dependency moved' && moved && open) {
      this.rows.deleteEdge(moved.id!);
      this.rows.write([], [this.newEdge(moved.blocker, open.id)]);
    }
    if (kind === 'to terminal' && open) this.rows.write([{ ...open, status: this.pick(['done', 'cancelled'])! }]);
    const away = this.pick(this.ofProject(false));
    if (kind === 'back from terminal' && away) this.rows.write([{ ...away, status: 'planned' }]);
    const other = this.pick([...this.rows.items.values()].filter((r) => r.project === 'q'));
    if (kind === 'outside blocker changed' && other) this.rows.write([{ ...other, title: `written ${w}` }]);
    if (kind === 'to another project' && open) this.rows.write([{ ...open, project: 'q' }]);
    if (kind === 'item deleted' && open) this.rows.deleteItem(open.id);
  }

  // a backlog of open and terminal items of the project, terminal ones of another, and edges among them
  seed(size: number): void {
    const rows: ChangedItemRow[] = [];
    for (let id = 1; id <= size; id++) {
      const terminal = this.next() < 0.3;
      const row = terminal ? item(id, this.pick(['done', 'cancelled'])!) : item(id);
      rows.push(this.next() < 0.1 ? { ...row, project: 'q', status: 'done' } : row);
    }
    this.rows.write(rows);
    for (let k = 0; k < size * 1.5; k++) {
      const dependent = this.pick(rows)!;
      this.rows.write([], [this.newEdge(this.pick(rows)!.id, dependent.id)]);
    }
    this.rows.written = { items: [], edges: [] };
  }
}

describe('FrontierGraphCache over mixed refreshes', () => {
  const answerOf = (graph: ProjectGraph, memo?: FrontierMemo) =>
    computeFrontier({ items: graph.items, edges: graph.activation, blockerFacts: graph.facts, wipCap: 3 }, memo);
  const bytesOf = (graph: ProjectGraph) =>
    bodyBytes(serializeFrontier(toFrontierResultWire(answerOf(graph), graph.refOf))).toString();

  it.each([1, 2, 3, 4, 5, 6])(
    'should keep the graph, the answer with the memo and its bytes equal to a full load (seed %i)',
    async (seed) => {
      const next = random(seed);
      const rows = new Rows();
      const writer = new Writer(rows, next);
      writer.seed(40);
      const sut = new FrontierGraphCache(rows.repository(), {} as DependencyFactsService);
      let composed = 0;
      for (let refresh = 0; refresh < 40; refresh++) {
        const { version: before } = await sut.cachedGraph(PROJECT, ACTIVATION_ONLY);
        const writes = 1 + Math.floor(next() * 5);
        // now and then a kind that is never composed, so the builds between stay covered too
        const kinds = next() < 0.15 ? WRITE_KINDS.length : COMPOSABLE_KINDS;
        for (let k = 0; k < writes; k++) writer.write(WRITE_KINDS[Math.floor(next() * kinds)]);
        const { version } = await sut.cachedGraph(PROJECT, ACTIVATION_ONLY);
        const cold = await sut.loadGraph(PROJECT);

        expect(snapshot(version.graph)).toEqual(snapshot(cold));
        expect(answerOf(version.graph, version.memo)).toEqual(answerOf(cold));
        const served = version.serializer.serialize(answerOf(version.graph, version.memo), version.graph.refOf);
        expect(bodyBytes(served).toString()).toBe(bytesOf(cold));
        if (kinds === COMPOSABLE_KINDS && version.graph.refOf === before.graph.refOf) composed++;
      }
      // most refreshes of composable kinds are composed (a new edge naming a blocker not read still builds)
      expect(composed).toBeGreaterThan(20);
    },
  );
});
