import { parseSince, SINCE_PATTERN } from './events.dto';

describe(parseSince.name, () => {
  const now = Date.UTC(2026, 0, 10, 12, 0, 0);

  it.each([
    ['30s', 30_000],
    ['15m', 900_000],
    ['2h', 7_200_000],
    ['7d', 604_800_000],
  ])('should read the duration %s back from now', (text, ms) => {
    expect(parseSince(text, now)?.getTime()).toBe(now - ms);
  });

  it('should read a zoneless timestamp as UTC', () => {
    expect(parseSince('2026-01-01T00:00:00', now)?.toISOString()).toBe('2026-01-01T00:00:00.000Z');
  });

  it('should refuse other shapes through the pattern', () => {
    expect(SINCE_PATTERN.test('yesterday')).toBe(false);
    expect(SINCE_PATTERN.test('2026-01-01T00:00:00+02:00')).toBe(true);
  });
});
