import fc from 'fast-check';

import { applyListDelta } from '@app/contracts';
import type { FrontierComputation, FrontierItem } from '@app/core';

import { FrontierHistory, HISTORY_ROWS, listDelta, longestIncreasing } from './frontier-delta';
import { RefBook } from './frontier-ref-book';

interface Row {
  item_id: number;
  v: number;
}

describe(listDelta.name, () => {
  const same = (a: Row, b: Row) => a.item_id === b.item_id && a.v === b.v;
  const apply = (base: Row[], next: Row[]) => {
    const { drop, put } = listDelta(base, next, same);
    const result = applyListDelta(base, { drop, put: put.map((k) => [k, next[k]] as [number, Row]) });
    return { result, drop, put };
  };

  it('should lead from any list to any other (removals, additions, moves, changes)', () => {
    const list = fc.uniqueArray(fc.record({ item_id: fc.nat(40), v: fc.nat(2) }), {
      selector: (r) => r.item_id,
      maxLength: 30,
    });
    fc.assert(
      fc.property(list, list, (base, next) => {
        expect(apply(base, next).result).toEqual(next);
      }),
      { numRuns: 500 },
    );
  });

  // stamps: equal stamps are the same row (the prefix and suffix are found from them alone)
  it("should give the same delta with the lists' stamps as without them", () => {
    const row = fc.record({ item_id: fc.nat(40), v: fc.nat(2) });
    const list = fc.uniqueArray(row, { selector: (r) => r.item_id, maxLength: 30 });
    fc.assert(
      fc.property(list, list, fc.array(fc.nat(), { maxLength: 30 }), (base, fresh, picks) => {
        // the next list shares some of the base's row objects (a row kept by compute_frontier)
        const next = fresh.map((r, k) => {
          const kept = base.find((b) => b.item_id === r.item_id);
          return kept !== undefined && picks[k] % 2 === 0 ? kept : r;
        });
        const stampOf = new Map<Row, number>();
        const stamps = (rows: Row[]) =>
          Float64Array.from(rows, (r) => stampOf.get(r) ?? (stampOf.set(r, stampOf.size + 1), stampOf.size));
        const withStamps = listDelta(base, next, same, { base: stamps(base), next: stamps(next) });
        expect(withStamps).toEqual(listDelta(base, next, same));
      }),
      { numRuns: 500 },
    );
  });

  it('should move one item with one drop and one put, and keep the rows it did not touch as they were', () => {
    const base = Array.from({ length: 1000 }, (_, k) => ({ item_id: k, v: 0 }));
    const next = [...base.slice(0, 10), ...base.slice(11, 900), base[10], ...base.slice(900)];
    const { result, drop, put } = apply(base, next);
    expect(drop).toEqual([10]);
    expect(put).toEqual([899]);
    expect(result[500]).toBe(base[501]);
  });

  // the fewest edits: every row not kept by a longest common subsequence of unchanged rows, and no more
  const fewest = (base: Row[], next: Row[]) => {
    const longest = Array.from({ length: base.length + 1 }, () => new Int32Array(next.length + 1));
    for (let b = base.length - 1; b >= 0; b--) {
      for (let k = next.length - 1; k >= 0; k--) {
        longest[b][k] = same(base[b], next[k])
          ? longest[b + 1][k + 1] + 1
          : Math.max(longest[b + 1][k], longest[b][k + 1]);
      }
    }
    return base.length + next.length - 2 * longest[0][0];
  };

  it('should drop and put no more rows than a longest common subsequence leaves', () => {
    const list = fc.uniqueArray(fc.record({ item_id: fc.nat(40), v: fc.nat(2) }), {
      selector: (r) => r.item_id,
      maxLength: 30,
    });
    fc.assert(
      fc.property(list, list, (base, next) => {
        const { drop, put } = apply(base, next);
        expect(drop.length + put.length).toBe(fewest(base, next));
      }),
      { numRuns: 300 },
    );
  });

  // past 64 edits Myers' walk gives way to the longest increasing subsequence: still exact, still the fewest
  it('should lead to the next list with the fewest edits when a write moved many rows', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(399), { minLength: 40, maxLength: 120 }), fc.nat(2), (moves, change) => {
        const base = Array.from({ length: 400 }, (_, k) => ({ item_id: k, v: 0 }));
        const next = [...base];
        for (const at of moves) next.push(next.splice(at, 1)[0]);
        next[moves[0]] = { ...next[moves[0]], v: 1 + change };
        const { result, drop, put } = apply(base, next);
        expect(result).toEqual(next);
        expect(drop.length + put.length).toBe(fewest(base, next));
      }),
      { numRuns: 40 },
    );
  });

  it('should find a longest increasing subsequence', () => {
    expect(longestIncreasing([3, 1, 2, 5, 4, 6]).map((i) => [3, 1, 2, 5, 4, 6][i])).toHaveLength(4);
    expect(longestIncreasing([])).toEqual([]);
  });
});

describe(FrontierHistory.name, () => {
  // an answer of `rows` runnable items (the history reads only the lists' lengths here)
  const answer = (rows: number) =>
    ({
      runnable: new Array<FrontierItem>(rows),
      blocked: [],
      frozen: [],
      conduct_eligible: [],
      wip_cap: 3,
      wip_active: 0,
    }) as unknown as FrontierComputation;
  const refs = { book: new RefBook(), version: 0 };
  const kept = (history: FrontierHistory, count: number) =>
    Array.from({ length: count }, (_, k) => history.find('p|3', `"e${k}"`) !== undefined);

  it('should keep the last 16 answers of a project', () => {
    const history = new FrontierHistory();
    for (let k = 0; k < 20; k++) history.record('p|3', `"e${k}"`, answer(1000), refs);
    expect(kept(history, 20)).toEqual([...Array(4).fill(false), ...Array(16).fill(true)]);
  });

  it('should keep fewer answers of a large project: their rows together at most HISTORY_ROWS, never fewer than 2', () => {
    const history = new FrontierHistory();
    for (let k = 0; k < 10; k++) history.record('p|3', `"e${k}"`, answer(HISTORY_ROWS / 4), refs);
    expect(kept(history, 10)).toEqual([...Array(6).fill(false), ...Array(4).fill(true)]);
    for (let k = 10; k < 13; k++) history.record('p|3', `"e${k}"`, answer(HISTORY_ROWS), refs);
    expect(kept(history, 13)).toEqual([...Array(11).fill(false), true, true]);
  });
});
