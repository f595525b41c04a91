import fc from 'fast-check';

import { BlockerFacts } from '../dependencies/satisfaction';
import { computeFrontier, DEFAULT_STAGE_ADAPTERS, defaultStageAdapter, FrontierMemo } from './compute-frontier';
import { referenceFrontier } from './reference-frontier';
import { FrontierEdge, FrontierInput, FrontierInputItem } from './vocabulary';

// computeFrontier (typed arrays, radix sort, incremental runs over a memo) against referenceFrontier (the spec's nine
// steps written plainly), on seeded random backlogs shaped as the daemon builds them: items of one project in id
// order, activation edges of every satisfaction form (the other gate points are stored too and filtered out, as the
// graph cache does), blocked and frozen flags, epics, outside and deleted blockers, succeeded runs and registered
// environments, WIP caps; then random writes applied the way the graph cache applies them (unchanged rows keep their
// objects, so the memo's in-place path runs), each answer compared with and without the memo.

const ISSUE_ORDER: readonly string[] = Object.keys(DEFAULT_STAGE_ADAPTERS);
// epics skip two refinement stages: another stage order, so status:<stage> is judged per workflow
const EPIC_ORDER: readonly string[] = ISSUE_ORDER.filter((s) => s !== 'plan-drafted' && s !== 'refining-plan');
const STATUSES = [
  'idea',
  'refined-idea',
  'plan-drafted',
  'planning',
  'planned',
  'implementing',
  'reviewing-implementation',
  'reviewed-implementation',
  'implemented',
  'release',
  'done',
  'cancelled',
  'stopped',
  'failed',
  // not charge-relevant and not terminal: a candidate only when blocked; not in the stage orders (rank -1)
  'parked',
];
const PRIORITIES = ['high', 'medium', 'low', 'urgent'];
const CREATED = [
  '2026-01-01T00:00:00.000',
  '2026-01-01 00:00:00',
  // the same instant as the first two
  '2026-01-01T01:00:00+01:00',
  '2026-01-02T00:00:00Z',
  '2026-01-02T00:00:00.500',
  'not a timestamp',
];
const SATISFACTIONS = [
  'status:done',
  'status:implemented',
  'status:planned',
  'status:release',
  'fact:merged',
  'fact:deployed:prod',
  'fact:deployed:staging',
  'bogus',
];
const GATES = ['activation', 'activation', 'activation', 'activation', 'integration', 'closure'];
const ENVIRONMENTS = ['prod', 'staging'];
// blockers outside the input items: terminal items of the project, another project's items; and one deleted (no facts)
const OUTSIDE_IDS = [101, 102, 103, 104];
const DELETED_ID = 201;
// small and dense: ties on every ranking key, chains and cycles are common
const MAX_ITEMS = 10;

interface ItemSpec {
  status: number;
  priority: number;
  frozen: boolean;
  blocked: boolean;
  reason: boolean;
  epic: boolean;
  created: number;
  quoted: boolean;
  merged: boolean;
}

interface OutsideSpec {
  status: number;
  merged: boolean;
  project: 'alpha' | 'beta';
}

interface EdgeSpec {
  blocker: number;
  dependent: number;
  gate: number;
  satisfaction: number;
}

interface World {
  items: Map<number, ItemSpec>;
  outside: Map<number, OutsideSpec>;
  // by (dependent, blocker, gate), as item_dependencies is unique; in order of their ids
  edges: Map<string, { id: number; spec: EdgeSpec }>;
  nextEdgeId: number;
  // succeeded deployment runs: `${item}:${environment}`
  runs: Set<string>;
  registered: { alpha: Set<string>; beta: Set<string> };
  wipCap: number;
  acceptForeignRuns: boolean;
  // items in id order (as the graph cache gives them), or in another fixed order
  scrambled: boolean;
  // the dependencies of items that left for a terminal status (leave), restored when they come back (reopen)
  leftWith?: Map<number, [string, { id: number; spec: EdgeSpec }][]>;
}

const itemSpecArb: fc.Arbitrary<ItemSpec> = fc.record({
  status: fc.nat(STATUSES.length - 1),
  priority: fc.oneof({ weight: 8, arbitrary: fc.nat(2) }, { weight: 1, arbitrary: fc.constant(3) }),
  frozen: fc.boolean(),
  blocked: fc.boolean(),
  reason: fc.boolean(),
  epic: fc.boolean(),
  created: fc.nat(CREATED.length - 1),
  quoted: fc.boolean(),
  merged: fc.boolean(),
});
const outsideSpecArb: fc.Arbitrary<OutsideSpec> = fc.record({
  status: fc.nat(STATUSES.length - 1),
  merged: fc.boolean(),
  project: fc.constantFrom('alpha' as const, 'beta' as const),
});
// blockers: mostly input items, sometimes outside ones or the deleted one; dependents: input items, or one that is not
const edgeSpecArb: fc.Arbitrary<EdgeSpec> = fc.record({
  blocker: fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: 1, max: MAX_ITEMS }) },
    { weight: 2, arbitrary: fc.constantFrom(...OUTSIDE_IDS) },
    { weight: 1, arbitrary: fc.constant(DELETED_ID) },
  ),
  dependent: fc.oneof(
    { weight: 12, arbitrary: fc.integer({ min: 1, max: MAX_ITEMS }) },
    { weight: 1, arbitrary: fc.constant(300) },
  ),
  gate: fc.nat(GATES.length - 1),
  satisfaction: fc.nat(SATISFACTIONS.length - 1),
});
const runArb = fc.tuple(fc.constantFrom(...[1, 2, 3, 4, 5, 6, 7, 8, ...OUTSIDE_IDS]), fc.constantFrom(...ENVIRONMENTS));
const wipCapArb = fc.oneof(
  { weight: 6, arbitrary: fc.nat(5) },
  { weight: 1, arbitrary: fc.constantFrom(30, 2.5, -1, NaN, Infinity) },
);

const worldArb: fc.Arbitrary<World> = fc
  .record({
    items: fc.array(itemSpecArb, { minLength: 2, maxLength: MAX_ITEMS }),
    outside: fc.tuple(outsideSpecArb, outsideSpecArb, outsideSpecArb, outsideSpecArb),
    edges: fc.array(edgeSpecArb, { maxLength: 40 }),
    runs: fc.array(runArb, { maxLength: 6 }),
    alpha: fc.subarray(ENVIRONMENTS),
    beta: fc.subarray(ENVIRONMENTS),
    wipCap: wipCapArb,
    acceptForeignRuns: fc.boolean(),
    scrambled: fc.boolean(),
  })
  .map((w) => {
    const world: World = {
      items: new Map(w.items.map((spec, k) => [k + 1, spec])),
      outside: new Map(OUTSIDE_IDS.map((id, k) => [id, w.outside[k]])),
      edges: new Map(),
      nextEdgeId: 1,
      runs: new Set(w.runs.map(([item, env]) => `${item}:${env}`)),
      registered: { alpha: new Set(w.alpha), beta: new Set(w.beta) },
      wipCap: w.wipCap,
      acceptForeignRuns: w.acceptForeignRuns,
      scrambled: w.scrambled,
    };
    for (const edge of w.edges) addEdge(world, edge);
    return world;
  });

function edgeKey(edge: EdgeSpec): string {
  return `${edge.dependent}:${edge.blocker}:${GATES[edge.gate]}`;
}

// Re-declaring an edge keeps its row (and id) with the new satisfaction.
function addEdge(world: World, spec: EdgeSpec): void {
  const key = edgeKey(spec);
  const row = world.edges.get(key);
  world.edges.set(key, { id: row?.id ?? world.nextEdgeId++, spec });
}

// Builds the core's input from a world, keeping the object of every row, facts entry, edge and array that did not
// change since the last input (as the graph cache does), so that computeFrontier's memo recognises them; with
// `fresh`, the edges array and the facts map are new ones around the same objects (as after a rebuild).
class Inputs {
  private items = new Map<number, { key: string; item: FrontierInputItem }>();
  private facts = new Map<number, { key: string; facts: BlockerFacts }>();
  private factsMap: Map<number, BlockerFacts> | null = null;
  private edges = new Map<number, { key: string; edge: FrontierEdge }>();
  private edgeList: FrontierEdge[] = [];

  of(world: World, fresh = false): FrontierInput {
    const items: FrontierInputItem[] = [];
    const order = world.scrambled
      ? (a: number, b: number) => ((a * 7) % 31) - ((b * 7) % 31) || a - b
      : (a: number, b: number) => a - b;
    for (const id of [...world.items.keys()].sort(order)) {
      const spec = world.items.get(id)!;
      const key = JSON.stringify(spec);
      let built = this.items.get(id);
      if (built?.key !== key) {
        built = { key, item: inputItem(id, spec) };
        this.items.set(id, built);
      }
      items.push(built.item);
    }

    const entries: [number, BlockerFacts][] = [];
    const factsOf = (id: number, status: string, merged: boolean, project: 'alpha' | 'beta', epic: boolean): void => {
      const deployed = ENVIRONMENTS.filter((env) => world.runs.has(`${id}:${env}`));
      const registered = [...world.registered[project]];
      const ref = `${project === 'alpha' ? 'A' : 'B'}-${id}`;
      const key = JSON.stringify([status, merged, deployed, registered, epic, ref]);
      let built = this.facts.get(id);
      if (built?.key !== key) {
        built = {
          key,
          facts: {
            status,
            mergedAt: merged ? '2026-01-05T00:00:00.000' : null,
            deployedEnvironments: new Set(deployed),
            registeredEnvironments: new Set(registered),
            stageOrder: epic ? EPIC_ORDER : ISSUE_ORDER,
            ref,
            title: `title of ${ref}`,
          },
        };
        this.facts.set(id, built);
      }
      entries.push([id, built.facts]);
    };
    for (const item of items) {
      const spec = world.items.get(item.id)!;
      factsOf(item.id, item.status, spec.merged, 'alpha', spec.epic);
    }
    for (const [id, spec] of world.outside) factsOf(id, STATUSES[spec.status], spec.merged, spec.project, false);
    const previous = this.factsMap;
    const same =
      previous !== null && previous.size === entries.length && entries.every(([id, f]) => previous.get(id) === f);
    if (!same || fresh) this.factsMap = new Map(entries);

    const edges: FrontierEdge[] = [];
    const rows = [...world.edges.values()].sort((a, b) => a.id - b.id);
    for (const { id, spec } of rows) {
      if (GATES[spec.gate] !== 'activation') continue;
      const key = JSON.stringify(spec);
      let built = this.edges.get(id);
      if (built?.key !== key) {
        built = {
          key,
          edge: { blocker: spec.blocker, dependent: spec.dependent, satisfaction: SATISFACTIONS[spec.satisfaction] },
        };
        this.edges.set(id, built);
      }
      edges.push(built.edge);
    }
    if (fresh || edges.length !== this.edgeList.length || edges.some((edge, k) => edge !== this.edgeList[k])) {
      this.edgeList = edges;
    }

    return {
      items,
      edges: this.edgeList,
      blockerFacts: this.factsMap!,
      wipCap: world.wipCap,
      acceptForeignRuns: world.acceptForeignRuns,
    };
  }
}

function inputItem(id: number, spec: ItemSpec): FrontierInputItem {
  const status = STATUSES[spec.status];
  return {
    id,
    ref: `A-${id}`,
    title: spec.quoted ? `item "${id}"` : `item ${id}`,
    status,
    priority: PRIORITIES[spec.priority],
    project: 'alpha',
    workflowId: spec.epic ? 'epic' : 'issue',
    workflowVersionId: spec.epic ? 2 : 1,
    frozen: spec.frozen,
    blocked: spec.blocked,
    blockedReason: spec.blocked && spec.reason ? 'waiting for the vendor' : null,
    createdAt: CREATED[spec.created],
    stageAdapter: defaultStageAdapter(status, spec.epic),
    lifecycleRank: (spec.epic ? EPIC_ORDER : ISSUE_ORDER).indexOf(status),
    isEpic: spec.epic,
  };
}

// One write, as the store would take it.
type Write =
  | { kind: 'update'; at: number; spec: ItemSpec }
  | { kind: 'add'; spec: ItemSpec }
  | { kind: 'remove'; at: number }
  | { kind: 'edge'; spec: EdgeSpec }
  | { kind: 'unedge'; at: number }
  | { kind: 'resatisfy'; at: number; satisfaction: number }
  | { kind: 'run'; item: number; environment: string }
  | { kind: 'register'; project: 'alpha' | 'beta'; environment: string }
  | { kind: 'outside'; id: number; spec: OutsideSpec }
  | { kind: 'wipCap'; wipCap: number }
  | { kind: 'foreignRuns' }
  // the daemon's kinds of write one by one: an operator block or unblock, a freeze or unfreeze, a status
  // across the terminal boundary (the item leaves the input items for the outside blockers, as the graph cache moves
  // it, or comes back from them)
  | { kind: 'block'; at: number }
  | { kind: 'freeze'; at: number }
  | { kind: 'finish'; at: number; status: number }
  | { kind: 'reopen'; at: number; status: number }
  // as the daemon's graph cache takes them: a new item with its dependencies in one write, and a status across the
  // terminal boundary that takes the item's own dependencies with it and brings them back when it returns
  | { kind: 'create'; spec: ItemSpec; blocker: number | null; dependent: number | null; satisfaction: number }
  | { kind: 'leave'; at: number; status: number };

const writeArb: fc.Arbitrary<Write> = fc.oneof(
  // in place: most writes (a status, a priority, a flag), the memo's fast path
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('update' as const), at: fc.nat(), spec: itemSpecArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('add' as const), spec: itemSpecArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('remove' as const), at: fc.nat() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('edge' as const), spec: edgeSpecArb }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('unedge' as const), at: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('resatisfy' as const),
      at: fc.nat(),
      satisfaction: fc.nat(SATISFACTIONS.length - 1),
    }),
  },
  {
    weight: 2,
    arbitrary: runArb.map(([item, environment]) => ({ kind: 'run' as const, item, environment })),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('register' as const),
      project: fc.constantFrom('alpha' as const, 'beta' as const),
      environment: fc.constantFrom(...ENVIRONMENTS),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('outside' as const),
      id: fc.constantFrom(...OUTSIDE_IDS),
      spec: outsideSpecArb,
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('wipCap' as const), wipCap: wipCapArb }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'foreignRuns' as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('block' as const), at: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('freeze' as const), at: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('finish' as const), at: fc.nat(), status: fc.constantFrom(10, 11, 12) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('reopen' as const), at: fc.nat(), status: fc.constantFrom(0, 4, 5, 8) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('create' as const),
      spec: itemSpecArb,
      blocker: fc.option(fc.nat(), { freq: 2 }),
      dependent: fc.option(fc.nat(), { freq: 2 }),
      satisfaction: fc.nat(SATISFACTIONS.length - 1),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('leave' as const), at: fc.nat(), status: fc.constantFrom(10, 11, 12) }),
  },
);

function toggle(set: Set<string>, value: string): void {
  if (!set.delete(value)) set.add(value);
}

function apply(world: World, write: Write): void {
  const ids = [...world.items.keys()];
  switch (write.kind) {
    case 'update':
      if (ids.length > 0) world.items.set(ids[write.at % ids.length], write.spec);
      break;
    case 'add': {
      // a new id: above the items' and the finished ones' (now outside blockers)
      const finished = [...world.outside.keys()].filter((id) => !OUTSIDE_IDS.includes(id));
      world.items.set(Math.max(0, ...ids, ...finished) + 1, write.spec);
      break;
    }
    case 'remove': {
      if (ids.length === 0) break;
      // a deleted item's dependency rows go with it
      const id = ids[write.at % ids.length];
      world.items.delete(id);
      for (const [key, row] of world.edges) {
        if (row.spec.blocker === id || row.spec.dependent === id) world.edges.delete(key);
      }
      break;
    }
    case 'edge':
      addEdge(world, write.spec);
      break;
    case 'unedge': {
      const keys = [...world.edges.keys()];
      if (keys.length > 0) world.edges.delete(keys[write.at % keys.length]);
      break;
    }
    case 'resatisfy': {
      // an edge's satisfaction rewritten in place (direct SQL): same row, same place, a new edge object
      const rows = [...world.edges.values()];
      if (rows.length === 0) break;
      const row = rows[write.at % rows.length];
      row.spec = { ...row.spec, satisfaction: write.satisfaction };
      break;
    }
    case 'run':
      toggle(world.runs, `${write.item}:${write.environment}`);
      break;
    case 'register':
      toggle(world.registered[write.project], write.environment);
      break;
    case 'outside':
      world.outside.set(write.id, write.spec);
      break;
    case 'wipCap':
      world.wipCap = write.wipCap;
      break;
    case 'foreignRuns':
      world.acceptForeignRuns = !world.acceptForeignRuns;
      break;
    case 'block':
    case 'freeze': {
      if (ids.length === 0) break;
      const id = ids[write.at % ids.length];
      const spec = world.items.get(id)!;
      world.items.set(
        id,
        write.kind === 'block'
          ? { ...spec, blocked: !spec.blocked, reason: !spec.blocked }
          : { ...spec, frozen: !spec.frozen },
      );
      break;
    }
    case 'create': {
      const finished = [...world.outside.keys()].filter((id) => !OUTSIDE_IDS.includes(id));
      const id = Math.max(0, ...ids, ...finished) + 1;
      world.items.set(id, write.spec);
      const gate = GATES.indexOf('activation');
      if (write.blocker !== null && ids.length > 0) {
        addEdge(world, {
          blocker: ids[write.blocker % ids.length],
          dependent: id,
          gate,
          satisfaction: write.satisfaction,
        });
      }
      if (write.dependent !== null && ids.length > 0) {
        addEdge(world, {
          blocker: id,
          dependent: ids[write.dependent % ids.length],
          gate,
          satisfaction: write.satisfaction,
        });
      }
      break;
    }
    case 'leave': {
      if (ids.length === 0) break;
      const id = ids[write.at % ids.length];
      const spec = world.items.get(id)!;
      world.items.delete(id);
      world.outside.set(id, { status: write.status, merged: spec.merged, project: 'alpha' });
      const own = [...world.edges].filter(([, row]) => row.spec.dependent === id);
      for (const [key] of own) world.edges.delete(key);
      (world.leftWith ??= new Map()).set(id, own);
      break;
    }
    case 'finish': {
      if (ids.length === 0) break;
      // its edges stay: the ones into it no longer reach an input item, the ones out of it now have an outside blocker
      const id = ids[write.at % ids.length];
      const spec = world.items.get(id)!;
      world.items.delete(id);
      world.outside.set(id, { status: write.status, merged: spec.merged, project: 'alpha' });
      break;
    }
    case 'reopen': {
      const finished = [...world.outside.keys()].filter((id) => !OUTSIDE_IDS.includes(id));
      if (finished.length === 0) break;
      const id = finished[write.at % finished.length];
      const was = world.outside.get(id)!;
      world.outside.delete(id);
      for (const [key, row] of world.leftWith?.get(id) ?? []) world.edges.set(key, row);
      world.leftWith?.delete(id);
      world.items.set(id, planned({ status: write.status, priority: 1, merged: was.merged }));
      break;
    }
  }
}

// A planned item of priority 0, with `extra` over it.
function planned(extra: Partial<ItemSpec> = {}): ItemSpec {
  return {
    status: STATUSES.indexOf('planned'),
    priority: 0,
    frozen: false,
    blocked: false,
    reason: false,
    epic: false,
    created: 0,
    quoted: false,
    merged: false,
    ...extra,
  };
}

// A world of planned items with these ids, no edge and no outside blocker.
function plannedWorld(ids: readonly number[]): World {
  return {
    items: new Map(ids.map((id) => [id, planned()])),
    outside: new Map(),
    edges: new Map(),
    nextEdgeId: 1,
    runs: new Set(),
    registered: { alpha: new Set(), beta: new Set() },
    wipCap: 30,
    acceptForeignRuns: false,
    scrambled: false,
  };
}

// Each call: computeFrontier with one memo over the world as it is then, against the reference.
function memoCheck(world: World): () => void {
  const inputs = new Inputs();
  const memo = new FrontierMemo();
  return () => {
    const input = inputs.of(world);
    expect(computeFrontier(input, memo)).toEqual(referenceFrontier(input));
  };
}

describe(referenceFrontier.name, () => {
  it('should be what computeFrontier answers for any backlog', () => {
    fc.assert(
      fc.property(worldArb, (world) => {
        const input = new Inputs().of(world);
        expect(computeFrontier(input)).toEqual(referenceFrontier(input));
      }),
      { numRuns: 400 },
    );
  });

  // between two reads, one to six writes, as a refresh that coalesced several finds them (an item removed and another
  // added leave as many items as before; updates, new items, edges added and removed and terminal moves together)
  it('should be what computeFrontier answers with its memo, write after write', () => {
    const stepArb = fc.tuple(fc.array(writeArb, { minLength: 1, maxLength: 6 }), fc.boolean());
    fc.assert(
      fc.property(worldArb, fc.array(stepArb, { minLength: 1, maxLength: 12 }), (world, steps) => {
        const inputs = new Inputs();
        const memo = new FrontierMemo();
        for (const [writes, fresh] of [[[], false] as const, ...steps]) {
          for (const write of writes) apply(world, write);
          const input = inputs.of(world, fresh);
          const expected = referenceFrontier(input);
          expect(computeFrontier(input, memo)).toEqual(expected);
          expect(computeFrontier(input)).toEqual(expected);
        }
      }),
      { numRuns: 100 },
    );
  });

  // two in-place writes random sequences reach rarely: one breaks a three-item stuck cycle (the member neither
  // written nor next to the written one must lose the cycle's name), one renames an item whose place is decided by
  // unblocks_count against an item of equal priority and depth
  it('should be what computeFrontier answers with its memo after a cycle breaks and on an unblocks tie', () => {
    const world = plannedWorld([1, 2, 3, 4, 5, 6, 7, 8]);
    const done = SATISFACTIONS.indexOf('status:done');
    // the cycle 1 → 2 → 3 → 1; 4 blocks one item, 5 blocks two (both depth 1)
    for (const [blocker, dependent] of [
      [1, 2],
      [2, 3],
      [3, 1],
      [4, 6],
      [5, 7],
      [5, 8],
    ]) {
      addEdge(world, { blocker, dependent, gate: 0, satisfaction: done });
    }
    const check = memoCheck(world);
    check();
    world.items.set(1, planned({ status: STATUSES.indexOf('done') }));
    check();
    world.items.set(1, planned());
    check();
    world.items.set(5, planned({ quoted: true }));
    check();
    world.items.set(4, planned({ quoted: true }));
    check();
  });

  // The newest item finishes (its edges stay: one into it now names no item, the one out of it an outside blocker)
  // and comes back, after the others as the graph cache grows its arrays: its edges must find it again, though none
  // of them changed and no edge came. So must an edge that came before its dependent.
  it('should be what computeFrontier answers with its memo when the newest item finishes and comes back', () => {
    for (const into of [false, true]) {
      const world = plannedWorld([1, 2, 3, 4]);
      const done = SATISFACTIONS.indexOf('status:done');
      addEdge(world, { blocker: 4, dependent: 2, gate: 0, satisfaction: done });
      addEdge(world, { blocker: 3, dependent: 1, gate: 0, satisfaction: done });
      // with it, an edge into the newest item: while it is finished that edge's dependent is no item
      if (into) addEdge(world, { blocker: 1, dependent: 4, gate: 0, satisfaction: done });
      const check = memoCheck(world);
      check();
      world.items.delete(4);
      world.outside.set(4, { status: STATUSES.indexOf('done'), merged: false, project: 'alpha' });
      check();
      world.outside.delete(4);
      world.items.set(4, planned());
      check();
      // and a new item after it, its edges unchanged
      world.items.set(5, planned());
      check();
      // a new edge into an id that is no item yet, then the item with that id
      addEdge(world, { blocker: 1, dependent: 6, gate: 0, satisfaction: done });
      check();
      world.items.set(6, planned());
      check();
    }
  });

  // the reference itself, on a small backlog with one of each: a stuck cycle, a self-dependency, an abandoned outside
  // blocker and a deleted one, an operator block, a frozen item, a blocker deployed to an environment its project
  // does not register, implementation re-entry and a WIP cap that suppresses a new start
  it('should answer a small backlog with every kind of blocker as the spec says', () => {
    const spec = (status: string, extra: Partial<ItemSpec> = {}): ItemSpec =>
      planned({ status: STATUSES.indexOf(status), priority: 1, ...extra });
    const world: World = {
      items: new Map([
        [1, spec('planned')],
        [2, spec('planned')],
        [3, spec('idea')],
        [4, spec('planned', { blocked: true, reason: true })],
        [5, spec('planned', { frozen: true })],
        [6, spec('planned')],
        [7, spec('implementing')],
        [8, spec('release')],
        [9, spec('planned')],
      ]),
      outside: new Map([
        [101, { status: STATUSES.indexOf('done'), merged: true, project: 'alpha' }],
        [102, { status: STATUSES.indexOf('cancelled'), merged: false, project: 'alpha' }],
        [103, { status: STATUSES.indexOf('implementing'), merged: false, project: 'beta' }],
        [104, { status: STATUSES.indexOf('release'), merged: true, project: 'beta' }],
      ]),
      edges: new Map(),
      nextEdgeId: 1,
      runs: new Set(['8:staging']),
      registered: { alpha: new Set(['prod']), beta: new Set(['prod']) },
      wipCap: 1,
      acceptForeignRuns: false,
      scrambled: false,
    };
    const edge = (blocker: number, dependent: number, satisfaction: string): EdgeSpec => ({
      blocker,
      dependent,
      gate: 0,
      satisfaction: SATISFACTIONS.indexOf(satisfaction),
    });
    for (const e of [
      edge(1, 2, 'status:done'),
      edge(2, 1, 'status:done'),
      edge(3, 3, 'status:planned'),
      edge(102, 6, 'status:done'),
      edge(DELETED_ID, 6, 'fact:merged'),
      edge(8, 6, 'fact:deployed:staging'),
    ]) {
      addEdge(world, e);
    }
    const input = new Inputs().of(world);
    const answer = referenceFrontier(input);
    expect(computeFrontier(input)).toEqual(answer);
    expect(answer.cycles).toEqual([
      [1, 2, 1],
      [3, 3],
    ]);
    const reasons = Object.fromEntries(answer.blocked.map((i) => [i.ref, i.blocked_reasons]));
    expect(reasons['A-1'][0]).toBe('dependency cycle: A-1 → A-2 → A-1');
    expect(reasons['A-4']).toEqual(['blocked by operator: waiting for the vendor']);
    expect(reasons['A-6']).toEqual([
      'A-102 is in cancelled; needs done (blocker abandoned; cannot clear)',
      'blocker no longer exists',
      'A-8 was deployed to staging, but staging is not registered for its project',
    ]);
    expect(answer.frozen.map((i) => i.ref)).toEqual(['A-5']);
    expect(answer.wip_active).toBe(1);
    expect(answer.conduct_eligible.map((i) => i.ref)).toEqual(['A-7']);
    expect(answer.wip_suppressed.map((i) => i.ref)).toEqual(['A-9']);
  });
});
