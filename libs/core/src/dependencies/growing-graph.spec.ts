import { DependencyPair, findCycleIfAdded } from './cycles';
import { GrowingActivationGraph } from './growing-graph';

// mulberry32: a fixed seed, so a failure names its graph
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('GrowingActivationGraph', () => {
  it('should answer as findCycleIfAdded does for every edge of a growing random graph', () => {
    for (const seed of [1, 2, 3, 41, 42]) {
      const next = random(seed);
      const pairs: DependencyPair[] = [];
      const graph = new GrowingActivationGraph();
      let refused = 0;
      for (let i = 0; i < 400; i++) {
        const pair = { blocker: 1 + Math.floor(next() * 60), dependent: 1 + Math.floor(next() * 60) };
        const expected = findCycleIfAdded(pairs, pair);
        expect(graph.cycleIfAdded(pair)).toEqual(expected);
        if (expected) {
          refused += 1;
        } else {
          pairs.push(pair);
          graph.add(pair);
        }
      }
      expect(refused).toBeGreaterThan(0);
    }
  });

  it('should name the cycle an edge would close, from the dependent back to it', () => {
    const graph = new GrowingActivationGraph([
      { blocker: 1, dependent: 2 },
      { blocker: 2, dependent: 3 },
    ]);
    expect(graph.cycleIfAdded({ blocker: 3, dependent: 1 })).toEqual([1, 2, 3, 1]);
    expect(graph.cycleIfAdded({ blocker: 1, dependent: 3 })).toBeNull();
    expect(graph.cycleIfAdded({ blocker: 4, dependent: 4 })).toEqual([4, 4]);
  });
});
