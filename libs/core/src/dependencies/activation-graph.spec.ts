import fc from 'fast-check';

import { ActivationGraph, shortestCycleIfAdded } from './activation-graph';
import { DependencyPair, findCycleIfAdded } from './cycles';

// The cycle check a dependency add runs against findCycleIfAdded over every edge, the plain reference:
// the same verdict, a cycle as short, along the edges held.
function expectSameAnswer(got: number[] | null, edges: readonly DependencyPair[], added: DependencyPair): void {
  const expected = findCycleIfAdded(edges, added);
  expect(got?.length).toBe(expected?.length);
  if (got) {
    expect(got[0]).toBe(added.dependent);
    expect(got[got.length - 2]).toBe(added.blocker);
    expect(got[got.length - 1]).toBe(added.dependent);
    const held = new Set(edges.map((p) => `${p.blocker}>${p.dependent}`));
    for (let k = 0; k + 2 < got.length; k++) expect(held.has(`${got[k]}>${got[k + 1]}`)).toBe(true);
  }
}

describe('ActivationGraph', () => {
  const pair = fc.record({ blocker: fc.nat(11), dependent: fc.nat(11) });
  // a write: add an edge (a new id, or again an id held: its ends change), remove one, or check one
  const step = fc.oneof(
    fc.record({ kind: fc.constant('add' as const), id: fc.nat(40), edge: pair }),
    fc.record({ kind: fc.constant('remove' as const), id: fc.nat(40), edge: pair }),
    fc.record({ kind: fc.constant('check' as const), id: fc.nat(40), edge: pair }),
  );

  it('should answer every check as findCycleIfAdded over the edges held, through adds, removals and cycles', () => {
    let found = 0;
    fc.assert(
      fc.property(fc.array(pair, { maxLength: 12 }), fc.array(step, { maxLength: 60 }), (loaded, steps) => {
        const graph = new ActivationGraph();
        const held = new Map<number, DependencyPair>();
        loaded.forEach((e, k) => held.set(100 + k, e));
        graph.load([...held].map(([id, e]) => [id, e.blocker, e.dependent] as const));
        for (const s of steps) {
          if (s.kind === 'add') {
            graph.add(s.id, s.edge.blocker, s.edge.dependent);
            held.set(s.id, s.edge);
          } else if (s.kind === 'remove') {
            graph.remove(s.id);
            held.delete(s.id);
          } else {
            const got = graph.cycleIfAdded(s.edge.blocker, s.edge.dependent);
            if (got) found++;
            expectSameAnswer(got, [...held.values()], s.edge);
          }
          expect(graph.size).toBe(held.size);
        }
      }),
      { numRuns: 400, seed: 38 },
    );
    expect(found).toBeGreaterThan(50);
  });

  it('should answer along a long chain both ways (an older blocker: no cycle; a newer one: the whole chain)', () => {
    // 1 → 2 → … → 1000 (each blocks the next)
    const graph = new ActivationGraph();
    graph.load(Array.from({ length: 999 }, (_, k) => [k, k + 1, k + 2] as const));
    expect(graph.cycleIfAdded(3, 900)).toBeNull();
    // the other way round it closes a cycle along the whole chain between them
    expect(graph.cycleIfAdded(900, 3)).toHaveLength(900 - 3 + 2);
  });
});

describe('shortestCycleIfAdded', () => {
  it('should find a cycle exactly when findCycleIfAdded does, as short', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ blocker: fc.nat(11), dependent: fc.nat(11) }), { maxLength: 30 }),
        fc.record({ blocker: fc.nat(11), dependent: fc.nat(11) }),
        (edges, added) => {
          const down = new Map<number, number[]>();
          const up = new Map<number, number[]>();
          for (const e of edges) {
            down.set(e.blocker, [...(down.get(e.blocker) ?? []), e.dependent]);
            up.set(e.dependent, [...(up.get(e.dependent) ?? []), e.blocker]);
          }
          expectSameAnswer(shortestCycleIfAdded(added, down, up), edges, added);
        },
      ),
      { numRuns: 500, seed: 38 },
    );
  });

  it('should read only the short side when one end reaches far', () => {
    // 1 → 2 → … → 1000; the new edge 1000 → 0: nothing lies above 1000's blocker side past one level
    const down = new Map(Array.from({ length: 999 }, (_, k) => [k + 1, [k + 2]] as [number, number[]]));
    const up = new Map(Array.from({ length: 999 }, (_, k) => [k + 2, [k + 1]] as [number, number[]]));
    const read: number[] = [];
    const tracked = new Map([...down].map(([k, v]) => [k, v]));
    const spy = {
      get: (k: number) => {
        read.push(k);
        return tracked.get(k);
      },
    } as unknown as Map<number, number[]>;
    expect(shortestCycleIfAdded({ blocker: 1000, dependent: 0 }, spy, up)).toBeNull();
    expect(read).toEqual([0]);
  });
});
