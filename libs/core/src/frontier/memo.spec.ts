import fc from 'fast-check';

import { BlockerFacts } from '../dependencies/satisfaction';
import { computeFrontier, defaultStageAdapter, FrontierMemo } from './compute-frontier';
import { alignItems } from './memo';
import { FrontierComputation, FrontierEdge, FrontierInputItem, FrontierItem } from './vocabulary';

const STATUSES = ['idea', 'planned', 'implementing', 'reviewing-implementation', 'release', 'done', 'cancelled'];
const PRIORITIES = ['high', 'medium', 'low'];
const SATISFACTIONS = ['status:done', 'status:implementing', 'fact:merged'];

interface Spec {
  status: number;
  priority: number;
  frozen: boolean;
  blocked: boolean;
  created: number;
}

function inputItem(id: number, spec: Spec): FrontierInputItem {
  const status = STATUSES[spec.status % STATUSES.length];
  return {
    id,
    ref: `A-${id}`,
    title: `item ${id}`,
    status,
    priority: PRIORITIES[spec.priority % PRIORITIES.length],
    project: 'alpha',
    workflowId: 'issue',
    workflowVersionId: 1,
    frozen: spec.frozen,
    blocked: spec.blocked,
    blockedReason: spec.blocked && id % 2 === 0 ? 'held' : null,
    createdAt: `2026-01-0${1 + (spec.created % 3)}T00:00:00.000`,
    stageAdapter: defaultStageAdapter(status, false),
    lifecycleRank: spec.status % STATUSES.length,
    isEpic: false,
  };
}

const specArb = fc.record({
  status: fc.nat(),
  priority: fc.nat(),
  frozen: fc.boolean(),
  blocked: fc.boolean(),
  created: fc.nat(),
});

// A write: one item changed, added or removed, or an edge added or removed.
const writeArb = fc.oneof(
  fc.record({ kind: fc.constant('change' as const), id: fc.integer({ min: 1, max: 30 }), spec: specArb }),
  fc.record({ kind: fc.constant('remove' as const), id: fc.integer({ min: 1, max: 30 }) }),
  fc.record({
    kind: fc.constant('edge' as const),
    blocker: fc.integer({ min: 1, max: 32 }),
    dependent: fc.integer({ min: 1, max: 30 }),
    satisfaction: fc.constantFrom(...SATISFACTIONS),
  }),
  fc.record({ kind: fc.constant('unedge' as const), at: fc.nat() }),
);

function factsOf(items: Map<number, FrontierInputItem>): Map<number, BlockerFacts> {
  const facts = new Map<number, BlockerFacts>();
  for (const item of items.values()) {
    facts.set(item.id, {
      status: item.status,
      mergedAt: item.id % 4 === 0 ? '2026-01-01T00:00:00.000' : null,
      deployedEnvironments: new Set(),
      registeredEnvironments: new Set(),
      ref: item.ref,
      title: item.title,
    });
  }
  return facts;
}

function outputs(computation: FrontierComputation): FrontierItem[] {
  return [...computation.runnable, ...computation.blocked, ...computation.frozen];
}

describe('computeFrontier with a memo', () => {
  it('should give exactly the answer without it, and the previous object for every unchanged item', () => {
    fc.assert(
      fc.property(
        fc.array(specArb, { minLength: 30, maxLength: 30 }),
        fc.array(fc.tuple(fc.integer({ min: 1, max: 32 }), fc.integer({ min: 1, max: 30 })), { maxLength: 40 }),
        fc.array(fc.array(writeArb, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 8 }),
        fc.nat(5),
        (specs, edgePairs, batches, wipCap) => {
          const items = new Map<number, FrontierInputItem>(specs.map((s, i) => [i + 1, inputItem(i + 1, s)]));
          let edges: FrontierEdge[] = edgePairs.map(([blocker, dependent]) => ({
            blocker,
            dependent,
            satisfaction: 'status:done',
          }));
          const memo = new FrontierMemo();
          let previous: FrontierComputation | null = null;
          let previousInputs = new Map<number, FrontierInputItem>();
          for (const batch of [[], ...batches]) {
            for (const write of batch) {
              if (write.kind === 'change') items.set(write.id, inputItem(write.id, write.spec));
              else if (write.kind === 'remove') items.delete(write.id);
              else if (write.kind === 'edge') edges = [...edges, write];
              else if (edges.length > 0) edges = edges.filter((_e, k) => k !== write.at % edges.length);
            }
            const list = [...items.values()].sort((a, b) => a.id - b.id);
            const input = { items: list, edges, blockerFacts: factsOf(items), wipCap };
            const fresh = computeFrontier(input);
            const got = computeFrontier(input, memo);
            expect(got).toEqual(fresh);
            if (previous !== null) {
              const before = new Map(outputs(previous).map((o) => [o.item_id, o]));
              for (const output of outputs(got)) {
                const old = before.get(output.item_id);
                const sameInput = previousInputs.get(output.item_id) === items.get(output.item_id);
                if (old !== undefined && sameInput && JSON.stringify(old) === JSON.stringify(output)) {
                  expect(output).toBe(old);
                }
              }
            }
            previous = got;
            previousInputs = new Map(items);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('should align items that kept their object across inserts, removals and replacements', () => {
    const make = (id: number) => inputItem(id, { status: 1, priority: 0, frozen: false, blocked: false, created: 0 });
    const before = Array.from({ length: 80 }, (_v, i) => make(i + 1));
    const replaced = make(7);
    const after = [...before.slice(0, 6), replaced, ...before.slice(7, 20), ...before.slice(40), make(81)];
    const aligned = alignItems(after, before);
    expect(aligned[6]).toBe(-1);
    expect(aligned[5]).toBe(5);
    expect(aligned[7]).toBe(7);
    // 20 items removed at once: found again through the map
    expect(aligned[20]).toBe(40);
    expect(aligned[after.length - 1]).toBe(-1);
  });
});
