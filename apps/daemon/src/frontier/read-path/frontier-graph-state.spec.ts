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
  it('should call a delta of new candidates and new edges additive, naming the edges', () => {
    const state = stateOf();
    const outcome = applyDelta(state, { items: [changed(4)], edges: [edge(2, 1, 4)], tombstones: [] });

    expect(outcome).toMatchObject({ changed: true, shape: true, additive: true, newCandidates: [4] });
    expect(outcome.addedEdges.map((e) => e.id)).toEqual([2]);
  });

  it.each([
    ['a candidate to a terminal status', { items: [changed(2, 'done')], edges: [], tombstones: [] }],
    ['a candidate updated in place', { items: [changed(2, 'planned', { title: 'x' })], edges: [], tombstones: [] }],
    ['an edge rewritten', { items: [], edges: [{ ...edge(1, 1, 2), satisfaction: 'fact:merged' }], tombstones: [] }],
    ['an edge deleted', { items: [], edges: [], tombstones: [{ table_name: 'item_dependencies', row_id: '1' }] }],
  ])('should not call %s additive', (_name, delta) => {
    const outcome = applyDelta(stateOf(), delta as never);

    expect(outcome.changed).toBe(true);
    expect(outcome.additive).toBe(false);
  });
});

describe('applyDelta on candidates leaving', () => {
  it('should call candidates leaving for a terminal status subtractive, naming them, their edges gone', () => {
    const state = stateOf();
    const outcome = applyDelta(state, {
      items: [changed(2, 'done'), changed(1, 'cancelled')],
      edges: [edge(1, 1, 2)],
      tombstones: [],
    });

    expect(outcome).toMatchObject({ changed: true, subtractive: true, departed: [2, 1] });
    expect([...state.edges.keys()]).toEqual([]);
    expect(state.outside.get(2)?.status).toBe('done');
  });

  it.each([
    ['a candidate updated besides', [changed(2, 'done'), changed(3, 'planned', { title: 'x' })], []],
    ['a new candidate besides', [changed(2, 'done'), changed(4)], []],
    ['a new edge besides', [changed(2, 'done')], [edge(2, 2, 3)]],
    ['a candidate moved to another project', [changed(2, 'planned', { project: 'q' })], []],
  ])('should not call %s subtractive', (_name, items, edges) => {
    const outcome = applyDelta(stateOf(), { items, edges, tombstones: [] });

    expect(outcome.changed).toBe(true);
    expect(outcome.subtractive).toBe(false);
  });

  it('should not call an item back from a terminal status, or a terminal blocker changed, subtractive', () => {
    const state = stateOf();
    applyDelta(state, { items: [changed(1, 'done')], edges: [], tombstones: [] });

    expect(applyDelta(state, { items: [changed(1, 'cancelled')], edges: [], tombstones: [] }).subtractive).toBe(false);
    expect(applyDelta(state, { items: [changed(1)], edges: [], tombstones: [] }).subtractive).toBe(false);
  });

  it('should call an outside blocker back from a terminal status joining, not additive', () => {
    const state = stateOf();
    applyDelta(state, { items: [changed(1, 'done')], edges: [], tombstones: [] });
    const outcome = applyDelta(state, { items: [changed(1)], edges: [], tombstones: [] });

    expect(outcome).toMatchObject({ changed: true, additive: false, joining: true, newCandidates: [1] });
    expect(state.outside.has(1)).toBe(false);
  });

  it('should not call a deleted item subtractive', () => {
    const outcome = applyDelta(stateOf(), { items: [], edges: [], tombstones: [{ table_name: 'items', row_id: '3' }] });

    expect(outcome.subtractive).toBe(false);
  });
});

describe(addEdges.name, () => {
  it('should return only the edges new to the state', () => {
    const state = stateOf();

    expect(addEdges(state, [edge(1, 1, 2), edge(3, 2, 3), edge(4, 2, 99)]).map((e) => e.id)).toEqual([3]);
  });
});
