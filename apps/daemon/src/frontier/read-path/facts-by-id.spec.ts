import { BlockerFacts } from '@app/core';

import { FactsById } from './facts-by-id';

const NONE: ReadonlySet<string> = new Set();

function facts(ref: string): BlockerFacts {
  return { status: 'planned', mergedAt: null, deployedEnvironments: NONE, registeredEnvironments: NONE, ref };
}

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

function rows(ids: number[]): { id: number }[] {
  return ids.map((id) => ({ id }));
}

describe('FactsById', () => {
  it('should keep dense ids in an array and answer exactly as a Map, misses and insertion order included', () => {
    const next = random(7);
    for (let round = 0; round < 50; round++) {
      const low = Math.floor(next() * 1e6);
      const ids = Array.from({ length: 1 + Math.floor(next() * 300) }, () => low + Math.floor(next() * 600));
      const byId = FactsById.forRows(rows(ids));
      expect(byId).toBeInstanceOf(FactsById);
      const map = new Map<number, BlockerFacts>();
      ids.forEach((id, k) => {
        // duplicates overwrite in place, as in a Map
        const value = facts(`R-${k}`);
        byId.set(id, value);
        map.set(id, value);
      });
      for (const id of [...ids, low - 1, low + 601, low + 0.5, -low, NaN, Infinity, Number.MAX_SAFE_INTEGER + 2]) {
        expect(byId.get(id)).toBe(map.get(id));
        expect(byId.has(id)).toBe(map.has(id));
      }
      expect(byId.size).toBe(map.size);
      expect([...byId]).toEqual([...map]);
      expect([...byId.keys()]).toEqual([...map.keys()]);
      expect([...byId.values()]).toEqual([...map.values()]);
      const visited: [number, BlockerFacts][] = [];
      byId.forEach((value, key, self) => {
        expect(self).toBe(byId);
        visited.push([key, value]);
      });
      expect(visited).toEqual([...map.entries()]);
    }
  });

  it('should keep ids set outside the range it was made for beside the array', () => {
    const byId = FactsById.forRows(rows([100, 101, 102])) as FactsById;
    const inside = facts('IN-1');
    const below = facts('OUT-1');
    const above = facts('OUT-2');
    byId.set(101, inside).set(5, below).set(10_000_000, above);
    expect(byId.get(101)).toBe(inside);
    expect(byId.get(5)).toBe(below);
    expect(byId.get(10_000_000)).toBe(above);
    expect(byId.get(100)).toBeUndefined();
    expect(byId.get(6)).toBeUndefined();
    expect([...byId.keys()]).toEqual([101, 5, 10_000_000]);
  });

  it('should be a plain Map when the ids are too sparse or not safe integers', () => {
    expect(FactsById.forRows(rows([1, 1_000_000]))).toBeInstanceOf(Map);
    expect(FactsById.forRows(rows([1, 2.5]))).toBeInstanceOf(Map);
    expect(FactsById.forRows(rows([1, 2 ** 60]))).toBeInstanceOf(Map);
    expect(FactsById.forRows([])).toBeInstanceOf(Map);
    // two lists (candidates and outside blockers) span one range together
    expect(FactsById.forRows(rows([50_000, 50_001]), rows([49_000]))).toBeInstanceOf(FactsById);
  });

  it('should copy itself with entries laid over, leaving the original as it was', () => {
    const base = FactsById.forRows(rows([1, 2, 3])) as FactsById;
    const one = facts('A-1');
    const two = facts('A-2');
    base.set(1, one).set(2, two);
    const newer = facts('A-2b');
    const far = facts('Z-1');
    const copy = base.with([
      [2, newer],
      [3, facts('A-3')],
      [900_000, far],
    ]);
    expect(copy.get(1)).toBe(one);
    expect(copy.get(2)).toBe(newer);
    expect(copy.get(900_000)).toBe(far);
    expect([...copy.keys()]).toEqual([1, 2, 3, 900_000]);
    expect(base.get(2)).toBe(two);
    expect(base.has(3)).toBe(false);
    expect(base.size).toBe(2);
  });

  it('should copy itself less the ids given, leaving the original as it was', () => {
    const base = FactsById.forRows(rows([1, 2, 3])) as FactsById;
    base.set(1, facts('A-1')).set(2, facts('A-2')).set(3, facts('A-3')).set(900_000, facts('Z-1'));
    const copy = base.with([[4, facts('A-4')]], new Set([2, 900_000]));

    expect([...copy.keys()]).toEqual([1, 3, 4]);
    expect(copy.get(2)).toBeUndefined();
    expect(copy.has(900_000)).toBe(false);
    expect(copy.size).toBe(3);
    expect(base.get(2)?.ref).toBe('A-2');
    expect(base.get(900_000)?.ref).toBe('Z-1');
    expect(base.size).toBe(4);
  });
});
