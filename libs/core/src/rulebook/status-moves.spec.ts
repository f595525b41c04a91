import {
  crossedStages,
  decideFieldEdit,
  decideFieldValue,
  decideResolution,
  decideStatusMove,
  ItemFieldCatalogue,
  MoveStage,
} from './status-moves';

const stage = (id: string, gated: boolean, terminal = false): MoveStage => ({
  id,
  terminal,
  gates: gated ? [{ type: 'check_hard_blocks' }] : [],
});
const LIFECYCLE: MoveStage[] = [
  stage('a', false),
  stage('b', true),
  stage('c', true),
  stage('done', true, true),
  stage('cancelled', false, true),
  stage('stopped', false, true),
  stage('failed', false, true),
];

describe('decideStatusMove', () => {
  it('should refuse a stage the pinned definition does not have', () => {
    expect(decideStatusMove(LIFECYCLE, 'a', 'shipped')).toEqual({ refuse: 'stage_not_in_workflow' });
  });

  it('should refuse an unknown stage even when the item already claims to be in it', () => {
    expect(decideStatusMove(LIFECYCLE, 'ghost', 'ghost')).toEqual({ refuse: 'stage_not_in_workflow' });
  });

  it('should write nothing for a move to the current stage', () => {
    expect(decideStatusMove(LIFECYCLE, 'b', 'b')).toEqual({ move: false });
  });

  it.each([
    ['a', 'b', false],
    ['c', 'a', false],
    ['a', 'done', true],
    ['b', 'cancelled', true],
    ['done', 'a', false],
  ])('should move %s to %s, finishing: %s', (from, to, finishes) => {
    expect(decideStatusMove(LIFECYCLE, from, to)).toEqual({ move: true, finishes });
  });
});

describe('crossedStages', () => {
  const ids = (from: string, to: string) => crossedStages(LIFECYCLE, from, to).map((s) => s.id);

  it('should list every gated stage after the current one up to the target', () => {
    expect(ids('a', 'b')).toEqual(['b']);
    expect(ids('a', 'c')).toEqual(['b', 'c']);
    expect(ids('a', 'done')).toEqual(['b', 'c', 'done']);
    expect(ids('b', 'done')).toEqual(['c', 'done']);
  });

  it('should pass no gate moving backwards or staying', () => {
    expect(ids('c', 'a')).toEqual([]);
    expect(ids('c', 'b')).toEqual([]);
    expect(ids('b', 'b')).toEqual([]);
  });

  it('should never gate a move to cancelled, stopped or failed', () => {
    for (const to of ['cancelled', 'stopped', 'failed']) expect(ids('a', to)).toEqual([]);
  });

  it('should treat a move out of a terminal stage as starting before the first stage', () => {
    expect(ids('cancelled', 'c')).toEqual(['b', 'c']);
    expect(ids('done', 'b')).toEqual(['b']);
  });

  it('should treat a stage the definition does not know as before the first, and an unknown target as none', () => {
    expect(ids('ghost', 'c')).toEqual(['b', 'c']);
    expect(ids('a', 'ghost')).toEqual([]);
  });
});

describe('decideResolution', () => {
  it('should refuse a duplicate that names nothing', () => {
    expect(decideResolution({ resolution: 'duplicate', hasRef: false })).toEqual({
      refuse: 'resolution_ref_required',
    });
  });

  it.each([
    ['completed', 'done'],
    ['duplicate', 'cancelled'],
    ['wontfix', 'cancelled'],
  ])('should move a %s resolution to %s', (resolution, status) => {
    expect(decideResolution({ resolution, hasRef: true })).toEqual({ status });
  });

  it('should move to the stage asked over the resolution’s own', () => {
    expect(decideResolution({ resolution: 'wontfix', status: 'stopped', hasRef: false })).toEqual({
      status: 'stopped',
    });
  });
});

const CATALOGUE: ItemFieldCatalogue = {
  structured: ['spec'],
  plainWritable: ['title', 'priority', 'owner', 'body'],
  readable: ['title', 'priority', 'owner', 'body', 'spec', 'status', 'created_at'],
  notNull: ['title', 'priority'],
  operations: { status: 'svc items status' },
};

describe('decideFieldEdit', () => {
  it('should refuse a field that is no item field, listing the writable ones', () => {
    expect(decideFieldEdit('colour', 'blue', CATALOGUE)).toEqual({
      refuse: 'unknown_field',
      fields: ['spec', 'title', 'priority', 'owner', 'body'],
    });
  });

  it('should refuse a readable field with its own operation, naming it', () => {
    expect(decideFieldEdit('status', 'done', CATALOGUE)).toEqual({
      refuse: 'field_not_writable',
      how: 'svc items status',
    });
  });

  it('should refuse a readable field the service maintains, naming no operation', () => {
    expect(decideFieldEdit('created_at', 'x', CATALOGUE)).toEqual({ refuse: 'field_not_writable', how: undefined });
  });

  it('should refuse clearing a field that must hold a value', () => {
    expect(decideFieldEdit('title', null, CATALOGUE)).toEqual({
      refuse: 'invalid_value',
      message: 'title cannot be cleared',
    });
  });

  it('should let a clearable field be cleared', () => {
    expect(decideFieldEdit('body', null, CATALOGUE)).toEqual({ structured: false, kind: 'edit' });
  });

  it.each([
    ['priority', false, 'triage'],
    ['owner', false, 'triage'],
    ['title', false, 'edit'],
    ['spec', true, 'edit'],
  ])('should let %s through as structured %s under the %s claim kind', (field, structured, kind) => {
    expect(decideFieldEdit(field, 'x', CATALOGUE)).toEqual({ structured, kind });
  });
});

describe('decideFieldValue', () => {
  it('should store a cleared value as null', () => {
    expect(decideFieldValue('body', null)).toEqual({ value: null });
  });

  it('should refuse a title past the policy’s length before an empty one', () => {
    expect(decideFieldValue('title', 'abcdef', 5)).toEqual({ refuse: 'title_too_long', length: 6, max: 5 });
    expect(decideFieldValue('title', 'abcde', 5)).toEqual({ value: 'abcde' });
    expect(decideFieldValue('title', '', 5)).toEqual({ refuse: 'invalid_value', message: 'title cannot be empty' });
  });

  it.each([
    ['priority', 'urgent', 'priority must be one of high, medium, low'],
    ['merged_at', '2026-11-28', 'merged_at must be an ISO 8601 timestamp with a zone'],
    ['merged_at', '2026-11-28T10:00:00', 'merged_at must be an ISO 8601 timestamp with a zone'],
    ['merged_at', '2026-13-45T10:00:00Z', 'merged_at must be an ISO 8601 timestamp with a zone'],
    ['owner', 'ann', 'owner must be an actor id'],
    ['owner', '1234567890123', 'owner must be an actor id'],
    ['workflow_posture', '[1]', 'workflow_posture must be a JSON object'],
    ['workflow_posture', 'null', 'workflow_posture must be a JSON object'],
    ['workflow_posture', '{', 'workflow_posture must be a JSON object'],
  ])('should refuse %s %j', (field, value, message) => {
    expect(decideFieldValue(field, value)).toEqual({ refuse: 'invalid_value', message });
  });

  it.each([
    ['priority', 'low'],
    ['merged_at', '2026-11-28T10:00:00.123+02:00'],
    ['owner', '42'],
    ['github_issue', 'anything at all'],
  ])('should store %s %j as given', (field, value) => {
    expect(decideFieldValue(field, value)).toEqual({ value });
  });

  it('should store a workflow posture as compact JSON', () => {
    expect(decideFieldValue('workflow_posture', '{ "lane": "fast" }')).toEqual({ value: '{"lane":"fast"}' });
  });
});
