import fc from 'fast-check';

import {
  BlockerFacts,
  computeFrontier,
  createRefResolver,
  defaultStageAdapter,
  FrontierEdge,
  FrontierInputItem,
} from '@app/core';

import { FrontierSerializer, serializeFrontier } from './frontier-serializer';
import { toFrontierResultWire } from './frontier.mapper';

const STATUSES = ['idea', 'planned', 'implementing', 'release', 'done', 'cancelled'];
const PRIORITIES = ['high', 'medium', 'low'];

interface World {
  items: FrontierInputItem[];
  edges: FrontierEdge[];
  facts: Map<number, BlockerFacts>;
}

function world(size: number, statuses: number[], edges: [number, number][], titles: number[]): World {
  const items: FrontierInputItem[] = [];
  for (let id = 1; id <= size; id++) {
    const status = STATUSES[statuses[id % statuses.length] % STATUSES.length];
    items.push({
      id,
      ref: `A-${id}`,
      title: `item ${id}${'!'.repeat(titles[id % titles.length] % 3)} "quoted" ✓`,
      status,
      priority: PRIORITIES[id % 3],
      project: 'alpha',
      workflowId: 'issue',
      workflowVersionId: 1,
      frozen: id % 11 === 0,
      blocked: id % 13 === 0,
      blockedReason: id % 26 === 0 ? 'held' : null,
      createdAt: `2026-01-01T00:00:${String(id % 60).padStart(2, '0')}.000`,
      stageAdapter: defaultStageAdapter(status, false),
      lifecycleRank: STATUSES.indexOf(status),
      isEpic: false,
    });
  }
  const facts = new Map<number, BlockerFacts>(
    items.map((i): [number, BlockerFacts] => [
      i.id,
      {
        status: i.status,
        mergedAt: null,
        deployedEnvironments: new Set(),
        registeredEnvironments: new Set(),
        ref: i.ref,
        title: i.title,
      },
    ]),
  );
  return {
    items: items.filter((i) => i.status !== 'done' && i.status !== 'cancelled'),
    edges: edges.map(([b, d]) => ({
      blocker: (b % (size + 2)) + 1,
      dependent: (d % size) + 1,
      satisfaction: 'status:done',
    })),
    facts,
  };
}

const worldArb = fc
  .record({
    statuses: fc.array(fc.nat(), { minLength: 1, maxLength: 30 }),
    edges: fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 40 }),
    titles: fc.array(fc.nat(), { minLength: 1, maxLength: 5 }),
    wipCap: fc.nat(5),
  })
  .map((w) => ({ ...world(25, w.statuses, w.edges, w.titles), wipCap: w.wipCap }));

describe(FrontierSerializer.name, () => {
  it('should give, after any sequence of answers, exactly the bytes and tag of serializing the whole answer', () => {
    fc.assert(
      fc.property(fc.array(worldArb, { minLength: 1, maxLength: 6 }), (worlds) => {
        const sut = new FrontierSerializer();
        for (const w of worlds) {
          const computation = computeFrontier({
            items: w.items,
            edges: w.edges,
            blockerFacts: w.facts,
            wipCap: w.wipCap,
          });
          const refOf = createRefResolver(w.items, w.facts);
          const expected = serializeFrontier(toFrontierResultWire(computation, refOf));
          const got = sut.serialize(computation, refOf);
          expect(got.body.toString('utf8')).toBe(expected.body.toString('utf8'));
          expect(got.etag).toBe(expected.etag);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('should re-render only the items whose wire fields changed', () => {
    const w = world(25, [1], [], [0]);
    const sut = new FrontierSerializer();
    const first = computeFrontier({ items: w.items, edges: w.edges, blockerFacts: w.facts, wipCap: 3 });
    sut.serialize(first, createRefResolver(w.items, w.facts));
    const items = w.items.map((i) => (i.id === 5 ? { ...i, title: 'renamed' } : i));
    const second = computeFrontier({ items, edges: w.edges, blockerFacts: w.facts, wipCap: 3 });
    const body = sut.serialize(second, createRefResolver(items, w.facts)).body.toString('utf8');
    expect(sut.rendered).toBe(1);
    expect(sut.reused).toBe(items.length - 1);
    expect(body).toContain('"title":"renamed"');
  });
});
