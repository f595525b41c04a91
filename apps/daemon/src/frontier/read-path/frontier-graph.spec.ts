import { computeFrontier, FrontierMemo } from '@app/core';

import {
  buildProjectGraph,
  GraphReuse,
  GraphRows,
  growProjectGraph,
  joinProjectGraph,
  patchProjectGraph,
  ProjectGraph,
  shrinkProjectGraph,
} from './frontier-graph';
import { BlockerRow, CandidateRow, EdgeRow } from './frontier.repository';
import { parseWorkflowStages } from './workflow-stages';

const workflows = new Map([[1, parseWorkflowStages(1, 'issue', { stages: [{ id: 'planned' }, { id: 'done' }] })]]);

function candidate(id: number, title = `Item ${id}`): CandidateRow {
  return {
    id,
    seq: id,
    title,
    status: 'planned',
    priority: 'medium',
    workflow_id: 'issue',
    workflow_version_id: 1,
    frozen: 0,
    blocked: 0,
    blocked_reason: null,
    created_at: '2026-01-01T00:00:00.000',
    merged_at: null,
  };
}

function outside(id: number): BlockerRow {
  return {
    id,
    prefix: 'BN',
    seq: id,
    title: `Done ${id}`,
    status: 'done',
    merged_at: null,
    project: 'p',
    workflow_id: 'issue',
    workflow_version_id: 1,
  };
}

function rowsOf(candidates: CandidateRow[], edges: EdgeRow[], blockers: BlockerRow[], runs: GraphRows['runs'] = []) {
  return {
    project: { id: 'p', name: 'p', public_item_prefix: 'BN', policy: {} },
    candidates,
    edges,
    outside: blockers,
    workflows,
    runs,
    environments: [],
  };
}

describe(buildProjectGraph.name, () => {
  const candidates = [1, 2, 3, 4, 5].map((id) => candidate(id));
  const edges: EdgeRow[] = [
    { id: 1, blocker: 1, dependent: 2, satisfaction: 'status:done', g: 'activation', r: '' },
    { id: 2, blocker: 9, dependent: 3, satisfaction: 'status:done', g: 'activation', r: '' },
    { id: 3, blocker: 2, dependent: 4, satisfaction: 'status:done', g: 'review', r: '' },
  ];
  const blockers = [outside(9)];

  it('should keep what it derived from rows a refresh left untouched, and rebuild the rest', () => {
    const reuse = new GraphReuse();
    const first = buildProjectGraph(rowsOf(candidates, edges, blockers), reuse);
    const renamed = candidate(3, 'renamed');
    const next = [candidates[0], candidates[1], renamed, candidates[3], candidate(6)];
    const second = buildProjectGraph(rowsOf(next, edges.slice(1), blockers), reuse);

    expect(second.items[0]).toBe(first.items[0]);
    expect(second.items[1]).toBe(first.items[1]);
    expect(second.items[2]).not.toBe(first.items[2]);
    expect(second.items[2].title).toBe('renamed');
    expect(second.items[3]).toBe(first.items[3]);
    expect(second.items[4].id).toBe(6);
    expect(second.facts.get(9)).toBe(first.facts.get(9));
    expect(second.facts.get(3)?.title).toBe('renamed');
    // the edge rows at the activation gate are the core's edges themselves
    expect(second.activation).toEqual([edges[1]]);
    expect(second.activation[0]).toBe(first.activation[1]);
    expect(first.activation).toEqual([edges[0], edges[1]]);
  });

  it('should rebuild facts, and only facts, when the delivery rows change', () => {
    const reuse = new GraphReuse();
    const first = buildProjectGraph(rowsOf(candidates, edges, blockers), reuse);
    const run = { item_id: 9, environment: 'prod', status: 'succeeded' };
    const second = buildProjectGraph(rowsOf(candidates, edges, blockers, [run]), reuse);

    expect(second.items).toEqual(first.items);
    second.items.forEach((item, k) => expect(item).toBe(first.items[k]));
    expect(second.facts.get(1)).not.toBe(first.facts.get(1));
    expect(second.facts.get(9)?.deployedEnvironments.has('prod')).toBe(true);
  });

  it('should build afresh without a reuse, and equal what a reuse gives', () => {
    const reuse = new GraphReuse();
    buildProjectGraph(rowsOf(candidates, edges, blockers), reuse);
    const reused = buildProjectGraph(rowsOf(candidates, edges, blockers), reuse);
    const fresh = buildProjectGraph(rowsOf(candidates, edges, blockers));

    expect(fresh.items).toEqual(reused.items);
    expect(fresh.items[0]).not.toBe(reused.items[0]);
    expect([...fresh.facts]).toEqual([...reused.facts]);
  });

  it('should keep a patched item for the next build of the same rows', () => {
    const reuse = new GraphReuse();
    const first = buildProjectGraph(rowsOf(candidates, edges, blockers), reuse);
    const renamed = candidate(2, 'renamed');
    const patched = patchProjectGraph(first, [renamed], workflows, reuse);
    const next = candidates.map((row) => (row.id === 2 ? renamed : row));
    const rebuilt = buildProjectGraph(rowsOf(next, edges, blockers), reuse);

    expect(patched.items[1].title).toBe('renamed');
    expect(rebuilt.items[1]).toBe(patched.items[1]);
    expect(rebuilt.items[0]).toBe(first.items[0]);
    expect(rebuilt.facts.get(2)).toBe(patched.facts.get(2));
  });
});

describe(growProjectGraph.name, () => {
  const candidates = [1, 2, 3].map((id) => candidate(id));
  const edges: EdgeRow[] = [
    { id: 1, blocker: 1, dependent: 2, satisfaction: 'status:done', g: 'activation', r: '' },
    { id: 2, blocker: 9, dependent: 3, satisfaction: 'status:done', g: 'activation', r: '' },
  ];
  const blockers = [outside(9)];
  const added = [candidate(7), candidate(8)];
  const newEdges: EdgeRow[] = [
    { id: 5, blocker: 2, dependent: 7, satisfaction: 'status:done', g: 'activation', r: '' },
    { id: 6, blocker: 9, dependent: 8, satisfaction: 'status:done', g: 'review', r: '' },
    { id: 7, blocker: 8, dependent: 1, satisfaction: 'status:done', g: 'activation', r: '' },
  ];
  const input = (graph: ReturnType<typeof buildProjectGraph>) => ({
    items: graph.items,
    edges: graph.activation,
    blockerFacts: graph.facts,
    wipCap: 3,
  });

  it('should equal a build over the same rows, sharing what was there', () => {
    const reuse = new GraphReuse();
    const first = buildProjectGraph(rowsOf(candidates, edges, blockers), reuse);
    const grown = growProjectGraph(first, added, newEdges, workflows, reuse);
    const built = buildProjectGraph(rowsOf([...candidates, ...added], [...edges, ...newEdges], blockers));

    expect(grown.items).toEqual(built.items);
    grown.items.slice(0, 3).forEach((item, k) => expect(item).toBe(first.items[k]));
    expect(grown.edges).toEqual(built.edges);
    expect(grown.activation).toEqual(built.activation);
    expect([...grown.facts].sort((a, b) => a[0] - b[0])).toEqual([...built.facts].sort((a, b) => a[0] - b[0]));
    // the same function, which knows the new items too: no ref the serializer wrote changed
    expect(grown.refOf).toBe(first.refOf);
    expect(grown.refOf(8)).toBe('BN-8');
    expect(grown.refOf(9)).toBe('BN-9');
    expect(computeFrontier(input(grown))).toEqual(computeFrontier(input(built)));
  });

  it('should give, with the memo of the graph before, the answer a fresh run gives', () => {
    const memo = new FrontierMemo();
    const first = buildProjectGraph(rowsOf(candidates, edges, blockers), new GraphReuse());
    computeFrontier(input(first), memo);
    const grown = growProjectGraph(first, added, newEdges, workflows);

    expect(computeFrontier(input(grown), memo)).toEqual(computeFrontier(input(grown)));
  });

  it('should leave the reuse describing the grown graph, and patches finding the new items', () => {
    const reuse = new GraphReuse();
    const first = buildProjectGraph(rowsOf(candidates, edges, blockers), reuse);
    const two = candidate(2, 'renamed');
    const eight = candidate(8, 'renamed too');
    const patchedFirst = patchProjectGraph(first, [two], workflows, reuse);
    const grown = growProjectGraph(patchedFirst, added, newEdges, workflows, reuse);
    const renamed = patchProjectGraph(grown, [eight], workflows, reuse);
    const rows = [candidates[0], two, candidates[2], added[0], eight];
    const rebuilt = buildProjectGraph(rowsOf(rows, [...edges, ...newEdges], blockers), reuse);

    expect(renamed.items[4].title).toBe('renamed too');
    expect(rebuilt.items[3]).toBe(grown.items[3]);
    expect(rebuilt.items[1]).toBe(patchedFirst.items[1]);
    expect(rebuilt.items[4]).toBe(renamed.items[4]);
  });

  it('should refuse a candidate that does not come after the others', () => {
    const first = buildProjectGraph(rowsOf(candidates, edges, blockers));

    expect(() => growProjectGraph(first, [candidate(2)], [], workflows)).toThrow(/does not come after/);
  });
});

describe(shrinkProjectGraph.name, () => {
  // 1 blocks 2 and 4, 9 (terminal) blocks 3 alone, 8 (terminal) blocks 3 and 5, 2 blocks 5 on the review gate
  const candidates = [1, 2, 3, 4, 5].map((id) => candidate(id));
  const edges: EdgeRow[] = [
    { id: 1, blocker: 1, dependent: 2, satisfaction: 'status:done', g: 'activation', r: '' },
    { id: 2, blocker: 9, dependent: 3, satisfaction: 'status:done', g: 'activation', r: '' },
    { id: 3, blocker: 1, dependent: 4, satisfaction: 'status:done', g: 'activation', r: '' },
    { id: 4, blocker: 8, dependent: 3, satisfaction: 'status:done', g: 'activation', r: '' },
    { id: 5, blocker: 8, dependent: 5, satisfaction: 'status:done', g: 'activation', r: '' },
    { id: 6, blocker: 2, dependent: 5, satisfaction: 'status:done', g: 'review', r: '' },
  ];
  const blockers = [outside(8), outside(9)];
  const input = (graph: ProjectGraph) => ({
    items: graph.items,
    edges: graph.activation,
    blockerFacts: graph.facts,
    wipCap: 3,
  });
  const done = (id: number): BlockerRow => ({ ...outside(id), title: `Item ${id}` });
  // the rows a load reads after `departed` went to done: the others, the edges of those left, and the terminal
  // blockers those edges name
  const rowsAfter = (departed: readonly number[], from = candidates, removed: readonly number[] = []) => {
    const left = from.filter((c) => !departed.includes(c.id));
    const kept = edges.filter((e) => !departed.includes(e.dependent) && !removed.includes(e.id!));
    const named = new Set(kept.map((e) => e.blocker));
    const terminal = [...blockers, ...departed.map(done)].filter((b) => named.has(b.id)).sort((a, b) => a.id - b.id);
    return rowsOf(left, kept, terminal);
  };
  const same = (graph: ProjectGraph, built: ProjectGraph) => {
    expect(graph.items).toEqual(built.items);
    expect(graph.edges).toEqual(built.edges);
    expect(graph.activation).toEqual(built.activation);
    expect([...graph.facts].sort((a, b) => a[0] - b[0])).toEqual([...built.facts].sort((a, b) => a[0] - b[0]));
    expect(graph.facts.size).toBe(built.facts.size);
    expect([...graph.blockerProjects].sort((a, b) => a[0] - b[0])).toEqual(
      [...built.blockerProjects].sort((a, b) => a[0] - b[0]),
    );
    for (const id of [1, 2, 3, 4, 5, 8, 9]) expect(graph.facts.has(id)).toBe(built.facts.has(id));
    expect(computeFrontier(input(graph))).toEqual(computeFrontier(input(built)));
  };

  it.each([
    ['an item that blocks others', [1]],
    ['an item naming a terminal blocker alone, and one it shares', [3]],
    ['an item blocking nothing', [4]],
    ['an item and the one it blocks', [1, 2]],
    ['every item', [5, 4, 3, 2, 1]],
  ])('should equal a build over the same rows for %s leaving', (_, departed) => {
    const reuse = new GraphReuse();
    const first = buildProjectGraph(rowsOf(candidates, edges, blockers), reuse);
    const { graph, dropped } = shrinkProjectGraph(first, departed.map(done), reuse);
    const built = buildProjectGraph(rowsAfter(departed));

    same(graph, built);
    expect(dropped.sort()).toEqual(
      [...departed, 8, 9].filter((id) => !built.blockerProjects.has(id) && first.facts.has(id)).sort(),
    );
    // shrunk, not built: the same objects for the rows that stayed, and the same refOf
    graph.items.forEach((item) => expect(item).toBe(first.items[item.id - 1]));
    expect(graph.refOf).toBe(first.refOf);
    // a ref is the item's for good: a version before asked about a departed item still answers it
    for (const id of departed) expect(first.refOf(id)).toBe(`BN-${id}`);
  });

  it.each([
    ['the only edge naming a terminal blocker', [], [2]],
    ['one of two edges naming a terminal blocker', [], [4]],
    ['an edge between candidates, and one at another gate', [], [1, 6]],
    ['both edges naming a terminal blocker, with an item leaving', [1], [4, 5]],
    ['an edge naming an item leaving', [1], [3]],
  ])('should equal a build over the same rows for %s removed', (_, departed, removed) => {
    const reuse = new GraphReuse();
    const first = buildProjectGraph(rowsOf(candidates, edges, blockers), reuse);
    const { graph, dropped } = shrinkProjectGraph(first, departed.map(done), reuse, new Set(removed));
    const built = buildProjectGraph(rowsAfter(departed, candidates, removed));

    same(graph, built);
    expect(dropped.sort()).toEqual(
      [...departed, 8, 9].filter((id) => !built.blockerProjects.has(id) && first.facts.has(id)).sort(),
    );
    expect(graph.refOf).toBe(first.refOf);
    // nothing left the candidates: the same items array, and the positions a patch maps
    if (departed.length === 0) expect(graph.items).toBe(first.items);
  });

  it('should take edges out of edges a load read in no id order, the rest in their order', () => {
    const unordered = [edges[3], edges[0], edges[5], edges[2], edges[1], edges[4]];
    const first = buildProjectGraph(rowsOf(candidates, unordered, blockers));
    // 1 → 2 between candidates, 8 → 3 (8 still blocks 5), and an id the graph never had
    const { graph, dropped } = shrinkProjectGraph(first, [], undefined, new Set([1, 4, 99]));
    const built = buildProjectGraph(
      rowsOf(
        candidates,
        unordered.filter((e) => e.id !== 1 && e.id !== 4),
        blockers,
      ),
    );

    same(graph, built);
    expect(graph.edges.map((e) => e.id)).toEqual([6, 3, 2, 5]);
    expect(dropped).toEqual([]);
    // the last edge naming 9 removed: 9 is no outside blocker any more
    const again = shrinkProjectGraph(graph, [], undefined, new Set([2]));
    expect(again.dropped).toEqual([9]);
    expect(again.graph.facts.has(9)).toBe(false);
  });

  it('should give, after edges removed and with the memo, the answer a fresh run gives', () => {
    const memo = new FrontierMemo();
    const first = buildProjectGraph(rowsOf(candidates, edges, blockers), new GraphReuse());
    computeFrontier(input(first), memo);
    const { graph } = shrinkProjectGraph(first, [], undefined, new Set([1, 2]));
    const four = patchProjectGraph(graph, [candidate(4, 'renamed')], workflows);
    computeFrontier(input(graph), memo);
    const again = shrinkProjectGraph(four, [done(3)], undefined, new Set([5])).graph;
    const rows = rowsAfter(
      [3],
      [1, 2, 3, 4, 5].map((id) => candidate(id, id === 4 ? 'renamed' : undefined)),
      [1, 2, 5],
    );

    expect(computeFrontier(input(again), memo)).toEqual(computeFrontier(input(buildProjectGraph(rows))));
  });

  it('should keep a departed item that still blocks others as a terminal blocker', () => {
    const first = buildProjectGraph(rowsOf(candidates, edges, blockers));
    const { graph } = shrinkProjectGraph(first, [done(1)]);

    expect(graph.facts.get(1)).toMatchObject({ status: 'done', ref: 'BN-1', title: 'Item 1' });
    expect(graph.blockerProjects.get(1)).toBe('p');
    expect(graph.items.map((i) => i.id)).toEqual([2, 3, 4, 5]);
    expect(graph.edges.map((e) => e.id)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('should give, with the memo of the graph before, the answer a fresh run gives', () => {
    const memo = new FrontierMemo();
    const first = buildProjectGraph(rowsOf(candidates, edges, blockers), new GraphReuse());
    computeFrontier(input(first), memo);
    const { graph } = shrinkProjectGraph(first, [done(1)]);
    const again = shrinkProjectGraph(graph, [done(3)]).graph;
    computeFrontier(input(graph), memo);

    expect(computeFrontier(input(again), memo)).toEqual(computeFrontier(input(buildProjectGraph(rowsAfter([1, 3])))));
  });

  it('should carry patches and growth over, and leave the reuse and patches describing the shrunk graph', () => {
    const reuse = new GraphReuse();
    const first = buildProjectGraph(rowsOf(candidates, edges, blockers), reuse);
    const four = candidate(4, 'renamed');
    const patched = patchProjectGraph(first, [four], workflows, reuse);
    const seven = candidate(7);
    const grown = growProjectGraph(patched, [seven], [], workflows, reuse);
    const { graph } = shrinkProjectGraph(grown, [done(3)], reuse);
    const five = candidate(5, 'renamed too');
    const renamed = patchProjectGraph(graph, [five], workflows, reuse);
    const rows = [candidates[0], candidates[1], four, five, seven];
    const after = rowsAfter([3], rows);
    const rebuilt = buildProjectGraph(after, reuse);

    same(renamed, buildProjectGraph(after));
    expect(renamed.items.map((i) => i.title)).toEqual(['Item 1', 'Item 2', 'renamed', 'renamed too', 'Item 7']);
    expect(rebuilt.items[2]).toBe(patched.items[3]);
    expect(rebuilt.items[3]).toBe(renamed.items[3]);
    expect(rebuilt.items[4]).toBe(grown.items[5]);
  });

  it.each([
    ['dense ids (facts by array)', 1],
    ['sparse ids (facts by Map)', 10_000],
  ])('should fold many departures into a new facts map, equal to a build, for %s', (_, step) => {
    const many = Array.from({ length: 4200 }, (_, k) => candidate((k + 1) * step));
    const chain: EdgeRow[] = [
      { id: 1, blocker: many[0].id, dependent: many[4150].id, satisfaction: 'status:done', g: 'activation', r: '' },
    ];
    const first = buildProjectGraph(rowsOf(many, chain, []));
    const leaving = many.slice(0, 4100);
    const { graph } = shrinkProjectGraph(
      first,
      leaving.map((c) => ({ ...done(c.id), seq: c.seq, title: c.title })),
    );
    const built = buildProjectGraph(
      rowsOf(many.slice(4100), chain, [{ ...done(many[0].id), seq: many[0].seq, title: many[0].title }]),
    );

    expect(graph.facts.size).toBe(101);
    expect([...graph.facts].sort((a, b) => a[0] - b[0])).toEqual([...built.facts].sort((a, b) => a[0] - b[0]));
    expect(graph.items).toEqual(built.items);
    for (const c of leaving.slice(1)) expect(graph.facts.has(c.id)).toBe(false);
    expect(graph.facts.get(many[0].id)?.status).toBe('done');
    expect(graph.refOf(many[5].id)).toBe(`BN-${many[5].id}`);
  });

  it('should refuse an item that is not a candidate leaving for a terminal status', () => {
    const first = buildProjectGraph(rowsOf(candidates, edges, blockers));

    expect(() => shrinkProjectGraph(first, [done(9)])).toThrow(/not a candidate/);
    expect(() => shrinkProjectGraph(first, [{ ...done(1), status: 'planned' }])).toThrow(/not a candidate/);
  });
});

describe(joinProjectGraph.name, () => {
  // 1 blocks 2 and 4, 9 (terminal) blocks 3, 2 blocks 5 on the review gate
  const all = [1, 2, 3, 4, 5].map((id) => candidate(id));
  const edges: EdgeRow[] = [
    { id: 1, blocker: 1, dependent: 2, satisfaction: 'status:done', g: 'activation', r: '' },
    { id: 2, blocker: 9, dependent: 3, satisfaction: 'status:done', g: 'activation', r: '' },
    { id: 3, blocker: 1, dependent: 4, satisfaction: 'status:done', g: 'activation', r: '' },
    { id: 4, blocker: 4, dependent: 2, satisfaction: 'status:done', g: 'activation', r: '' },
    { id: 5, blocker: 2, dependent: 5, satisfaction: 'status:done', g: 'review', r: '' },
  ];
  const done = (id: number): BlockerRow => ({ ...outside(id), title: `Item ${id}` });
  const input = (graph: ProjectGraph) => ({
    items: graph.items,
    edges: graph.activation,
    blockerFacts: graph.facts,
    wipCap: 3,
  });
  // the rows a load reads while `away` are done
  const rowsWithout = (away: readonly number[], from = all) => {
    const kept = edges.filter((e) => !away.includes(e.dependent));
    const named = new Set(kept.map((e) => e.blocker));
    const terminal = [outside(9), ...away.map(done)].filter((b) => named.has(b.id)).sort((a, b) => a.id - b.id);
    return rowsOf(
      from.filter((c) => !away.includes(c.id)),
      kept,
      terminal,
    );
  };
  const sorted = (facts: ReadonlyMap<number, unknown>) => [...facts].sort((a, b) => a[0] - b[0]);

  it.each([
    ['an outside blocker (it blocks others) with its own edge', [1], [1]],
    ['an item no edge named, with its edges', [2], [2]],
    ['two items, one blocking the other', [1, 2], [1, 2]],
    ['one of two away', [1, 2], [2]],
  ])('should equal a build over the same rows for %s coming back', (_, away, back) => {
    const reuse = new GraphReuse();
    const before = buildProjectGraph(rowsWithout(away), reuse);
    const rows = all.filter((c) => back.includes(c.id));
    const own = edges.filter((e) => back.includes(e.dependent));
    const joined = joinProjectGraph(before, rows, own, workflows, reuse);
    const built = buildProjectGraph(rowsWithout(away.filter((id) => !back.includes(id))));

    expect(joined.items).toEqual(built.items);
    expect(joined.edges).toEqual(built.edges);
    expect(joined.activation).toEqual(built.activation);
    expect(sorted(joined.facts)).toEqual(sorted(built.facts));
    expect(sorted(joined.blockerProjects)).toEqual(sorted(built.blockerProjects));
    expect(computeFrontier(input(joined))).toEqual(computeFrontier(input(built)));
    expect(joined.refOf).toBe(before.refOf);
    before.items.forEach((item) => expect(joined.items).toContain(item));
  });

  it('should give, after a shrink and with the memo, the answer a fresh run gives, and keep the reuse right', () => {
    const memo = new FrontierMemo();
    const reuse = new GraphReuse();
    const first = buildProjectGraph(rowsOf(all, edges, [outside(9)]), reuse);
    computeFrontier(input(first), memo);
    const { graph: shrunk } = shrinkProjectGraph(first, [done(1), done(2)], reuse);
    computeFrontier(input(shrunk), memo);
    const back = joinProjectGraph(
      shrunk,
      [all[1]],
      edges.filter((e) => e.dependent === 2),
      workflows,
      reuse,
    );
    const three = candidate(3, 'renamed');
    const renamed = patchProjectGraph(back, [three], workflows, reuse);
    const rows = rowsWithout([1], [all[0], all[1], three, all[3], all[4]]);
    const rebuilt = buildProjectGraph(rows, reuse);

    expect(computeFrontier(input(back), memo)).toEqual(computeFrontier(input(buildProjectGraph(rowsWithout([1])))));
    expect(renamed.items.map((i) => i.title)).toEqual(['Item 2', 'renamed', 'Item 4', 'Item 5']);
    expect(sorted(renamed.facts)).toEqual(sorted(buildProjectGraph(rows).facts));
    expect(rebuilt.items[0]).toBe(back.items[0]);
    expect(rebuilt.items[1]).toBe(renamed.items[1]);
    expect(rebuilt.items[2]).toBe(first.items[3]);
  });

  it('should refuse a candidate it has already', () => {
    const first = buildProjectGraph(rowsOf(all, edges, [outside(9)]));

    expect(() => joinProjectGraph(first, [candidate(2)], [], workflows)).toThrow(/already/);
  });
});
