import { buildCompactGraph, cycleThrough, findCycleIfAdded, stronglyConnectedComponents } from './cycles';

describe('findCycleIfAdded', () => {
  it('should return null when the new edge keeps the graph acyclic', () => {
    const edges = [
      { blocker: 1, dependent: 2 },
      { blocker: 2, dependent: 3 },
    ];
    expect(findCycleIfAdded(edges, { blocker: 1, dependent: 3 })).toBeNull();
  });

  it('should return the path from the new dependent back to it when the edge closes a cycle', () => {
    const edges = [
      { blocker: 1, dependent: 2 },
      { blocker: 2, dependent: 3 },
    ];
    // 3 blocked by 2 blocked by 1; making 1 wait on 3 closes 1 → 2 → 3 → 1
    expect(findCycleIfAdded(edges, { blocker: 3, dependent: 1 })).toEqual([1, 2, 3, 1]);
  });

  it('should report a self-dependency as a cycle of one when blocker equals dependent', () => {
    expect(findCycleIfAdded([], { blocker: 7, dependent: 7 })).toEqual([7, 7]);
  });

  it('should return the shortest cycle when several paths close it', () => {
    const edges = [
      { blocker: 1, dependent: 2 },
      { blocker: 2, dependent: 3 },
      { blocker: 3, dependent: 4 },
      { blocker: 1, dependent: 4 },
    ];
    expect(findCycleIfAdded(edges, { blocker: 4, dependent: 1 })).toEqual([1, 4, 1]);
  });

  it('should return null when either endpoint is unknown to the graph', () => {
    expect(findCycleIfAdded([{ blocker: 1, dependent: 2 }], { blocker: 9, dependent: 1 })).toBeNull();
  });

  it('should not loop when the existing data already contains a cycle', () => {
    const edges = [
      { blocker: 1, dependent: 2 },
      { blocker: 2, dependent: 1 },
      { blocker: 2, dependent: 3 },
    ];
    expect(findCycleIfAdded(edges, { blocker: 5, dependent: 4 })).toBeNull();
    expect(findCycleIfAdded(edges, { blocker: 3, dependent: 1 })).toEqual([1, 2, 3, 1]);
  });

  it('should handle a 100k-long chain without recursion when closing it', () => {
    const n = 100_000;
    const edges = Array.from({ length: n - 1 }, (_, i) => ({ blocker: i + 1, dependent: i + 2 }));
    const cycle = findCycleIfAdded(edges, { blocker: n, dependent: 1 });
    expect(cycle).toHaveLength(n + 1);
    expect(cycle?.[0]).toBe(1);
    expect(cycle?.[n - 1]).toBe(n);
    expect(cycle?.[n]).toBe(1);
  });
});

describe('stronglyConnectedComponents', () => {
  it('should group cycle members and emit dependents before their blockers', () => {
    // 0 → 1 → 2 → 1, 2 → 3
    const from = Int32Array.from([0, 1, 2, 2]);
    const to = Int32Array.from([1, 2, 1, 3]);
    const graph = buildCompactGraph(4, from, to, 4);
    const { componentOf, componentSize, componentCount } = stronglyConnectedComponents(graph);
    expect(componentCount).toBe(3);
    expect(componentOf[1]).toBe(componentOf[2]);
    expect(componentSize[componentOf[1]]).toBe(2);
    expect(componentOf[3]).toBeLessThan(componentOf[1]);
    expect(componentOf[1]).toBeLessThan(componentOf[0]);
  });

  it('should not overflow the stack when given a 100k-deep chain', () => {
    const n = 100_000;
    const from = Int32Array.from({ length: n - 1 }, (_, i) => i);
    const to = Int32Array.from({ length: n - 1 }, (_, i) => i + 1);
    const { componentCount } = stronglyConnectedComponents(buildCompactGraph(n, from, to, n - 1));
    expect(componentCount).toBe(n);
  });
});

describe('cycleThrough', () => {
  it('should return a cycle through the node when it sits in a component', () => {
    const graph = buildCompactGraph(3, Int32Array.from([0, 1, 2]), Int32Array.from([1, 2, 0]), 3);
    const { componentOf } = stronglyConnectedComponents(graph);
    expect(cycleThrough(graph, componentOf, 1)).toEqual([1, 2, 0, 1]);
  });

  it('should return null when the node is on no cycle', () => {
    const graph = buildCompactGraph(2, Int32Array.from([0]), Int32Array.from([1]), 1);
    const { componentOf } = stronglyConnectedComponents(graph);
    expect(cycleThrough(graph, componentOf, 0)).toBeNull();
  });
});
