import { initialState, State } from '../state/state';
import { frontier, item, NOW } from '../testing/fixtures';
import { PLAIN } from './format';
import { blockedByLabel, frontierColumns, frontierHeaderLine, renderFrontierRows, shortReason } from './lists';

// The Blocked tab's "blocked by" and "reason" columns.

const plain = PLAIN;

function withBlocked(): State {
  const blocked = [
    item(7, {
      status: 'planned',
      blocked_by: ['ATL-3', 'ATL-4', 'ATL-5'],
      blocked_reasons: [
        'ATL-3 activation: status:done',
        'ATL-4 activation: status:done',
        'ATL-5 activation: status:done',
      ],
    }),
    item(8, { blocked_by: [], blocked_reasons: ['blocked by operator: waiting on legal'] }),
  ];
  const s = initialState();
  return { ...s, now: NOW, tab: 'blocked', frontier: frontier([item(1)], blocked) } as State;
}

describe('Blocked tab columns', () => {
  it('names the first blocker and how many more, and the reason in short', () => {
    const s = withBlocked();
    expect(blockedByLabel(s.frontier!.blocked[0])).toBe('ATL-3 +2');
    expect(blockedByLabel(s.frontier!.blocked[1])).toBe('');
    expect(shortReason(s.frontier!.blocked[1])).toBe('blocked by operator: waiting on legal');
    expect(shortReason(s.frontier!.blocked[0])).toBe('ATL-3 activation: status:done');
    const header = frontierHeaderLine(140, 2, plain, 6, 'blocked');
    expect(header).toContain('blocked by');
    expect(header).toContain('reason');
    const rows = renderFrontierRows(s, 'blocked', 140, 10, 0, plain).lines.join('\n');
    expect(rows).toContain('ATL-3 +2');
    expect(rows).toContain('blocked by operator');
  });

  it('only on the Blocked tab, and every row still fits the width', () => {
    expect(frontierColumns(140, 2, 6, undefined, 'runnable').some((c) => c.id === 'blockedby')).toBe(false);
    for (const width of [60, 80, 140]) {
      const cols = frontierColumns(width, 2, 6, undefined, 'blocked');
      const used = 1 + cols.reduce((n, c) => n + c.width + 1, 0);
      expect(used).toBeLessThanOrEqual(width + 1);
      // the title keeps its minimum before the blocked-by column goes
      expect(cols.find((c) => c.id === 'title')!.width).toBeGreaterThanOrEqual(6);
    }
    // narrow (the detail pane open): the reason gives way before the title drops under 28 columns
    const narrow = frontierColumns(80, 2, 6, undefined, 'blocked');
    expect(narrow.some((c) => c.id === 'blockedby')).toBe(true);
    expect(narrow.some((c) => c.id === 'reason')).toBe(false);
    expect(narrow.find((c) => c.id === 'title')!.width).toBeGreaterThanOrEqual(28);
  });
});

describe('the column a :sort orders by', () => {
  it('is marked in the header, and the frontier order marks none', () => {
    expect(frontierHeaderLine(140, 2, plain, 6, 'runnable', 'priority')).toMatch(/ pri↓ /);
    expect(frontierHeaderLine(140, 2, plain, 6, 'runnable', 'unblocks')).toMatch(/ un↓ /);
    expect(frontierHeaderLine(140, 2, plain, 6, 'runnable', 'title')).toMatch(/ title↓ /);
    expect(frontierHeaderLine(140, 2, plain, 6, 'runnable', 'rank')).not.toContain('↓');
    expect(frontierHeaderLine(140, 2, plain, 6, 'runnable')).not.toContain('↓');
    // as wide as without the mark: the columns below stay aligned
    expect(frontierHeaderLine(140, 2, plain, 6, 'runnable', 'age').length).toBe(
      frontierHeaderLine(140, 2, plain, 6, 'runnable').length,
    );
  });
});
