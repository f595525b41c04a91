import { BlockerFacts, computeFrontier, createRefResolver, defaultStageAdapter, FrontierInputItem } from '@app/core';

import { toFrontierItemWire, toFrontierResultWire } from './frontier.mapper';

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
  createdAt: '2026-01-01T00:00:00Z',
  stageAdapter: defaultStageAdapter(overrides.status ?? 'planned', false),
  lifecycleRank: 1,
  isEpic: false,
  ...overrides,
});

const factsFor = (items: FrontierInputItem[]): Map<number, BlockerFacts> =>
  new Map(
    items.map((i): [number, BlockerFacts] => [
      i.id,
      {
        status: i.status,
        mergedAt: null,
        deployedEnvironments: new Set(),
        registeredEnvironments: new Set(),
        ref: i.ref,
        title: i.title,
      },
    ]),
  );

describe(toFrontierItemWire.name, () => {
  it('should render public refs, leave out unresolvable blockers and drop in-process fields', () => {
    const items = [item(1, { status: 'idea' }), item(2)];
    const computation = computeFrontier({
      items,
      edges: [
        { blocker: 1, dependent: 2, satisfaction: 'status:done' },
        { blocker: 66, dependent: 2, satisfaction: 'status:done' },
      ],
      blockerFacts: factsFor(items),
      wipCap: 30,
    });
    const blocked = computation.blocked.find((i) => i.ref === 'A-2')!;
    const wire = toFrontierItemWire(blocked, createRefResolver(items, factsFor(items)));
    expect(Object.keys(wire).sort()).toEqual(
      [
        'item_id',
        'title',
        'status',
        'priority',
        'project',
        'workflow_id',
        'workflow_version_id',
        'adapter',
        'blocked_by',
        'blocked_reasons',
        'unblocks_count',
        'downstream_depth',
        'created_at',
      ].sort(),
    );
    expect(wire).toMatchObject({ item_id: 'A-2', blocked_by: ['A-1'], created_at: '2026-01-01T00:00:00.000' });
    expect(wire.blocked_reasons).toHaveLength(2);
  });
});

describe(toFrontierResultWire.name, () => {
  it('should render every bucket and keep the WIP numbers', () => {
    const items = [item(1), item(2, { frozen: true })];
    const computation = computeFrontier({ items, edges: [], blockerFacts: factsFor(items), wipCap: 5 });
    const wire = toFrontierResultWire(computation, createRefResolver(items, new Map()));
    expect(Object.keys(wire)).toEqual(['runnable', 'blocked', 'frozen', 'wip_cap', 'wip_active', 'conduct_eligible']);
    expect(wire.runnable.map((i) => i.item_id)).toEqual(['A-1']);
    expect(wire.frozen.map((i) => i.item_id)).toEqual(['A-2']);
    expect(wire.conduct_eligible.map((i) => i.item_id)).toEqual(['A-1']);
    expect(wire.wip_cap).toBe(5);
  });
});
