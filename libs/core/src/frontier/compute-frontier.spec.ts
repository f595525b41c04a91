import { BlockerFacts } from '../dependencies/satisfaction';
import {
  DEFAULT_STAGE_ADAPTERS,
  FrontierEdge,
  FrontierInput,
  FrontierInputItem,
  computeFrontier,
  defaultStageAdapter,
  parseTimestamp,
  toZonelessIso,
} from './compute-frontier';

const STAGE_ORDER = Object.keys(DEFAULT_STAGE_ADAPTERS);

const item = (id: number, overrides: Partial<FrontierInputItem> = {}): FrontierInputItem => {
  const status = overrides.status ?? 'planned';
  const isEpic = overrides.isEpic ?? false;
  return {
    id,
    ref: `A-${id}`,
    title: `item ${id}`,
    status,
    priority: 'medium',
    project: 'alpha',
    workflowId: isEpic ? 'epic' : 'issue',
    workflowVersionId: 1,
    frozen: false,
    blocked: false,
    blockedReason: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    stageAdapter: defaultStageAdapter(status, isEpic),
    lifecycleRank: STAGE_ORDER.indexOf(status),
    isEpic,
    ...overrides,
  };
};

const factsFor = (items: FrontierInputItem[], extra: [number, BlockerFacts][] = []): Map<number, BlockerFacts> =>
  new Map<number, BlockerFacts>([
    ...items.map((i): [number, BlockerFacts] => [
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
    ...extra,
  ]);

const edge = (blocker: number, dependent: number, satisfaction = 'status:done'): FrontierEdge => ({
  blocker,
  dependent,
  satisfaction,
});

const run = (items: FrontierInputItem[], edges: FrontierEdge[] = [], overrides: Partial<FrontierInput> = {}) =>
  computeFrontier({ items, edges, blockerFacts: factsFor(items), wipCap: 30, ...overrides });

const refs = (list: { ref: string }[]): string[] => list.map((i) => i.ref);

describe('computeFrontier', () => {
  describe('candidates', () => {
    it('should exclude terminal items when they are done, cancelled, stopped or failed', () => {
      const result = run([
        item(1, { status: 'done' }),
        item(2, { status: 'cancelled' }),
        item(3, { status: 'stopped' }),
        item(4, { status: 'failed' }),
        item(5),
      ]);
      expect(refs(result.runnable)).toEqual(['A-5']);
    });

    it('should include every charge-relevant status when the item is otherwise free', () => {
      const statuses = STAGE_ORDER.filter((s) => !['done', 'cancelled', 'stopped', 'failed'].includes(s));
      const result = run(statuses.map((status, i) => item(i + 1, { status })));
      expect(result.runnable).toHaveLength(13);
    });

    it('should exclude a status outside the charge-relevant set unless the blocked flag is set', () => {
      const result = run([
        item(1, { status: 'triage' }),
        item(2, { status: 'triage', blocked: true, blockedReason: 'legal review' }),
      ]);
      expect(result.runnable).toEqual([]);
      expect(refs(result.blocked)).toEqual(['A-2']);
    });

    it('should exclude a terminal item even when its blocked flag is set', () => {
      expect(run([item(1, { status: 'done', blocked: true })]).blocked).toEqual([]);
    });

    it('should keep the first occurrence when an id appears twice', () => {
      const result = run([item(1, { title: 'first' }), item(1, { title: 'second' })]);
      expect(result.runnable.map((i) => i.title)).toEqual(['first']);
    });
  });

  describe('ranking', () => {
    it('should order high before medium before low, unknown priorities last', () => {
      const result = run([
        item(1, { priority: 'low' }),
        item(2, { priority: 'urgent' }),
        item(3, { priority: 'high' }),
        item(4, { priority: 'medium' }),
      ]);
      expect(refs(result.runnable)).toEqual(['A-3', 'A-4', 'A-1', 'A-2']);
    });

    it('should rank priority above downstream depth when both differ', () => {
      const items = [item(1, { priority: 'medium' }), item(2, { priority: 'high' }), item(3, { status: 'idea' })];
      const result = run(items, [edge(1, 3)]);
      expect(refs(result.runnable).slice(0, 2)).toEqual(['A-2', 'A-1']);
    });

    it('should rank the head of a deep chain above a wider but shallower fan-out at equal priority', () => {
      // A-1 → A-3 → A-4 → A-5 (depth 3, unblocks 1); A-2 →, A-8 (depth 1, unblocks 3)
      const items = [1, 2, 3, 4, 5, 6, 7, 8].map((id) => item(id, { status: id > 2 ? 'idea' : 'planned' }));
      const edges = [edge(1, 3), edge(3, 4), edge(4, 5), edge(2, 6), edge(2, 7), edge(2, 8)];
      const result = run(items, edges);
      expect(refs(result.runnable)).toEqual(['A-1', 'A-2']);
      expect(result.runnable[0]).toMatchObject({ downstream_depth: 3, unblocks_count: 1 });
      expect(result.runnable[1]).toMatchObject({ downstream_depth: 1, unblocks_count: 3 });
    });

    it('should rank more direct dependents first when depth is equal', () => {
      const items = [1, 2, 3, 4, 5].map((id) => item(id, { status: id > 2 ? 'idea' : 'planned' }));
      const result = run(items, [edge(1, 3), edge(2, 4), edge(2, 5)]);
      expect(refs(result.runnable)).toEqual(['A-2', 'A-1']);
    });

    it('should rank the item closer to done first when priority, depth and unblocks tie', () => {
      const result = run([item(1, { status: 'idea' }), item(2, { status: 'release' }), item(3, { status: 'planned' })]);
      expect(refs(result.runnable)).toEqual(['A-2', 'A-3', 'A-1']);
    });

    it('should order lifecycle then created_at the same way when ranks are not small integers', () => {
      const result = run([
        item(1, { lifecycleRank: -1 }),
        item(2, { lifecycleRank: 2.5, createdAt: '2026-02-01T00:00:00Z' }),
        item(3, { lifecycleRank: 7 }),
        item(4, { lifecycleRank: 2.5, createdAt: '2026-01-01T00:00:00Z' }),
      ]);
      expect(refs(result.runnable)).toEqual(['A-3', 'A-4', 'A-2', 'A-1']);
    });

    it('should rank older items first when every earlier key ties', () => {
      const result = run([
        item(1, { createdAt: '2026-03-01T00:00:00.000Z' }),
        item(2, { createdAt: '2026-01-01T00:00:00.000Z' }),
        item(3, { createdAt: '2026-02-01T00:00:00.000Z' }),
      ]);
      expect(refs(result.runnable)).toEqual(['A-2', 'A-3', 'A-1']);
    });

    it('should compare created_at by instant when the stored formats differ', () => {
      const result = run([
        item(1, { createdAt: '2026-01-01T02:00:00+03:00' }), // 2025-12-31T23:00Z
        item(2, { createdAt: '2026-01-01 00:30:00' }), // zone-less = UTC
        item(3, { createdAt: '2026-01-01T00:10:00.000Z' }),
      ]);
      expect(refs(result.runnable)).toEqual(['A-1', 'A-3', 'A-2']);
    });

    it('should sort unparseable created_at after valid ones', () => {
      const result = run([item(1, { createdAt: 'yesterday' }), item(2, { createdAt: '2030-01-01T00:00:00Z' })]);
      expect(refs(result.runnable)).toEqual(['A-2', 'A-1']);
    });

    it('should break a full tie by internal id ascending, whatever the input order', () => {
      const result = run([item(30), item(10), item(20)]);
      expect(refs(result.runnable)).toEqual(['A-10', 'A-20', 'A-30']);
    });

    it('should give identical output when the input order is permuted', () => {
      const items = [1, 2, 3, 4, 5, 6].map((id) =>
        item(id, { priority: id % 2 ? 'high' : 'low', status: id % 3 ? 'planned' : 'idea' }),
      );
      const edges = [edge(1, 3), edge(2, 4)];
      const forward = run(items, edges);
      const backward = run([...items].reverse(), [...edges].reverse());
      expect(refs(backward.runnable)).toEqual(refs(forward.runnable));
    });

    it('should keep the blocked and frozen buckets in rank order too', () => {
      const result = run([
        item(1, { blocked: true, priority: 'low' }),
        item(2, { blocked: true, priority: 'high' }),
        item(3, { frozen: true, priority: 'low' }),
        item(4, { frozen: true, priority: 'high' }),
      ]);
      expect(refs(result.blocked)).toEqual(['A-2', 'A-1']);
      expect(refs(result.frozen)).toEqual(['A-4', 'A-3']);
    });
  });

  describe('unblocks_count and downstream_depth', () => {
    it('should count dependents and depth over non-candidate items present in the input', () => {
      const items = [item(1), item(2, { status: 'done' }), item(3, { status: 'triage' })];
      const result = run(items, [edge(1, 2, 'fact:merged'), edge(2, 3)]);
      expect(result.runnable[0]).toMatchObject({ ref: 'A-1', unblocks_count: 1, downstream_depth: 2 });
    });

    it('should not count a dependent that is absent from the input items', () => {
      expect(run([item(1)], [edge(1, 99)]).runnable[0]).toMatchObject({ unblocks_count: 0, downstream_depth: 0 });
    });

    it('should count satisfied activation edges too, as structure', () => {
      const items = [item(1, { status: 'release' }), item(2)];
      const result = run(items, [edge(1, 2, 'status:implemented')]);
      expect(result.runnable.find((i) => i.ref === 'A-1')).toMatchObject({ unblocks_count: 1, downstream_depth: 1 });
    });

    it('should compute a 100k-deep chain iteratively when it is given', () => {
      const n = 100_000;
      const items = Array.from({ length: n }, (_, i) => item(i + 1, { status: i === 0 ? 'planned' : 'idea' }));
      const edges = Array.from({ length: n - 1 }, (_, i) => edge(i + 1, i + 2));
      const result = run(items, edges);
      expect(result.runnable).toHaveLength(1);
      expect(result.runnable[0]).toMatchObject({ ref: 'A-1', downstream_depth: n - 1, unblocks_count: 1 });
      expect(result.blocked).toHaveLength(n - 1);
    });
  });

  describe('hard blocks', () => {
    it('should put an item with an unsatisfied activation edge in blocked with adapter wait', () => {
      const result = run([item(1, { status: 'implementing' }), item(2)], [edge(1, 2)]);
      expect(result.blocked).toEqual([
        expect.objectContaining({
          ref: 'A-2',
          adapter: 'wait',
          stage_adapter: 'conduct',
          blocked_by: [1],
          blocked_reasons: ['A-1 is in implementing; needs done'],
        }),
      ]);
    });

    it('should leave an item runnable with its stage adapter when every blocker is satisfied', () => {
      const items = [item(1, { status: 'release' }), item(2)];
      const result = run(items, [edge(1, 2, 'status:implemented')]);
      expect(result.runnable.find((i) => i.ref === 'A-2')).toMatchObject({ adapter: 'conduct', blocked_by: [] });
    });

    it('should block with "blocker no longer exists" when the blocker has no facts', () => {
      const result = run([item(2)], [edge(77, 2)]);
      expect(result.blocked[0]).toMatchObject({ blocked_by: [77], blocked_reasons: ['blocker no longer exists'] });
    });

    it('should use facts of blockers outside the input items when evaluating', () => {
      const external: BlockerFacts = {
        status: 'implemented',
        mergedAt: null,
        deployedEnvironments: new Set(),
        registeredEnvironments: new Set(),
        ref: 'B-7',
      };
      const items = [item(2)];
      const result = computeFrontier({
        items,
        edges: [edge(7, 2, 'fact:merged')],
        blockerFacts: factsFor(items, [[7, external]]),
        wipCap: 30,
      });
      expect(result.blocked[0].blocked_reasons).toEqual([
        'B-7 is in implemented and not merged; needs a confirmed merge',
      ]);
    });

    it('should honour the deployed form strictly unless foreign runs are accepted', () => {
      const deployed: BlockerFacts = {
        status: 'done',
        mergedAt: '2026-01-01',
        deployedEnvironments: new Set(['prod']),
        registeredEnvironments: new Set(),
        ref: 'B-7',
      };
      const input = {
        items: [item(2)],
        edges: [edge(7, 2, 'fact:deployed:prod')],
        blockerFacts: new Map([[7, deployed]]),
        wipCap: 30,
      };
      expect(computeFrontier(input).blocked).toHaveLength(1);
      expect(computeFrontier({ ...input, acceptForeignRuns: true }).runnable).toHaveLength(1);
    });

    it('should list one reason per unsatisfied edge in edge order', () => {
      const items = [item(1, { status: 'idea' }), item(2, { status: 'planned' }), item(3)];
      const result = run(items, [edge(2, 3), edge(1, 3, 'fact:merged')]);
      const blocked = result.blocked.find((i) => i.ref === 'A-3');
      expect(blocked?.blocked_by).toEqual([2, 1]);
      expect(blocked?.blocked_reasons).toEqual([
        'A-2 is in planned; needs done',
        'A-1 is in idea and not merged; needs a confirmed merge',
      ]);
    });

    // The lists are copied out by size (literals up to four, a slice past that): every size, with and without the
    // operator's reason before the edges' (satisfied edges in between are skipped).
    it('should list every unsatisfied blocker in edge order whatever their number', () => {
      const blockers = [1, 2, 3, 4, 5, 6].map((id) => item(id, { status: 'implementing' }));
      const done = item(7, { status: 'done' });
      for (const operator of [false, true]) {
        for (let count = 0; count <= 6; count++) {
          const dependent = item(100, { blocked: operator, blockedReason: operator ? 'hold' : null });
          const edges = [edge(7, 100), ...blockers.slice(0, count).flatMap((b) => [edge(b.id, 100), edge(7, 100)])];
          const result = run([...blockers, done, dependent], edges);
          const found = [...result.runnable, ...result.blocked].find((i) => i.item_id === 100)!;
          const ids = blockers.slice(0, count).map((b) => b.id);
          expect(found.blocked_by).toEqual(ids);
          expect(found.blocked_reasons).toEqual([
            ...(operator ? ['blocked by operator: hold'] : []),
            ...ids.map((id) => `A-${id} is in implementing; needs done`),
          ]);
          expect(result.blocked.includes(found)).toBe(operator || count > 0);
        }
      }
    });
  });

  describe('blocked flag', () => {
    it('should report a flagged item as blocked with the operator reason even without edges', () => {
      const result = run([item(1, { blocked: true, blockedReason: 'waiting on legal' })]);
      expect(result.runnable).toEqual([]);
      expect(result.blocked[0]).toMatchObject({
        adapter: 'wait',
        blocked_by: [],
        blocked_reasons: ['blocked by operator: waiting on legal'],
        blocked_flag: true,
      });
    });

    it('should say only "blocked by operator" when no reason was given', () => {
      expect(run([item(1, { blocked: true })]).blocked[0].blocked_reasons).toEqual(['blocked by operator']);
    });

    it('should list the operator reason before dependency reasons', () => {
      const result = run([item(1, { status: 'idea' }), item(2, { blocked: true, blockedReason: 'x' })], [edge(1, 2)]);
      expect(result.blocked[0].blocked_reasons).toEqual(['blocked by operator: x', 'A-1 is in idea; needs done']);
    });
  });

  describe('frozen', () => {
    it('should put frozen items in frozen even when they are also blocked', () => {
      const result = run([item(1, { status: 'idea' }), item(2, { frozen: true, blocked: true })], [edge(1, 2)]);
      expect(refs(result.frozen)).toEqual(['A-2']);
      expect(result.frozen[0].adapter).toBe('wait');
      expect(result.blocked).toEqual([]);
    });
  });

  describe('WIP', () => {
    it('should count implementing and reviewing-implementation but not frozen or later stages', () => {
      const result = run([
        item(1, { status: 'implementing' }),
        item(2, { status: 'reviewing-implementation' }),
        item(3, { status: 'implementing', frozen: true }),
        item(4, { status: 'reviewed-implementation' }),
        item(5, { status: 'polishing-implementation' }),
        item(6, { status: 'implementing', blocked: true }),
      ]);
      expect(result.wip_active).toBe(3);
    });

    it('should limit fresh conduct starts to the remaining capacity, in rank order', () => {
      const items = [
        item(1, { status: 'implementing' }),
        item(2, { priority: 'low' }),
        item(3, { priority: 'high' }),
        item(4, { isEpic: true, status: 'planned' }),
      ];
      const result = run(items, [], { wipCap: 2 });
      expect(result.wip_remaining).toBe(1);
      expect(refs(result.conduct_eligible)).toEqual(['A-3', 'A-1']);
      expect(refs(result.wip_suppressed)).toEqual(['A-4', 'A-2']);
    });

    it('should suppress new starts when no capacity remains, but keep re-entry of issues and epics', () => {
      const items = [
        item(1, { status: 'implementing' }),
        item(2, { status: 'reviewing-implementation' }),
        item(3, { status: 'implementing', isEpic: true }),
        item(4, { status: 'planned', isEpic: true }),
      ];
      const result = run(items, [], { wipCap: 2 });
      expect(result.wip_active).toBe(3);
      expect(refs(result.conduct_eligible).sort()).toEqual(['A-1', 'A-2', 'A-3']);
      expect(refs(result.wip_suppressed).sort()).toEqual(['A-4']);
    });

    it('should keep an epic already implementing eligible without taking a slot', () => {
      const items = [
        item(1, { status: 'implementing', isEpic: true }),
        item(2, { status: 'reviewing-implementation', isEpic: true }),
        item(3, { isEpic: true }),
        item(4),
      ];
      const result = run(items, [], { wipCap: 3 });
      expect(result.wip_active).toBe(2);
      expect(refs(result.conduct_eligible).sort()).toEqual(['A-1', 'A-2', 'A-3']);
      expect(refs(result.wip_suppressed)).toEqual(['A-4']);
    });

    it('should exclude non-conduct adapters and blocked items from conduct_eligible', () => {
      const items = [item(1, { status: 'idea' }), item(2, { status: 'idea' }), item(3)];
      const result = run(items, [edge(2, 3)]);
      expect(result.conduct_eligible).toEqual([]);
    });

    it('should keep runnable untouched by the cap when conduct is suppressed', () => {
      const result = run([item(1), item(2)], [], { wipCap: 0 });
      expect(result.runnable).toHaveLength(2);
      expect(result.conduct_eligible).toEqual([]);
    });

    it('should floor the cap at zero and fall back to the default when not finite', () => {
      expect(run([item(1)], [], { wipCap: -3 }).wip_cap).toBe(0);
      expect(run([item(1)], [], { wipCap: Number.NaN }).wip_cap).toBe(30);
    });
  });

  describe('cycles', () => {
    it('should report items on an unsatisfied cycle as blocked naming the cycle, without looping', () => {
      const result = run([item(1), item(2), item(3)], [edge(1, 2), edge(2, 1), edge(2, 3)]);
      expect(result.runnable).toEqual([]);
      const first = result.blocked.find((i) => i.ref === 'A-1');
      expect(first?.blocked_reasons).toEqual(['dependency cycle: A-1 → A-2 → A-1', 'A-2 is in planned; needs done']);
      const third = result.blocked.find((i) => i.ref === 'A-3');
      expect(third?.blocked_reasons).toEqual(['A-2 is in planned; needs done']);
      expect(result.cycles).toEqual([[1, 2, 1]]);
    });

    it('should not name a cycle when one of its edges is satisfied', () => {
      const items = [item(1, { status: 'release' }), item(2)];
      const result = run(items, [edge(1, 2, 'status:implemented'), edge(2, 1)]);
      expect(result.cycles).toEqual([]);
      expect(result.blocked.find((i) => i.ref === 'A-1')?.blocked_reasons).toEqual(['A-2 is in planned; needs done']);
    });

    it('should compute depth as if the cycle edges were absent', () => {
      // A-1 ↔ → A-3 → A-4
      const items = [1, 2, 3, 4].map((id) => item(id));
      const result = run(items, [edge(1, 2), edge(2, 1), edge(2, 3), edge(3, 4)]);
      const depth = new Map(result.blocked.map((i) => [i.ref, i.downstream_depth]));
      expect(depth.get('A-1')).toBe(0);
      expect(depth.get('A-2')).toBe(2);
      expect(depth.get('A-3')).toBe(1);
    });

    it('should report a self-dependency as a cycle of one item', () => {
      const result = run([item(1)], [edge(1, 1)]);
      expect(result.blocked[0].blocked_reasons[0]).toBe('dependency cycle: A-1 → A-1');
      expect(result.blocked[0].unblocks_count).toBe(0);
    });

    it('should finish on a 100k-item cycle and abbreviate its name', () => {
      const n = 100_000;
      const items = Array.from({ length: n }, (_, i) => item(i + 1));
      const edges = Array.from({ length: n }, (_, i) => edge(i + 1, ((i + 1) % n) + 1));
      const result = run(items, edges);
      expect(result.blocked).toHaveLength(n);
      expect(result.blocked[0].blocked_reasons[0]).toMatch(/^dependency cycle: A-1 → A-2 → .* more … → .* → A-1$/);
      expect(result.cycles[0]).toHaveLength(n + 1);
    });
  });
});

describe('defaultStageAdapter', () => {
  it.each([
    ['idea', false, 'refine'],
    ['refining-plan', true, 'refine'],
    ['refined-idea', true, 'shepherd'],
    ['refined-idea', false, 'conduct'],
    ['planning', true, 'shepherd'],
    ['planned', true, 'conduct'],
    ['implementing', false, 'advance'],
    ['implementing', true, 'conduct'],
    ['reviewing-implementation', false, 'advance'],
    ['reviewed-implementation', false, 'polish'],
    ['polishing-implementation', true, 'polish'],
    ['implemented', false, 'usher'],
    ['release', true, 'usher'],
    ['done', false, 'skip'],
    ['triage', false, 'wait'],
    ['constructor', false, 'wait'],
  ])('should map %s (epic=%s) to %s', (status, isEpic, adapter) => {
    expect(defaultStageAdapter(status as string, isEpic as boolean)).toBe(adapter);
  });
});

describe('parseTimestamp', () => {
  it('should read a zone-less timestamp as UTC when no zone is given', () => {
    expect(parseTimestamp('2026-01-01T00:00:00')).toBe(Date.UTC(2026, 0, 1));
    expect(parseTimestamp('2026-01-01 00:00:00.5')).toBe(Date.UTC(2026, 0, 1, 0, 0, 0, 500));
  });

  it('should agree with Date.parse when the timestamp carries a zone', () => {
    for (const text of [
      '2026-02-28T23:59:59.999Z',
      '2024-02-29T12:00:00Z',
      '2026-06-01T10:00:00+02:00',
      '2026-06-01T10:00:00.5-0330',
      '1969-12-31T23:59:59.999Z',
    ]) {
      expect(parseTimestamp(text)).toBe(Date.parse(text));
    }
  });

  it('should read PostgreSQL text offsets when given hours only', () => {
    expect(parseTimestamp('2026-01-01 00:00:00.123456+00')).toBe(Date.UTC(2026, 0, 1, 0, 0, 0, 123));
    expect(parseTimestamp('2026-01-01 02:00:00+02')).toBe(Date.UTC(2026, 0, 1));
  });

  it('should read a date without time as midnight UTC', () => {
    expect(parseTimestamp('2026-01-01')).toBe(Date.UTC(2026, 0, 1));
  });

  it('should return Infinity when the text is not a date', () => {
    expect(parseTimestamp('2026-02-30T00:00:00Z')).toBe(Infinity);
    expect(parseTimestamp('2026-01-01T00:00:00+0')).toBe(Infinity);
    expect(parseTimestamp('2026-13-01T00:00:00Z')).toBe(Infinity);
    expect(parseTimestamp('not a date')).toBe(Infinity);
    expect(parseTimestamp('')).toBe(Infinity);
  });
});

describe('toZonelessIso', () => {
  it.each([
    ['2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000'],
    ['2026-01-01T00:00:00', '2026-01-01T00:00:00.000'],
    ['2026-01-01 05:06:07.123456', '2026-01-01T05:06:07.123'],
    ['2026-01-01T02:00:00+02:00', '2026-01-01T00:00:00.000'],
  ])('should render %s as %s', (input, expected) => {
    expect(toZonelessIso(input)).toBe(expected);
  });
});
