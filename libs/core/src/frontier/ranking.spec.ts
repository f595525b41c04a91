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
import { placeInOrder, radixSort, rankCandidates } from './ranking';

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
      // ids: 1..n in input order (the daemon's), or distinct ids in any order, beyond 2^32 too (the radix sort then
      // sorts by id as well)
      fc.oneof(
        fc.constant(null),
        fc.uniqueArray(fc.oneof(fc.nat(1000), fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER })), {
          minLength: items.length,
          maxLength: items.length,
        }),
      ),
    ),
  );

describe('ranking (packed keys)', () => {
  it('should order runnable items exactly as compareRank does', () => {
    fc.assert(
      fc.property(graphArb, ([specs, pairs, shuffled]) => {
        const idOf = (i: number) => (shuffled === null ? i + 1 : shuffled[i]);
        const base = Date.UTC(2026, 0, 1);
        const items: FrontierInputItem[] = specs.map((s, i) => ({
          id: idOf(i),
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
          const [blocker, dependent] = a < b ? [idOf(a), idOf(b)] : [idOf(b), idOf(a)];
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
      { numRuns: 500 },
    );
  });

  it('should sort by every key and then by id, whatever the input order (radix sort)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(3), fc.nat(2 ** 44), fc.oneof(fc.nat(5), fc.nat(2 ** 52 - 1))), { maxLength: 300 }),
        fc.boolean(),
        (rows, largeIds) => {
          const n = rows.length;
          const primary = Float64Array.from(rows, (r) => r[0] * 2 ** 44 + r[1]);
          const secondary = Float64Array.from(rows, (r) => r[2]);
          const ids = Float64Array.from(rows, (_r, i) => (largeIds ? 2 ** 40 + ((i * 7919) % n) : (i * 31) % 1009));
          const candidates = Array.from({ length: n }, (_v, i) => i).filter((i) => ids.indexOf(ids[i]) === i);
          const expected = [...candidates].sort(
            (a, b) => primary[a] - primary[b] || secondary[a] - secondary[b] || ids[a] - ids[b],
          );
          expect(radixSort(candidates, [primary, secondary], ids)).toBe(true);
          expect(candidates).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('placeInOrder', () => {
  // After a write only the changed candidates are placed into the previous order, one comparison at a time: that
  // comparison must agree with the packed keys of the full ranking, saturated counts and unpackable keys included.
  it('should put the moved candidates exactly where ranking every candidate puts them', () => {
    const count = fc.constantFrom(0, 1, 2, 2 ** 22 - 1, 2 ** 22, 2 ** 23);
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            priority: fc.constantFrom(...PRIORITIES, 'urgent'),
            lifecycle: fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constantFrom(-1, 2.5, 5000, NaN, Infinity)),
            created: fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constantFrom(2 ** 50, Infinity)),
            depth: count,
            unblocks: count,
            moved: fc.boolean(),
          }),
          { minLength: 1, maxLength: 40 },
        ),
        fc.boolean(),
        (rows, shuffledIds) => {
          const items = rows.map((row, i): FrontierInputItem => ({
            id: shuffledIds ? (i * 7919) % 10007 : i + 1,
            ref: `A-${i + 1}`,
            title: `item ${i + 1}`,
            status: 'planned',
            priority: row.priority,
            project: 'alpha',
            workflowId: 'issue',
            workflowVersionId: 1,
            frozen: false,
            blocked: false,
            blockedReason: null,
            createdAt: '2026-01-01T00:00:00.000',
            stageAdapter: 'conduct',
            lifecycleRank: row.lifecycle,
            isEpic: false,
          }));
          const facts = {
            items,
            ids: Float64Array.from(items, (item) => item.id),
            depth: Int32Array.from(rows, (row) => row.depth),
            unblocks: Int32Array.from(rows, (row) => row.unblocks),
            created: Float64Array.from(rows, (row) => row.created),
          };
          const ranked = rows.map((_row, v) => v);
          rankCandidates(ranked, facts);
          const kept = Int32Array.from(ranked.filter((v) => !rows[v].moved));
          const moved = ranked.filter((v) => rows[v].moved).reverse();
          expect([...placeInOrder(kept, moved.slice(), facts)]).toEqual(ranked);
          // in place when the buffer behind the kept entries has room for the moved ones
          const buffer = new Int32Array(ranked.length + 3).fill(-1);
          buffer.set(kept);
          const placed = placeInOrder(buffer.subarray(0, kept.length), moved.slice(), facts);
          expect([...placed]).toEqual(ranked);
          expect(placed.buffer).toBe(buffer.buffer);
        },
      ),
      { numRuns: 500 },
    );
  });
});
