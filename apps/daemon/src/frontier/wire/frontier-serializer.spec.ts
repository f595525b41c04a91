import fc from 'fast-check';

import type { FrontierItemWire } from '@app/contracts';

import {
  BlockerFacts,
  computeFrontier,
  createRefResolver,
  defaultStageAdapter,
  FrontierComputation,
  FrontierEdge,
  FrontierInputItem,
  FrontierItem,
  FrontierMemo,
  listStampsOf,
} from '@app/core';

import {
  bodyBytes,
  etagOf,
  frontierItemJson,
  FrontierSerializer,
  pieceCuts,
  pieceEnd,
  SerializedFrontier,
  serializeFrontier,
} from './frontier-serializer';
import { FRONTIER_ITEM_WIRE_FIELDS, sameWireFields } from './frontier-wire-fields';
import { toFrontierItemWire, toFrontierResultWire } from './frontier.mapper';

const STATUSES = ['idea', 'planned', 'implementing', 'release', 'done', 'cancelled'];
const PRIORITIES = ['high', 'medium', 'low'];

interface World {
  items: FrontierInputItem[];
  edges: FrontierEdge[];
  facts: Map<number, BlockerFacts>;
}

function world(size: number, statuses: number[], edges: [number, number][], titles: number[]): World {
  const items: FrontierInputItem[] = [];
  for (let id = 1; id <= size; id++) {
    const status = STATUSES[statuses[id % statuses.length] % STATUSES.length];
    items.push({
      id,
      ref: `A-${id}`,
      title: `item ${id}${'!'.repeat(titles[id % titles.length] % 3)} "quoted" ✓`,
      status,
      priority: PRIORITIES[id % 3],
      project: 'alpha',
      workflowId: 'issue',
      workflowVersionId: 1,
      frozen: id % 11 === 0,
      blocked: id % 13 === 0,
      blockedReason: id % 26 === 0 ? 'held' : null,
      createdAt: `2026-01-01T00:00:${String(id % 60).padStart(2, '0')}.000`,
      stageAdapter: defaultStageAdapter(status, false),
      lifecycleRank: STATUSES.indexOf(status),
      isEpic: false,
    });
  }
  const facts = new Map<number, BlockerFacts>(
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
  return {
    items: items.filter((i) => i.status !== 'done' && i.status !== 'cancelled'),
    edges: edges.map(([b, d]) => ({
      blocker: (b % (size + 2)) + 1,
      dependent: (d % size) + 1,
      satisfaction: 'status:done',
    })),
    facts,
  };
}

const worldArb = fc
  .record({
    statuses: fc.array(fc.nat(), { minLength: 1, maxLength: 30 }),
    edges: fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 40 }),
    titles: fc.array(fc.nat(), { minLength: 1, maxLength: 5 }),
    wipCap: fc.nat(5),
  })
  .map((w) => ({ ...world(25, w.statuses, w.edges, w.titles), wipCap: w.wipCap }));

// The serializer's body and ETag are exactly those of JSON.stringify over the wire result.
function expectStringifiedBytes(
  sut: FrontierSerializer,
  computation: FrontierComputation,
  refOf: (id: number) => string | undefined,
): void {
  const expected = serializeFrontier(toFrontierResultWire(computation, refOf));
  const got = sut.serialize(computation, refOf);
  expect(bodyBytes(got).toString('utf8')).toBe(bodyBytes(expected).toString('utf8'));
  expect(got.length).toBe(bodyBytes(got).length);
  expect(got.etag).toBe(expected.etag);
}

describe(FrontierSerializer.name, () => {
  // maxChunks 1 copies every body whole; 3 compacts now and then; the default keeps views of earlier bodies
  it('should give, after any sequence of answers, exactly the bytes and tag of serializing the whole answer', () => {
    fc.assert(
      fc.property(
        fc.array(worldArb, { minLength: 1, maxLength: 6 }),
        fc.constantFrom(1, 3, undefined),
        (worlds, max) => {
          const sut = new FrontierSerializer(max);
          for (const w of worlds) {
            const computation = computeFrontier({
              items: w.items,
              edges: w.edges,
              blockerFacts: w.facts,
              wipCap: w.wipCap,
            });
            const refOf = createRefResolver(w.items, w.facts);
            expectStringifiedBytes(sut, computation, refOf);
          }
        },
      ),
      // a planted copy of stale bytes (an item matched by id alone, a title not compared) fails within 6 runs
      { numRuns: 100 },
    );
  });

  // with a memo the answers carry stamps, and the serializer tells the items it copies from them
  it('should give exactly the bytes of the whole answer after any writes computed with a memo', () => {
    const write = fc.record({
      id: fc.integer({ min: 1, max: 300 }),
      kind: fc.constantFrom('title', 'priority', 'status', 'frozen', 'blocked'),
      value: fc.nat(5),
    });
    fc.assert(
      fc.property(fc.array(fc.array(write, { minLength: 1, maxLength: 4 }), { maxLength: 12 }), (batches) => {
        const w = world(
          300,
          [0, 1, 2, 3],
          [
            [4, 9],
            [7, 30],
            [12, 40],
            [300, 5],
          ],
          [0, 1],
        );
        const memo = new FrontierMemo();
        const sut = new FrontierSerializer();
        let items = w.items;
        for (const batch of [[], ...batches]) {
          items = items.map((item) => {
            let next = item;
            for (const op of batch.filter((o) => o.id === item.id)) {
              if (op.kind === 'title') next = { ...next, title: `${next.title} ${op.value}` };
              if (op.kind === 'priority') next = { ...next, priority: PRIORITIES[op.value % 3] };
              if (op.kind === 'status') next = { ...next, status: STATUSES[op.value % 3] };
              if (op.kind === 'frozen') next = { ...next, frozen: !next.frozen };
              if (op.kind === 'blocked') next = { ...next, blocked: !next.blocked };
            }
            return next;
          });
          const computation = computeFrontier({ items, edges: w.edges, blockerFacts: w.facts, wipCap: 3 }, memo);
          expect(listStampsOf(computation)).toBeDefined();
          expectStringifiedBytes(sut, computation, createRefResolver(items, w.facts));
          // the items not written are copied, not encoded again
          if (batch.length > 0) expect(sut.rendered).toBeLessThan(60);
        }
      }),
      // a planted copy of stale bytes (an item matched by stamp alone, by id alone) fails within 2 runs
      { numRuns: 30 },
    );
  });

  it('should re-render only the items whose wire fields changed', () => {
    const w = world(25, [1], [], [0]);
    const sut = new FrontierSerializer();
    const first = computeFrontier({ items: w.items, edges: w.edges, blockerFacts: w.facts, wipCap: 3 });
    sut.serialize(first, createRefResolver(w.items, w.facts));
    const items = w.items.map((i) => (i.id === 5 ? { ...i, title: 'renamed' } : i));
    const second = computeFrontier({ items, edges: w.edges, blockerFacts: w.facts, wipCap: 3 });
    const body = bodyBytes(sut.serialize(second, createRefResolver(items, w.facts))).toString('utf8');
    expect(sut.rendered).toBe(1);
    // conduct_eligible repeats runnable items: copied too
    expect(sut.reused).toBe(items.length - 1 + second.conduct_eligible.length);
    expect(body).toContain('"title":"renamed"');
  });

  // bench:live's burst: five writers retitle the top five items, and a run computed once for all of them
  it('should re-render only a run of changed items longer than the look-ahead, not the items after it', () => {
    const w = world(1200, [1], [], [0]);
    const sut = new FrontierSerializer();
    const memo = new FrontierMemo();
    const first = computeFrontier({ items: w.items, edges: w.edges, blockerFacts: w.facts, wipCap: 3 }, memo);
    expectStringifiedBytes(sut, first, createRefResolver(w.items, w.facts));
    const top = new Set(first.runnable.slice(0, 6).map((i) => i.item_id));
    const items = w.items.map((i) => (top.has(i.id) ? { ...i, title: `${i.title} retitled` } : i));
    const second = computeFrontier({ items, edges: w.edges, blockerFacts: w.facts, wipCap: 3 }, memo);
    expectStringifiedBytes(sut, second, createRefResolver(items, w.facts));
    expect(second.runnable.slice(0, 6).map((i) => i.item_id)).toEqual([...top]);
    // each changed item once in each list that shows it (conduct_eligible repeats the runnable ones admitted)
    const inConduct = second.conduct_eligible.filter((i) => top.has(i.item_id)).length;
    expect(inConduct).toBeGreaterThan(0);
    expect(sut.rendered).toBe(6 + inConduct);
  });

  // moved items are found by id in one table for every serializer (frontier-serializer.ts, placeOf): two
  // serializers taking turns each find their own previous places
  it('should copy items a write moved far, from their places in its own previous body, serializers taking turns', () => {
    const worlds = [world(1200, [1], [], [0]), world(900, [1, 2], [], [1])];
    const suts = worlds.map(() => new FrontierSerializer());
    const firsts = worlds.map((w, n) => {
      const first = computeFrontier({ items: w.items, edges: w.edges, blockerFacts: w.facts, wipCap: 3 });
      expectStringifiedBytes(suts[n], first, createRefResolver(w.items, w.facts));
      return first;
    });
    worlds.forEach((w, n) => {
      // the top 400 drop to the lowest priority: every item after them moves up 400 places
      const top = new Set(firsts[n].runnable.slice(0, 400).map((i) => i.item_id));
      const items = w.items.map((i) => (top.has(i.id) ? { ...i, priority: 'low' } : i));
      const second = computeFrontier({ items, edges: w.edges, blockerFacts: w.facts, wipCap: 3 });
      expectStringifiedBytes(suts[n], second, createRefResolver(items, w.facts));
      const changed = second.runnable.filter((i) => top.has(i.item_id)).length;
      // the items that did not change are copied, but for the misses before a lookup by id pays (256)
      expect(suts[n].reused).toBeGreaterThan(second.runnable.length - changed - 256);
    });
  });

  // the ETag is a digest of the pieces' digests (etagOf): after a write only the pieces around it are hashed again
  it('should hash again only the pieces a write reached, and give the tag of serializing the whole answer', () => {
    const w = world(3000, [1, 2], [], [0]);
    const sut = new FrontierSerializer();
    const first = computeFrontier({ items: w.items, edges: w.edges, blockerFacts: w.facts, wipCap: 3 });
    expectStringifiedBytes(sut, first, createRefResolver(w.items, w.facts));
    const whole = sut.hashed;
    expect(whole).toBeGreaterThan(300_000);
    for (const id of [5, 1500, 2999]) {
      const items = w.items.map((i) => (i.id === id ? { ...i, title: `renamed ${id} ✓` } : i));
      const next = computeFrontier({ items, edges: w.edges, blockerFacts: w.facts, wipCap: 3 });
      expectStringifiedBytes(sut, next, createRefResolver(items, w.facts));
      // the item's piece (in runnable and again in conduct_eligible) and the few bytes between the lists
      expect(sut.hashed).toBeLessThan(whole / 20);
      w.items = items;
    }
    // an item that leaves moves every later byte: the pieces after it are still copied whole
    const fewer = w.items.filter((i) => i.id !== 700);
    expectStringifiedBytes(
      sut,
      computeFrontier({ items: fewer, edges: w.edges, blockerFacts: w.facts, wipCap: 3 }),
      createRefResolver(fewer, w.facts),
    );
    expect(sut.hashed).toBeLessThan(whole / 20);
  });

  it('should cut pieces after items by their item_id alone, the same in any replica', () => {
    const ids = Array.from({ length: 2000 }, (_, k) => `BN-${k}`);
    const ends = ids.filter(pieceEnd).length;
    // about one in 32
    expect(ends).toBeGreaterThan(2000 / 64);
    expect(ends).toBeLessThan(2000 / 16);
    const result = { runnable: ids.map((item_id) => ({ item_id })), wip_cap: 1 };
    const body = Buffer.from(JSON.stringify(result));
    const cuts = pieceCuts(result);
    expect(cuts).toHaveLength(1 + ends + (pieceEnd(ids[ids.length - 1]) ? 0 : 1));
    // where the list's items begin, then each cut right after an item's closing brace
    expect(body.toString('utf8', 0, cuts[0])).toBe('{"runnable":[');
    for (const cut of cuts.slice(1)) expect(body.toString('utf8', cut - 1, cut)).toBe('}');
    expect(serializeFrontier(result).etag).toBe(etagOf([body.subarray(0, 1000), body.subarray(1000)], cuts));
    expect(serializeFrontier(result).etag).not.toBe(etagOf([body]));
  });

  it('should send what did not change as views of the previous body, and bound how many', () => {
    const w = world(25, [1], [], [0]);
    const bodiesOf = (sut: FrontierSerializer): SerializedFrontier[] => {
      let items = w.items;
      const bodies = [
        sut.serialize(
          computeFrontier({ items, edges: w.edges, blockerFacts: w.facts, wipCap: 3 }),
          createRefResolver(items, w.facts),
        ),
      ];
      for (const id of [5, 9, 13]) {
        items = items.map((i) => (i.id === id ? { ...i, title: `renamed ${id}` } : i));
        const refOf = createRefResolver(items, w.facts);
        bodies.push(sut.serialize(computeFrontier({ items, edges: w.edges, blockerFacts: w.facts, wipCap: 3 }), refOf));
      }
      return bodies;
    };

    const views = bodiesOf(new FrontierSerializer());
    expect(views[0].chunks).toHaveLength(1);
    // one item encoded anew between views of the first body
    expect(views[1].chunks.length).toBeGreaterThan(3);
    expect(views[1].chunks.filter((chunk) => chunk.buffer === views[0].chunks[0].buffer).length).toBeGreaterThan(1);

    const bounded = bodiesOf(new FrontierSerializer(views[1].chunks.length - 1));
    // past the bound the body is copied into one buffer again
    expect(bounded[1].chunks).toHaveLength(1);
    bounded.forEach((body, k) => {
      expect(body.chunks.length).toBeLessThan(views[1].chunks.length);
      expect(bodyBytes(body)).toEqual(bodyBytes(views[k]));
    });
  });

  // compute_frontier hands back the previous object of an unchanged item; the serializer copies it by identity,
  // unless a blocker it names changed its ref (deleted: left out of blocked_by) while the item stayed the same.
  it('should give exact bytes when unchanged items are the previous objects, whatever happened to their blockers', () => {
    // each step: the same world again (every item unchanged) or another one, and blockers whose facts disappear
    // (a deleted item) while the items naming them stay the same objects
    const step = fc.record({
      world: fc.option(worldArb, { freq: 2 }),
      forget: fc.array(fc.integer({ min: 1, max: 27 }), { maxLength: 4 }),
    });
    fc.assert(
      fc.property(worldArb, fc.array(step, { minLength: 1, maxLength: 6 }), (first, steps) => {
        const sut = new FrontierSerializer();
        let known = new Map<string, FrontierItem>();
        let w = first;
        for (const { world, forget } of steps) {
          w = world ?? w;
          const computed = computeFrontier({ items: w.items, edges: w.edges, blockerFacts: w.facts, wipCap: w.wipCap });
          // the previous object wherever every field is equal, as the incremental core does
          const reuse = (item: FrontierItem): FrontierItem => {
            const key = JSON.stringify(item);
            const before = known.get(key);
            return before ?? item;
          };
          const computation = {
            ...computed,
            runnable: computed.runnable.map(reuse),
            blocked: computed.blocked.map(reuse),
            frozen: computed.frozen.map(reuse),
            conduct_eligible: computed.conduct_eligible.map(reuse),
          };
          known = new Map(
            [...computation.runnable, ...computation.blocked, ...computation.frozen].map((i) => [JSON.stringify(i), i]),
          );
          const facts = new Map(w.facts);
          for (const id of forget) facts.delete(id);
          const refOf = (id: number) => facts.get(id)?.ref;
          expectStringifiedBytes(sut, computation, refOf);
        }
      }),
      // a planted copy that ignores a blocker's changed ref fails within 7 runs
      { numRuns: 100 },
    );
  });

  it('should encode an item exactly as JSON.stringify does, escapes and absent refs included', () => {
    fc.assert(
      fc.property(
        fc.record({
          title: fc.string({ unit: 'binary' }),
          words: fc.array(fc.oneof(fc.constantFrom('planned', 'high', 'alpha', 'issue', 'wait'), fc.string()), {
            minLength: 6,
            maxLength: 6,
          }),
          createdAt: fc.oneof(
            fc.constant('2026-01-01T00:00:00Z'),
            fc.constant('2026-01-01T00:00:00.123'),
            fc.string({ unit: 'binary' }),
          ),
          reasons: fc.array(fc.string({ unit: 'binary' }), { maxLength: 3 }),
          blockers: fc.array(fc.integer({ min: 1, max: 6 }), { maxLength: 4 }),
          counts: fc.tuple(
            fc.oneof(fc.nat(), fc.double()),
            fc.oneof(fc.nat(), fc.constant(-0)),
            fc.oneof(fc.nat(), fc.double()),
          ),
        }),
        ({ title, words, createdAt, reasons, blockers, counts }) => {
          const item: FrontierItem = {
            item_id: 9,
            ref: words[5],
            title,
            status: words[0],
            priority: words[1],
            project: words[2],
            workflow_id: words[3],
            workflow_version_id: counts[0],
            adapter: words[4] as FrontierItem['adapter'],
            blocked_by: blockers,
            blocked_reasons: reasons,
            unblocks_count: counts[1],
            downstream_depth: counts[2],
            created_at: createdAt,
            stage_adapter: 'refine',
            lifecycle_rank: 1,
            is_epic: false,
            frozen: false,
            blocked_flag: false,
          };
          const refOf = (id: number) => (id % 3 === 0 ? undefined : id === 4 ? 'B "4"' : `B-${id}`);
          expect(frontierItemJson(item, refOf)).toBe(JSON.stringify(toFrontierItemWire(item, refOf)));
        },
      ),
      // a planted escape left out (control characters written raw) fails within 50 runs
      { numRuns: 200 },
    );
  });
});

// One change per wire field, listed independently of FRONTIER_ITEM_WIRE_FIELDS (the spec's FrontierItem table, in its
// order): every field must reach the JSON and the "unchanged item" comparison, or a serializer that copies the bytes
// of an item it believes unchanged would send a stale field.
const VARIATIONS: Record<keyof FrontierItemWire, (item: FrontierItem) => Partial<FrontierItem>> = {
  item_id: () => ({ ref: 'A-99' }),
  title: (item) => ({ title: `${item.title} (renamed)` }),
  status: () => ({ status: 'implementing' }),
  priority: () => ({ priority: 'low' }),
  project: () => ({ project: 'beta' }),
  workflow_id: () => ({ workflow_id: 'epic' }),
  workflow_version_id: (item) => ({ workflow_version_id: item.workflow_version_id + 1 }),
  adapter: () => ({ adapter: 'wait' }),
  blocked_by: (item) => ({ blocked_by: [...item.blocked_by, 3] }),
  blocked_reasons: (item) => ({ blocked_reasons: [...item.blocked_reasons, 'held "here"'] }),
  unblocks_count: (item) => ({ unblocks_count: item.unblocks_count + 1 }),
  downstream_depth: (item) => ({ downstream_depth: item.downstream_depth + 2 }),
  created_at: () => ({ created_at: '2026-02-03T04:05:06.789' }),
};

function baseItem(id: number): FrontierItem {
  return {
    item_id: id,
    ref: `A-${id}`,
    title: `item ${id}`,
    status: 'planned',
    priority: 'high',
    project: 'alpha',
    workflow_id: 'issue',
    workflow_version_id: 1,
    adapter: 'conduct',
    blocked_by: [1],
    blocked_reasons: ['A-1 is in planned; needs done'],
    unblocks_count: 2,
    downstream_depth: 1,
    created_at: '2026-01-01T00:00:00.000',
    stage_adapter: 'conduct',
    lifecycle_rank: 1,
    is_epic: false,
    frozen: false,
    blocked_flag: false,
  };
}

function computationOf(runnable: FrontierItem[]): FrontierComputation {
  return {
    runnable,
    blocked: [],
    frozen: [],
    wip_cap: 30,
    wip_active: 0,
    conduct_eligible: [],
    wip_remaining: 30,
    wip_suppressed: [],
    cycles: [],
  };
}

describe('the wire-field table', () => {
  const refOf = (id: number) => `A-${id}`;

  it('should list every field of the wire shape, in wire order', () => {
    expect(FRONTIER_ITEM_WIRE_FIELDS.map((field) => field.key)).toEqual(Object.keys(VARIATIONS));
    expect(Object.keys(toFrontierItemWire(baseItem(5), refOf))).toEqual(Object.keys(VARIATIONS));
  });

  describe.each(Object.entries(VARIATIONS))('a change of %s', (key, vary) => {
    const before = baseItem(5);
    const after: FrontierItem = { ...before, ...vary(before) };

    it('should reach the JSON, written exactly as JSON.stringify writes the mapped item', () => {
      const was = JSON.parse(frontierItemJson(before, refOf)) as Record<string, unknown>;
      const now = JSON.parse(frontierItemJson(after, refOf)) as Record<string, unknown>;
      expect(now[key]).not.toEqual(was[key]);
      expect(frontierItemJson(after, refOf)).toBe(JSON.stringify(toFrontierItemWire(after, refOf)));
    });

    it('should make the item another one for the comparison, and an equal copy the same', () => {
      expect(sameWireFields(before, after)).toBe(false);
      expect(sameWireFields(after, before)).toBe(false);
      expect(sameWireFields(before, { ...before, blocked_by: [...before.blocked_by] })).toBe(true);
      // in-process fields are not on the wire: the item is the same there
      expect(sameWireFields(before, { ...before, lifecycle_rank: 7, is_epic: true, blocked_flag: true })).toBe(true);
    });

    it('should be encoded again by the serializer, never copied from the last body', () => {
      const sut = new FrontierSerializer();
      const others = [baseItem(6), baseItem(7)];
      sut.serialize(computationOf([others[0], before, others[1]]), refOf);
      expectStringifiedBytes(sut, computationOf([others[0], after, others[1]]), refOf);
      expect(sut.rendered).toBe(1);
      expect(sut.reused).toBe(2);
    });
  });

  // an item JSON.stringify writes differently (a count that is not a finite number) takes the generic path; its
  // blockers are still watched, so that a deleted blocker is left out of its blocked_by on the next answer
  it('should watch the blockers of an item written by the generic path', () => {
    const odd = { ...baseItem(5), unblocks_count: NaN, blocked_by: [1, 2] };
    const refs = new Map([
      [1, 'A-1'],
      [2, 'A-2'],
    ]);
    const sut = new FrontierSerializer();
    expectStringifiedBytes(sut, computationOf([odd]), (id) => refs.get(id));
    refs.delete(2);
    expectStringifiedBytes(sut, computationOf([odd]), (id) => refs.get(id));
  });
});
