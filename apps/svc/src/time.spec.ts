import { relativeTime } from './time';

describe(relativeTime.name, () => {
  const now = Date.parse('2026-03-10T12:00:00.000Z');

  it.each([
    ['2026-03-10T12:00:02.000Z', 'now'],
    ['2026-03-10T11:59:18.000Z', '42s ago'],
    ['2026-03-10T11:53:00.000Z', '7 min ago'],
    ['2026-03-10T12:07:00.000Z', 'in 7 min'],
    ['2026-03-10T09:00:00.000Z', '3h ago'],
    ['2026-03-08T12:00:00.000Z', '2d ago'],
    ['2026-03-12T13:00:00.000Z', 'in 2d'],
    ['2025-01-01T00:00:00.000Z', '2025-01-01'],
    // the wire's zoneless UTC timestamps (frontier created_at)
    ['2026-03-10T09:00:00.000', '3h ago'],
  ])('should render %s as %s', (input, expected) => {
    expect(relativeTime(input, now)).toBe(expected);
  });

  it('should leave an empty value empty and an unreadable one as it is', () => {
    expect(relativeTime(null, now)).toBe('');
    expect(relativeTime('soon', now)).toBe('soon');
  });
});
