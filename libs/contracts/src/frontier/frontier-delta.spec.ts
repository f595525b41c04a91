import fc from 'fast-check';

import { applyListDelta } from './frontier-delta';

// The list a delta describes, written plainly: the kept items in order, the put ones at their positions.
function reference<T>(base: readonly T[], drop: number[], put: [number, T][]): T[] | null {
  const dropped = new Set(drop);
  if (dropped.size !== drop.length || drop.some((d) => !Number.isInteger(d) || d < 0 || d >= base.length)) return null;
  const kept = base.filter((_x, i) => !dropped.has(i));
  const length = kept.length + put.length;
  const out = new Array<T>(length);
  const taken = new Set<number>();
  for (const [at, item] of put) {
    if (!Number.isInteger(at) || at < 0 || at >= length || taken.has(at)) return null;
    taken.add(at);
    out[at] = item;
  }
  let k = 0;
  for (let i = 0; i < length; i++) if (!taken.has(i)) out[i] = kept[k++];
  return out;
}

const sorted = (xs: number[]) => xs.every((x, i) => i === 0 || x > xs[i - 1]);

describe('applyListDelta', () => {
  // few changes take the splice path, many the copy: both give the list the delta describes, and both refuse one
  // that does not fit the list
  it('should give exactly the list the delta describes, or throw when it does not fit', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 999 }), { maxLength: 30 }),
        fc.array(fc.integer({ min: -1, max: 32 }), { maxLength: 12 }),
        fc.array(fc.tuple(fc.integer({ min: -1, max: 32 }), fc.integer({ min: 1000, max: 1999 })), { maxLength: 12 }),
        (base, drop, put) => {
          const fits =
            sorted(drop) && sorted(put.map(([at]) => at)) && base.length - drop.length + put.length >= 0
              ? reference(base, drop, put)
              : null;
          if (fits === null) {
            expect(() => applyListDelta(base, { drop, put })).toThrow(/frontier delta/);
          } else {
            expect(applyListDelta(base, { drop, put })).toEqual(fits);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('should leave the base list as it was', () => {
    const base = [1, 2, 3, 4];
    expect(applyListDelta(base, { drop: [1], put: [[3, 9]] })).toEqual([1, 3, 4, 9]);
    expect(base).toEqual([1, 2, 3, 4]);
  });
});
