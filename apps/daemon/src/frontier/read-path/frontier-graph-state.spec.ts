import { addEdges, applyDelta, createGraphState } from './frontier-graph-state';
import { ChangedItemRow, EdgeRow } from './frontier.repository';

function changed(id: number, status = 'planned', extra: Partial<ChangedItemRow> = {}): ChangedItemRow {
  return {
    id,
    prefix: 'BN',
    seq: id,
    title: `Item ${id}`,
    status,
    priority: 'medium',
    project: 'p',
    workflow_id: 'issue',
    workflow_version_id: 1,
    frozen: 0,
    blocked: 0,
    blocked_reason: null,
    created_at: '2026-01-01T00:00:00.000',
    merged_at: null,
    ...extra,
  };
}

function edge(id: number, blocker: number, dependent: number): EdgeRow {
  return { id, blocker, dependent, satisfaction: 'status:done', g: 'activation', r: '' };
}

function stateOf() {
  const candidates = [1, 2, 3].map((id) => changed(id));
  return createGraphState({ id: 'p', public_item_prefix: 'BN', policy: {} } as never, ['activation'], '1', {
    candidates,
    edges: [edge(1, 1, 2)],
    outside: [],
  });
}

describe(applyDelta.name, () => {
  it('should call a delta of new candidates and new edges composable, naming the edges', () => {
    const state = stateOf();
    const outcome = applyDelta(state, { items: [changed(4)], edges: [edge(2, 1, 4)], tombstones: [] });

    expect(outcome).toMatchObject({ changed: true, shape: true, composable: true, newCandidates: [4] });
    expect(outcome.addedEdges.map((e) => e.id)).toEqual([2]);
  });

  it('should call every kind it can reshape, in one delta, composable, naming each', () => {
    const state = stateOf();
    const outcome = applyDelta(state, {
      items: [changed(3, 'planned', { title: 'x' }), changed(4), changed(2, 'done')],
      edges: [edge(2, 2, 4)],
      tombstones: [{ table_name: 'item_dependencies', row_id: '1' }],
    });

    expect(outcome).toMatchObject({
      changed: true,
      shape: true,
      composable: true,
      updated: [3],
      newCandidates: [4],
      departed: [2],
      removedEdges: [1],
    });
    expect(outcome.addedEdges.map((e) => e.id)).toEqual([2]);
    expect([...state.edges.keys()]).toEqual([2]);
  });

  it('should call an edge deleted alone composable, naming it', () => {
    const state = stateOf();
    const outcome = applyDelta(state, {
      items: [],
      edges: [],
      tombstones: [{ table_name: 'item_dependencies', row_id: '1' }],
    });

    expect(outcome).toMatchObject({ changed: true, shape: true, composable: true, removedEdges: [1] });
    expect(state.edges.size).toBe(0);
  });

  it.each([
    ['an edge rewritten', { items: [], edges: [{ ...edge(1, 1, 2), satisfaction: 'fact:merged' }], tombstones: [] }],
    ['an item deleted', { items: [], edges: [], tombstones: [{ table_name: 'items', row_id: '3' }] }],
    [
      'a candidate moved to another project',
      { items: [changed(2, 'planned', { project: 'q' })], edges: [], tombstones: [] },
    ],
  ])('should not call %s composable', (_name, delta) => {
    const outcome = applyDelta(stateOf(), delta as never);

    expect(outcome.changed).toBe(true);
    expect(outcome.composable).toBe(false);
  });
});

describe('applyDelta on candidates leaving', () => {
  it('should name candidates leaving for a terminal status, their edges gone, each an outside row', () => {
    const state = stateOf();
    const outcome = applyDelta(state, {
      items: [changed(2, 'done'), changed(1, 'cancelled')],
      edges: [edge(1, 1, 2)],
      tombstones: [],
    });

    expect(outcome).toMatchObject({ changed: true, composable: true, departed: [2, 1], removedEdges: [] });
    expect([...state.edges.keys()]).toEqual([]);
    expect(state.outside.get(2)?.status).toBe('done');
  });

  it('should not call a terminal blocker changed composable', () => {
    const state = stateOf();
    applyDelta(state, { items: [changed(1, 'done')], edges: [], tombstones: [] });

    expect(applyDelta(state, { items: [changed(1, 'cancelled')], edges: [], tombstones: [] }).composable).toBe(false);
  });

  it('should call an outside blocker back from a terminal status composable, a new candidate', () => {
    const state = stateOf();
    applyDelta(state, { items: [changed(1, 'done')], edges: [], tombstones: [] });
    const outcome = applyDelta(state, { items: [changed(1)], edges: [], tombstones: [] });

    expect(outcome).toMatchObject({ changed: true, composable: true, newCandidates: [1] });
    expect(state.outside.has(1)).toBe(false);
  });
});

describe(addEdges.name, () => {
  it('should return only the edges new to the state', () => {
    const state = stateOf();

    expect(addEdges(state, [edge(1, 1, 2), edge(3, 2, 3), edge(4, 2, 99)]).map((e) => e.id)).toEqual([3]);
  });
});
