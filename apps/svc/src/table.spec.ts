import { cell, selectFields } from './output';
import { columnsOf, layoutTable, renderTable, visibleWidth } from './table';

describe('tables that fit the terminal', () => {
  const columns = columnsOf([
    { header: 'item', keep: true },
    { header: 'status', priority: 3 },
    { header: 'depth', priority: 1 },
    { header: 'title', priority: 5, flex: true },
  ]);
  const rows = [['AL-1', 'planned', '0', 'x'.repeat(100)]];

  it('should show everything, untruncated, without a width', () => {
    const { lines, dropped } = renderTable(columns, rows, null);
    expect(dropped).toEqual([]);
    expect(lines[1]).toContain('x'.repeat(100));
  });

  it('should cut the flexible column with an ellipsis and keep every line within the width', () => {
    const { lines, dropped } = renderTable(columns, rows, 50);
    expect(dropped).toEqual([]);
    expect(lines[1].endsWith('…')).toBe(true);
    for (const line of lines) expect(visibleWidth(line)).toBeLessThanOrEqual(50);
  });

  it('should drop the lowest-priority column first, never a kept one', () => {
    expect(layoutTable(columns, rows, 40).shown).toEqual([0, 1, 3]);
    const tiny = layoutTable(columns, rows, 10);
    expect(tiny.shown).toContain(0);
    expect(tiny.widths.reduce((a, b) => a + b, 0) + 2 * (tiny.shown.length - 1)).toBeLessThanOrEqual(10);
  });

  it('should line up titles in CJK, emoji, combining marks and right-to-left script, and cut them by width', () => {
    const cols = columnsOf([{ header: 'item', keep: true }, { header: 'title', flex: true }, 'status']);
    const titles = ['請求書テンプレート', 'Rocket 🚀 ✅', 'Cafe\u0301 ❤️ 👩‍💻', 'שלום עולם', '日本語'.repeat(20)];
    const { lines } = renderTable(
      cols,
      titles.map((t, i) => [`AL-${i}`, t, 'planned']),
      60,
    );
    const statusAt = (line: string) => visibleWidth(line.slice(0, line.lastIndexOf('planned')));
    const header = visibleWidth(lines[0].slice(0, lines[0].indexOf('status')));
    for (const line of lines.slice(1)) {
      expect(statusAt(line)).toBe(header);
      expect(visibleWidth(line)).toBeLessThanOrEqual(60);
      expect(line).not.toMatch(/\u200d|\ufe0f/);
    }
    expect(lines[5]).toContain('…');
  });

  it('should drop a column empty in every row before the others', () => {
    const cols = columnsOf(['item', 'claimed by', 'title'], [['AL-1', '', 'y'.repeat(60)]]);
    expect(layoutTable(cols, [['AL-1', '', 'y'.repeat(60)]], 40).shown).toEqual([0, 2]);
  });
});

describe('table cells', () => {
  it('should summarize JSON values and make timestamps relative', () => {
    expect(cell({ a: { deep: true }, b: 2, c: [1] })).toBe('{3 keys}');
    expect(cell({ wip_cap: 3 })).toBe('wip_cap=3');
    expect(cell([{ x: 1 }, { x: 2 }])).toBe('[2 items]');
    expect(cell(['AL-1', 'AL-2'])).toBe('AL-1, AL-2');
    expect(cell(new Date(Date.now() - 3 * 3600_000).toISOString())).toBe('3h ago');
    expect(cell(null)).toBe('');
  });
});

describe('--json field selection', () => {
  const body = { items: [{ item_id: 'AL-1', title: 't', status: 's' }], total: 1 };

  it('should keep the selected fields of every row and the rest of the body', () => {
    expect(selectFields(body, ['item_id'])).toEqual({ items: [{ item_id: 'AL-1' }], total: 1 });
    expect(selectFields({ name: 'ann', email: 'e' }, ['name'])).toEqual({ name: 'ann' });
  });

  it('should refuse an unknown field, naming the available ones, as a usage error', () => {
    expect(() => selectFields(body, ['colour'])).toThrow(
      /unknown JSON field: colour; available fields: item_id, status, title/,
    );
    try {
      selectFields(body, ['colour']);
    } catch (err) {
      expect((err as { exitCode: number }).exitCode).toBe(64);
    }
  });
});
