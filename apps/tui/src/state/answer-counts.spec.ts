import fc from 'fast-check';

import { applyFrontierDelta, FrontierDeltaWire, FrontierItemWire, FrontierResultWire } from '@app/contracts';

import { carryAnswerCounts, conductRunnable, widestRef } from './answer-counts';

const LISTS = ['runnable', 'blocked', 'frozen', 'conduct_eligible'] as const;

// the adapter follows from the ref (so a test draws refs only): conduct when its number is even
const item = (ref: string) =>
  ({
    item_id: ref,
    adapter: Number(ref.slice(ref.indexOf('-') + 1)) % 2 === 0 ? 'conduct' : 'advance',
  }) as FrontierItemWire;

const answerOf = (lists: string[][]): FrontierResultWire =>
  ({
    runnable: lists[0].map(item),
    blocked: lists[1].map(item),
    frozen: lists[2].map(item),
    conduct_eligible: lists[3].map(item),
    wip_cap: 3,
    wip_active: 0,
  }) as FrontierResultWire;

// the counts read from every item (a copy: nothing counted for it before)
const scanned = (answer: FrontierResultWire) => {
  const copy = JSON.parse(JSON.stringify(answer)) as FrontierResultWire;
  return { widest: widestRef(copy), conduct: conductRunnable(copy) };
};
const counted = (answer: FrontierResultWire) => ({ widest: widestRef(answer), conduct: conductRunnable(answer) });

describe('answer counts across deltas', () => {
  it('should be what reading every ref gives, delta after delta', () => {
    const ref = fc.stringMatching(/^[A-Z]{1,3}-[0-9]{1,12}$/);
    const lists = fc.array(fc.array(ref, { maxLength: 8 }), { minLength: 4, maxLength: 4 });
    // per list: which base positions leave, and refs put (at positions drawn after)
    const step = fc.array(fc.record({ keep: fc.array(fc.boolean()), put: fc.array(ref, { maxLength: 3 }) }), {
      minLength: 4,
      maxLength: 4,
    });
    fc.assert(
      fc.property(lists, fc.array(step, { maxLength: 6 }), fc.array(fc.nat()), (start, steps, seeds) => {
        let answer = answerOf(start);
        expect(counted(answer)).toEqual(scanned(answer));
        steps.forEach((lists, s) => {
          const delta = { base: 'a', etag: 'b', wip_cap: 3, wip_active: 0 } as FrontierDeltaWire;
          LISTS.forEach((name, l) => {
            const base = answer[name];
            const drop = base.map((_x, i) => i).filter((i) => lists[l].keep[i] === false);
            const length = base.length - drop.length + lists[l].put.length;
            // distinct ascending positions in the new list for the items put
            const free = Array.from({ length }, (_x, i) => i);
            const at = lists[l].put
              .map((_r, k) => free.splice((seeds[s + k] ?? k) % free.length, 1)[0])
              .sort((a, b) => a - b);
            delta[name] = { drop, put: lists[l].put.map((r, k) => [at[k], item(r)]) };
          });
          const next = applyFrontierDelta(answer, delta);
          carryAnswerCounts(answer, delta, next);
          expect(counted(next)).toEqual(scanned(next));
          answer = next;
        });
      }),
      { numRuns: 300 },
    );
  });

  it('should narrow the ref column when the widest ref leaves', () => {
    const base = answerOf([['A-1', 'A-1234567890'], [], [], []]);
    expect(widestRef(base)).toBe(12);
    const delta = {
      base: 'a',
      etag: 'b',
      wip_cap: 3,
      wip_active: 0,
      runnable: { drop: [1], put: [] },
      blocked: { drop: [], put: [] },
      frozen: { drop: [], put: [] },
      conduct_eligible: { drop: [], put: [] },
    } as FrontierDeltaWire;
    const next = applyFrontierDelta(base, delta);
    carryAnswerCounts(base, delta, next);
    expect(widestRef(next)).toBe(6);
  });
});
