import { DependencyEdge, evaluateGate, evaluateGateBatch, formatCycle, planCandidates } from './gates';
import { BlockerFacts } from './satisfaction';

const facts = (ref: string, status: string | null, title = `title of ${ref}`): BlockerFacts => ({
  status,
  mergedAt: null,
  deployedEnvironments: new Set(),
  registeredEnvironments: new Set(),
  ref,
  title,
});

const edge = (
  blocker: number,
  dependent: number,
  satisfaction = 'status:done',
  gatePoint?: string,
): DependencyEdge => ({
  blocker,
  dependent,
  satisfaction,
  gatePoint,
});

describe('evaluateGate', () => {
  const factsById = new Map<number, BlockerFacts>([
    [1, facts('A-1', 'done')],
    [2, facts('A-2', 'implementing')],
    [3, facts('A-3', 'cancelled')],
  ]);

  it('should be satisfied with no blockers when every edge at the gate is satisfied', () => {
    expect(evaluateGate(10, 'activation', [edge(1, 10)], factsById)).toEqual({
      item_id: 10,
      gate_point: 'activation',
      satisfied: true,
      blockers: [],
    });
  });

  it('should list structured detail per unsatisfied blocker when some are unsatisfied', () => {
    const result = evaluateGate(10, 'activation', [edge(1, 10), edge(2, 10), edge(3, 10)], factsById);
    expect(result.satisfied).toBe(false);
    expect(result.blockers).toEqual([
      {
        blocker: 2,
        satisfaction: 'status:done',
        form: { kind: 'status', stage: 'done' },
        reason: 'A-2 is in implementing; needs done',
        need: 'A-2 reaches done',
        blocker_status: 'implementing',
        blocker_title: 'title of A-2',
        blocking_terminal: false,
        blocking_abandoned: false,
        blocker_sealed: false,
      },
      expect.objectContaining({ blocker: 3, blocking_terminal: true, blocking_abandoned: true }),
    ]);
  });

  // a blocker in another organization gates, but its title and status are not told
  it('should withhold title, status and what they imply for a sealed blocker, and still count it', () => {
    const sealed = new Map<number, BlockerFacts>([
      [4, { ...facts('Z-4', 'cancelled', 'secret plan'), sealed: true }],
      [5, { ...facts('Z-5', 'done', 'secret done'), sealed: true }],
    ]);
    const result = evaluateGate(10, 'activation', [edge(4, 10), edge(5, 10)], sealed);
    expect(result.satisfied).toBe(false);
    expect(result.blockers).toEqual([
      {
        blocker: 4,
        satisfaction: 'status:done',
        form: { kind: 'status', stage: 'done' },
        reason: 'Z-4 (an item in another organization) does not yet satisfy status:done',
        need: 'Z-4 (an item in another organization) satisfies status:done',
        blocker_status: null,
        blocker_title: null,
        blocking_terminal: false,
        blocking_abandoned: false,
        blocker_sealed: true,
      },
    ]);
    expect(JSON.stringify(result)).not.toMatch(/secret|cancelled/);
  });

  it('should ignore edges of other gate points when evaluating one gate', () => {
    const edges = [edge(2, 10, 'status:done', 'integration'), edge(2, 10, 'status:done', 'closure')];
    expect(evaluateGate(10, 'activation', edges, factsById).satisfied).toBe(true);
    expect(evaluateGate(10, 'closure', edges, factsById).satisfied).toBe(false);
  });

  it('should treat an edge without gate point as activation', () => {
    expect(evaluateGate(10, 'activation', [edge(2, 10)], factsById).satisfied).toBe(false);
  });

  it('should report a blocker that no longer resolves with empty details', () => {
    const result = evaluateGate(10, 'activation', [edge(99, 10)], factsById);
    expect(result.blockers[0]).toMatchObject({
      blocker: 99,
      reason: 'blocker no longer exists',
      blocker_status: null,
      blocker_title: null,
      blocking_terminal: false,
      blocking_abandoned: false,
    });
  });

  it('should label blockers through refOf when given', () => {
    const result = evaluateGate(10, 'activation', [edge(2, 10)], factsById, { refOf: () => 'X-2' });
    expect(result.blockers[0].reason).toBe('X-2 is in implementing; needs done');
  });
});

describe('evaluateGateBatch', () => {
  it('should evaluate many items in one pass when given a set of ids', () => {
    const factsById = new Map([
      [1, facts('A-1', 'done')],
      [2, facts('A-2', 'planned')],
    ]);
    const result = evaluateGateBatch([10, 11, 12], 'activation', [edge(1, 10), edge(2, 11), edge(2, 13)], factsById);
    expect([...result.keys()]).toEqual([10, 11, 12]);
    expect(result.get(10)?.satisfied).toBe(true);
    expect(result.get(11)?.blockers.map((b) => b.blocker)).toEqual([2]);
    expect(result.get(12)?.satisfied).toBe(true);
  });
});

describe('planCandidates', () => {
  const open = (ids: number[]): Map<number, BlockerFacts> =>
    new Map(ids.map((id) => [id, facts(`A-${id}`, 'planned')] as [number, BlockerFacts]));

  it('should return eligible items in topological order when candidates block each other', () => {
    // 3 waits on 2 waits on 1
    const plan = planCandidates('activation', [3, 2, 1], [edge(2, 3), edge(1, 2)], open([1, 2, 3]));
    expect(plan.eligible).toEqual([1, 2, 3]);
    expect(plan.blocked).toEqual([]);
  });

  it('should break ties by input order when several items are ready', () => {
    const plan = planCandidates('activation', [5, 4, 3, 2], [edge(4, 2)], open([2, 3, 4, 5]));
    expect(plan.eligible).toEqual([5, 4, 3, 2]);
  });

  it('should block an item whose unsatisfied blocker is outside the candidate set', () => {
    const plan = planCandidates('activation', [2], [edge(1, 2)], open([1, 2]));
    expect(plan.eligible).toEqual([]);
    expect(plan.blocked).toEqual([
      expect.objectContaining({ item: 2, reasons: ['A-1 is in planned; needs done'], cycle: null }),
    ]);
  });

  it('should block dependents of a blocked candidate with a reason naming it', () => {
    const plan = planCandidates('activation', [2, 3], [edge(1, 2), edge(2, 3)], open([1, 2, 3]));
    expect(plan.eligible).toEqual([]);
    expect(plan.blocked.map((b) => b.item)).toEqual([2, 3]);
    expect(plan.blocked[1].reasons).toEqual(['waits on A-2, which is blocked']);
  });

  it('should let satisfied edges impose no order when the blocker is done', () => {
    const factsById = open([2, 3]);
    factsById.set(1, facts('A-1', 'done'));
    const plan = planCandidates('activation', [2, 1], [edge(1, 2)], factsById);
    expect(plan.eligible).toEqual([2, 1]);
  });

  it('should report items on a cycle as blocked naming the cycle', () => {
    const plan = planCandidates('activation', [1, 2, 3], [edge(1, 2), edge(2, 1), edge(2, 3)], open([1, 2, 3]));
    expect(plan.eligible).toEqual([]);
    const byItem = new Map(plan.blocked.map((b) => [b.item, b]));
    expect(byItem.get(1)?.reasons).toEqual(['dependency cycle: A-1 → A-2 → A-1']);
    expect(byItem.get(2)?.cycle).toEqual([1, 2, 1]);
    expect(byItem.get(3)?.reasons).toEqual(['waits on A-2, which is blocked']);
  });

  it('should only consider edges at the requested gate', () => {
    const plan = planCandidates('closure', [2], [edge(1, 2, 'status:done', 'activation')], open([1, 2]));
    expect(plan.eligible).toEqual([2]);
  });

  it('should plan a 100k-long chain without recursion', () => {
    const n = 100_000;
    const ids = Array.from({ length: n }, (_, i) => n - i);
    const edges = Array.from({ length: n - 1 }, (_, i) => edge(i + 1, i + 2));
    const plan = planCandidates('activation', ids, edges, open(ids));
    expect(plan.eligible).toHaveLength(n);
    expect(plan.eligible[0]).toBe(1);
    expect(plan.eligible[n - 1]).toBe(n);
  });
});

describe('formatCycle', () => {
  it('should abbreviate the middle when the cycle is long', () => {
    const cycle = Array.from({ length: 30 }, (_, i) => i);
    const text = formatCycle(cycle, (id) => `A-${id}`, 4);
    expect(text).toBe('dependency cycle: A-0 → A-1 → … 26 more … → A-28 → A-29');
  });
});
