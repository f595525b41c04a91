import { BlockerFacts } from '../dependencies/satisfaction';
import { FrontierEdge, FrontierInputItem, computeFrontier, defaultStageAdapter } from './compute-frontier';
import { explainItem } from './explain';

const item = (id: number, overrides: Partial<FrontierInputItem> = {}): FrontierInputItem => ({
  id,
  ref: `A-${id}`,
  title: `item ${id}`,
  status: 'planned',
  priority: 'medium',
  project: 'alpha',
  workflowId: 'issue',
  workflowVersionId: 1,
  frozen: false,
  blocked: false,
  blockedReason: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  stageAdapter: defaultStageAdapter(overrides.status ?? 'planned', false),
  lifecycleRank: 6,
  isEpic: false,
  ...overrides,
});

const edge = (blocker: number, dependent: number, satisfaction = 'status:done'): FrontierEdge => ({
  blocker,
  dependent,
  satisfaction,
});

const setup = (items: FrontierInputItem[], edges: FrontierEdge[], wipCap = 30) => {
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
  const computation = computeFrontier({ items, edges, blockerFacts: facts, wipCap });
  return { computation, facts, explain: (id: number) => explainItem(id, computation, edges, facts) };
};

describe('explainItem', () => {
  it('should report not_candidate when the item is in no bucket', () => {
    const { explain } = setup([item(1, { status: 'done' })], []);
    expect(explain(1)).toMatchObject({ bucket: 'not_candidate', position: null, critical_path: [] });
  });

  it('should list each unsatisfied fact with state and need when the item is blocked', () => {
    const { explain } = setup([item(1, { status: 'implementing' }), item(2)], [edge(1, 2), edge(9, 2)]);
    const explanation = explain(2);
    expect(explanation.bucket).toBe('blocked');
    expect(explanation.unsatisfied).toEqual([
      expect.objectContaining({
        blocker: 1,
        blocker_ref: 'A-1',
        form: { kind: 'status', stage: 'done' },
        state: 'implementing',
        blocker_bucket: 'runnable',
        reason: 'A-1 is in implementing; needs done',
        need: 'A-1 reaches done',
      }),
      expect.objectContaining({ blocker: 9, blocker_ref: null, state: null, reason: 'blocker no longer exists' }),
    ]);
  });

  // a blocker in another organization (an edge from before they were refused) still blocks, sealed
  it('should block on a sealed outside blocker without telling its status or title, in reasons and summary', () => {
    const items = [item(2)];
    const edges = [edge(7, 2, 'fact:merged')];
    const facts = new Map<number, BlockerFacts>([
      [
        7,
        {
          status: 'reviewing-implementation',
          mergedAt: null,
          deployedEnvironments: new Set<string>(),
          registeredEnvironments: new Set<string>(),
          ref: 'Z-7',
          title: 'secret plan',
          sealed: true,
        },
      ],
    ]);
    const computation = computeFrontier({ items, edges, blockerFacts: facts, wipCap: 30 });
    expect(computation.blocked.map((b) => b.blocked_reasons)).toEqual([
      ['Z-7 (an item in another organization) does not yet satisfy fact:merged'],
    ]);
    const explanation = explainItem(2, computation, edges, facts);
    expect(explanation.bucket).toBe('blocked');
    expect(explanation.unsatisfied).toEqual([expect.objectContaining({ blocker: 7, blocker_ref: 'Z-7', state: null })]);
    expect(JSON.stringify({ computation, explanation })).not.toMatch(/secret|reviewing/);
  });

  it('should follow blockers back to the runnable item on the longest chain', () => {
    // A-5 waits on A-4 (→ A-3 → A-1 runnable) and on A-2 (runnable)
    const items = [1, 2, 3, 4, 5].map((id) => item(id));
    const edges = [edge(2, 5), edge(4, 5), edge(3, 4), edge(1, 3)];
    const explanation = setup(items, edges).explain(5);
    expect(explanation.critical_path).toEqual([5, 4, 3, 1]);
    expect(explanation.unblock_roots.sort()).toEqual([1, 2]);
    expect(explanation.summary).toContain('critical path: A-5 ← A-4 ← A-3 ← A-1; start with A-1');
  });

  it('should prefer a chain ending at a runnable item over a longer chain ending at a stuck one', () => {
    const items = [item(1, { frozen: true }), item(2), item(3), item(4), item(5)];
    // A-5 ← A-4 ← A-3 ← A-1 (frozen, stuck), and A-5 ← A-2 (runnable)
    const edges = [edge(4, 5), edge(3, 4), edge(1, 3), edge(2, 5)];
    const explanation = setup(items, edges).explain(5);
    expect(explanation.critical_path).toEqual([5, 2]);
    expect(explanation.stuck).toEqual([1]);
  });

  it('should end at a stuck blocker when nothing runnable is reachable', () => {
    const items = [item(1, { blocked: true, blockedReason: 'legal' }), item(2)];
    const explanation = setup(items, [edge(1, 2)]).explain(2);
    expect(explanation.critical_path).toEqual([2, 1]);
    expect(explanation.stuck).toEqual([1]);
    expect(explanation.summary).toContain('critical path: A-2 ← A-1; A-1 needs attention (not runnable)');
  });

  it('should terminate on cycles and report cycle members as stuck', () => {
    const items = [item(1), item(2), item(3)];
    const explanation = setup(items, [edge(1, 2), edge(2, 1), edge(2, 3)]).explain(3);
    expect(explanation.critical_path).toEqual([3, 2, 1]);
    expect(explanation.unblock_roots).toEqual([]);
    expect(explanation.stuck).toEqual([1]);
  });

  it('should walk a 100k-long blocker chain iteratively', () => {
    const n = 100_000;
    const items = Array.from({ length: n }, (_, i) => item(i + 1));
    const edges = Array.from({ length: n - 1 }, (_, i) => edge(i + 1, i + 2));
    const explanation = setup(items, edges).explain(n);
    expect(explanation.critical_path).toHaveLength(n);
    expect(explanation.critical_path[n - 1]).toBe(1);
  });

  it('should give the operator reason when the blocked flag is set', () => {
    const explanation = setup([item(1, { blocked: true, blockedReason: 'legal' })], []).explain(1);
    expect(explanation.operator_block).toBe('blocked by operator: legal');
  });

  it('should report frozen items with their bucket', () => {
    const explanation = setup([item(1, { frozen: true })], []).explain(1);
    expect(explanation.bucket).toBe('frozen');
    expect(explanation.summary[0]).toContain('frozen');
  });

  it('should name the deciding ranking key against the neighbours above and below', () => {
    const items = [
      item(1, { priority: 'high' }),
      item(2, { priority: 'medium', createdAt: '2026-01-01T00:00:00Z' }),
      item(3, { priority: 'medium', createdAt: '2026-02-01T00:00:00Z' }),
    ];
    const explanation = setup(items, []).explain(2);
    expect(explanation.position).toBe(2);
    expect(explanation.above).toMatchObject({
      ref: 'A-1',
      position: 1,
      deciding_key: 'priority',
      item_value: 'medium',
      neighbour_value: 'high',
    });
    expect(explanation.below).toMatchObject({ ref: 'A-3', position: 3, deciding_key: 'created_at' });
    expect(explanation.summary).toContain('ranks below A-1 on priority (medium vs high)');
  });

  it('should fall to the id tie-break when every ranking key ties', () => {
    const explanation = setup([item(1), item(2)], []).explain(1);
    expect(explanation.below).toMatchObject({ ref: 'A-2', deciding_key: 'item_id' });
    expect(explanation.above).toBeNull();
  });

  it('should say when the WIP cap holds conduct work back', () => {
    const { explain } = setup([item(1), item(2)], [], 1);
    expect(explain(1).conduct).toBe('eligible');
    expect(explain(2).conduct).toBe('suppressed');
  });
});
