import fc from 'fast-check';

import { BlockerFacts } from '../dependencies/satisfaction';
import {
  CHARGE_RELEVANT_STATUSES,
  compareRank,
  computeFrontier,
  defaultStageAdapter,
  FrontierEdge,
  FrontierInputItem,
  PRIORITIES,
} from './compute-frontier';

// The frontier sorts by packed numeric keys (priority, depth and unblocks in one double; lifecycle and created_at in
// a second one when they fit exactly, else compared one by one). Whatever the inputs, that order must be exactly
// the order of compareRank, the readable definition of the spec's ranking.
const DAY = 86_400_000;

// One mode per graph: a single unpackable item sends the whole sort down the fallback comparison.
const itemArb = (packable: boolean) =>
  fc.record({
    priority: fc.constantFrom(...PRIORITIES),
    status: fc.constantFrom(...CHARGE_RELEVANT_STATUSES),
    isEpic: fc.boolean(),
    // packable: a few days; otherwise also centuries apart (beyond 2^42 ms)
    created: packable
      ? fc.integer({ min: 0, max: 5 * DAY })
      : fc.oneof(fc.integer({ min: 0, max: 5 * DAY }), fc.integer({ min: -200 * 365 * DAY, max: 100 * 365 * DAY })),
    // ranks that do not pack (negative, ≥ 2^10, fractional) force the fallback comparison
    lifecycle: packable
      ? fc.integer({ min: 0, max: 4 })
      : fc.oneof(fc.integer({ min: 0, max: 4 }), fc.constantFrom(-1, 1024, 5000, 2.5)),
  });

const graphArb = fc
  .boolean()
  .chain((packable) => fc.array(itemArb(packable), { minLength: 1, maxLength: 60 }))
  .chain((items) =>
    fc.tuple(
      fc.constant(items),
      fc.array(fc.tuple(fc.nat(items.length - 1), fc.nat(items.length - 1), fc.boolean()), { maxLength: 120 }),
    ),
  );

describe('ranking (packed keys)', () => {
  it('should order runnable items exactly as compareRank does', () => {
    fc.assert(
      fc.property(graphArb, ([specs, pairs]) => {
        const base = Date.UTC(2026, 0, 1);
        const items: FrontierInputItem[] = specs.map((s, i) => ({
          id: i + 1,
          ref: `A-${i + 1}`,
          title: `item ${i + 1}`,
          status: s.status,
          priority: s.priority,
          project: 'alpha',
          workflowId: s.isEpic ? 'epic' : 'issue',
          workflowVersionId: 1,
          frozen: false,
          blocked: false,
          blockedReason: null,
          createdAt: new Date(base + s.created).toISOString(),
          stageAdapter: defaultStageAdapter(s.status, s.isEpic),
          lifecycleRank: s.lifecycle,
          isEpic: s.isEpic,
        }));
        // edges from lower to higher index keep the activation graph acyclic; `met` marks satisfied edges, which
        // add no depth but leave both ends runnable
        const edges: FrontierEdge[] = [];
        for (const [a, b, met] of pairs) {
          if (a === b) continue;
          const [blocker, dependent] = a < b ? [a + 1, b + 1] : [b + 1, a + 1];
          edges.push({ blocker, dependent, satisfaction: met ? 'status:idea' : 'status:done' });
        }
        const facts = new Map<number, BlockerFacts>(
          items.map((i) => [
            i.id,
            {
              status: i.status,
              mergedAt: null,
              deployedEnvironments: new Set<string>(),
              registeredEnvironments: new Set<string>(),
              ref: i.ref,
              title: i.title,
            },
          ]),
        );
        const result = computeFrontier({ items, edges, blockerFacts: facts, wipCap: 30 });
        const expected = [...result.runnable].sort(compareRank).map((i) => i.item_id);
        expect(result.runnable.map((i) => i.item_id)).toEqual(expected);
        const blockedExpected = [...result.blocked].sort(compareRank).map((i) => i.item_id);
        expect(result.blocked.map((i) => i.item_id)).toEqual(blockedExpected);
      }),
      { numRuns: 300 },
    );
  });
});
