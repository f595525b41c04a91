import { BlockerFacts, defaultStageAdapter, FrontierInputItem, FrontierMemo } from '@app/core';

import { AuthenticatedActor } from '../../auth/actor';
import { testActor } from '../../auth/test-actor';
import { DomainError } from '../../common/domain-error';
import type { EventsService } from '../../events/events.service';
import { itemNotFound } from '../../refs/refs.service';
import { projectNotFound } from '../frontier.errors';
import { FrontierSerializer } from '../wire/frontier-serializer';
import type { ProjectGraph } from './frontier-graph';
import type { FrontierGraphCache, GraphVersion } from './frontier-graph-cache';
import type { FrontierProjects } from './frontier-projects';
import type { FrontierRepository, ProjectRow } from './frontier.repository';
import { FrontierService } from './frontier.service';

const ACTOR = testActor();
const PROJECT: ProjectRow = { id: 'atl', name: 'Atlas', public_item_prefix: 'ATL', policy: { wip_cap: 2 } };

const item = (id: number, overrides: Partial<FrontierInputItem> = {}): FrontierInputItem => ({
  id,
  ref: `ATL-${id}`,
  title: `item ${id}`,
  status: 'planned',
  priority: 'medium',
  project: 'atl',
  workflowId: 'issue',
  workflowVersionId: 1,
  frozen: false,
  blocked: false,
  blockedReason: null,
  createdAt: '2026-01-01T00:00:00Z',
  stageAdapter: defaultStageAdapter(overrides.status ?? 'planned', false),
  lifecycleRank: 1,
  isEpic: false,
  ...overrides,
});

// ATL-2 waits on ATL-1 reaching done; ATL-3 is high priority and free.
function graphOf(): ProjectGraph {
  const items = [item(1), item(2), item(3, { priority: 'high' })];
  const facts = new Map<number, BlockerFacts>(
    items.map((i) => [
      i.id,
      {
        status: i.status,
        mergedAt: null,
        deployedEnvironments: new Set(),
        registeredEnvironments: new Set(),
        stageOrder: ['planned', 'done'],
        ref: i.ref,
        title: i.title,
      },
    ]),
  );
  return {
    project: PROJECT,
    items,
    activation: [{ blocker: 1, dependent: 2, satisfaction: 'status:done' }],
    edges: [],
    facts,
    workflows: new Map(),
    environments: new Map(),
    runs: [],
    halts: new Map(),
    blockerProjects: new Map(),
    refOf: (id) => `ATL-${id}`,
  };
}

function makeSut() {
  const version: GraphVersion = {
    fingerprint: 'v1',
    graph: graphOf(),
    results: new Map(),
    counts: new Map(),
    serializer: new FrontierSerializer(),
    memo: new FrontierMemo(),
  };
  const graphs = { cachedGraph: jest.fn(async () => ({ version, reused: true })) };
  const projects = {
    resolveProject: jest.fn(async (): Promise<ProjectRow> => PROJECT),
    resolveItem: jest.fn(async (_actor: AuthenticatedActor, ref: string) => ({
      resolved: { id: Number(ref.split('-')[1]), ref, project: 'atl' },
      project: PROJECT,
    })),
  };
  const repository = { locateItem: jest.fn(async () => ({ status: 'done' })) };
  const events = { recordBestEffort: jest.fn(async () => undefined) };
  const sut = new FrontierService(
    graphs as unknown as FrontierGraphCache,
    projects as unknown as FrontierProjects,
    repository as unknown as FrontierRepository,
    events as unknown as EventsService,
  );
  return { sut, version, graphs, projects, repository, events };
}

const recorded = (events: { recordBestEffort: jest.Mock }, call: number) =>
  (events.recordBestEffort.mock.calls[call] as [{ name: string; payload: Record<string, unknown> }])[0];

async function refusal(run: Promise<unknown>): Promise<DomainError> {
  const error = await run.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DomainError);
  return error as DomainError;
}

describe(FrontierService.name, () => {
  describe('frontierJson', () => {
    it('should refuse a project the caller cannot read before any graph is read', async () => {
      const { sut, projects, graphs, events } = makeSut();
      projects.resolveProject.mockRejectedValueOnce(projectNotFound('zzz'));
      const error = await refusal(sut.frontierJson(ACTOR, { project: 'zzz' }));
      expect(error.code).toBe('project_not_found');
      expect(graphs.cachedGraph).not.toHaveBeenCalled();
      expect(events.recordBestEffort).not.toHaveBeenCalled();
    });

    it("should compute under the project policy's wip_cap and record FrontierComputed", async () => {
      const { sut, events } = makeSut();
      const body = await sut.frontierJson(ACTOR, { project: 'atl' });
      const answer = JSON.parse(Buffer.concat(body.chunks as Buffer[]).toString());
      expect(answer.wip_cap).toBe(2);
      expect(answer.runnable.map((i: { item_id: string }) => i.item_id)).toEqual(['ATL-3', 'ATL-1']);
      expect(answer.blocked.map((i: { item_id: string }) => i.item_id)).toEqual(['ATL-2']);
      expect(recorded(events, 0)).toMatchObject({
        name: 'FrontierComputed',
        payload: { project: 'atl', wip_cap: 2, result_reused: false, counts: { runnable: 2, blocked: 1 } },
      });
    });

    it('should serve the same body for an unchanged graph without computing again', async () => {
      const { sut, events } = makeSut();
      const first = await sut.frontierJson(ACTOR, { project: 'atl' });
      const second = await sut.frontierJson(ACTOR, { project: 'atl' });
      expect(second.etag).toBe(first.etag);
      expect(recorded(events, 1).payload).toMatchObject({ result_reused: true, counts: { runnable: 2 } });
    });

    it('should keep one result per asked wip_cap', async () => {
      const { sut, version } = makeSut();
      const policy = await sut.frontierJson(ACTOR, { project: 'atl' });
      const asked = await sut.frontierJson(ACTOR, { project: 'atl', wip_cap: 0 });
      expect(asked.etag).not.toBe(policy.etag);
      expect([...version.results.keys()].sort()).toEqual([0, 2]);
    });
  });

  describe('frontierBody', () => {
    it('should record no event when asked not to (the notice computes for no caller)', async () => {
      const { sut, events } = makeSut();
      await sut.frontierBody(PROJECT, 2, null, false);
      expect(events.recordBestEffort).not.toHaveBeenCalled();
    });
  });

  describe('frontierSince', () => {
    it('should answer no delta to a client that holds the current answer', async () => {
      const { sut } = makeSut();
      const current = await sut.frontierJson(ACTOR, { project: 'atl' });
      const { outcome } = await sut.frontierSince(ACTOR, { project: 'atl' }, current.etag);
      expect(outcome).toBeNull();
    });

    it('should answer the full body for a base it never served', async () => {
      const { sut } = makeSut();
      const { outcome } = await sut.frontierSince(ACTOR, { project: 'atl' }, '"nope"');
      expect(outcome).toEqual({ full: 'unknown_base' });
    });
  });

  describe('compute', () => {
    it('should compute even when the serialized result is cached', async () => {
      const { sut, events } = makeSut();
      await sut.frontierJson(ACTOR, { project: 'atl' });
      const { computation } = await sut.compute(PROJECT, 2, 3, 11);
      expect(computation.runnable).toHaveLength(2);
      expect(recorded(events, 1)).toMatchObject({ sessionId: 11, payload: { result_reused: false } });
    });
  });

  describe('explain', () => {
    it('should refuse an item the caller cannot see', async () => {
      const { sut, projects, graphs } = makeSut();
      projects.resolveItem.mockRejectedValueOnce(itemNotFound('ATL-9'));
      const error = await refusal(sut.explain(ACTOR, 'ATL-9'));
      expect(error.code).toBe('item_not_found');
      expect(graphs.cachedGraph).not.toHaveBeenCalled();
    });

    it('should name the stored status of an item the graph does not hold (terminal)', async () => {
      const { sut, repository } = makeSut();
      const response = await sut.explain(ACTOR, 'ATL-9');
      expect(repository.locateItem).toHaveBeenCalledWith(9);
      expect(response.summary).toEqual(['not a frontier candidate: done is terminal']);
    });

    it('should not read the item again when the graph holds it', async () => {
      const { sut, repository } = makeSut();
      const response = await sut.explain(ACTOR, 'ATL-2');
      expect(repository.locateItem).not.toHaveBeenCalled();
      expect(response.summary).not.toEqual(expect.arrayContaining([expect.stringMatching(/not a frontier/)]));
    });
  });
});
