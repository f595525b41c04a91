import type { ChangeRecordWire } from '@app/contracts';

import { changeValue, changeWhat, changeWho } from './change-words';
import { displayWidth } from './display-width';

const record = (overrides: Partial<ChangeRecordWire> = {}): ChangeRecordWire => ({
  id: '1',
  at: '2026-01-10T12:00:00.000Z',
  actor: 'admin',
  credential: null,
  session_id: null,
  harness: null,
  path: 'cli',
  forced: false,
  project: 'atlas',
  item_id: 'ATL-33',
  object: 'item',
  object_ref: 'ATL-33',
  action: 'changed',
  field: 'priority',
  before: 'medium',
  after: 'high',
  ...overrides,
});

describe('change words (the CLI and the TUI)', () => {
  it('should say who: the actor, an agent with its session and harness, a forced override, the sweep', () => {
    expect(changeWho(record())).toBe('admin');
    expect(changeWho(record({ actor: 'mia', session_id: 12, harness: 'claude-code', forced: true }))).toBe(
      'mia #12 claude-code (forced)',
    );
    expect(changeWho(record({ actor: null, path: 'sweep' }))).toBe('svc (sweep)');
  });

  it('should say what: a field before → after, else the object and what happened to it', () => {
    expect(changeWhat(record())).toBe('priority: medium → high');
    expect(changeWhat(record({ field: 'blocked_reason', before: null }))).toBe('blocked_reason: ∅ → high');
    expect(changeWhat(record({ object: 'dependency', object_ref: 'ATL-33 → ATL-34', action: 'added' }))).toBe(
      'dependency ATL-33 → ATL-34 added',
    );
    expect(changeWhat(record({ field: null, action: 'created', after: 'Rate limiter' }))).toBe('created Rate limiter');
  });

  it('should cut a long value by display width, wide characters included', () => {
    const cut = changeValue('限'.repeat(40), 11);
    expect(displayWidth(cut)).toBeLessThanOrEqual(11);
    expect(cut.endsWith('…')).toBe(true);
    expect(changeValue({ a: 1 })).toBe('{"a":1}');
  });
});
