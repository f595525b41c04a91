import { frameBanner } from './banner';

describe(frameBanner.name, () => {
  it('should frame every line in a box as wide as the longest line', () => {
    const text = frameBanner(['svc: first boot', '', '    svc_abc']);
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^╭─+╮$/);
    expect(lines[lines.length - 1]).toMatch(/^╰─+╯$/);
    expect(new Set(lines.map((l) => l.length)).size).toBe(1);
    expect(lines).toContain(`│ ${'    svc_abc'.padEnd(lines[0].length - 4)} │`);
  });

  it('should wrap a line longer than the terminal at spaces and cut a path that cannot fit', () => {
    const path = `/home/someone/${'deep/'.repeat(20)}credentials.json`;
    const text = frameBanner([`stored in ${path} (mode 0600)`], 60);
    const lines = text.trimEnd().split('\n');
    expect(lines.every((l) => l.length === 60)).toBe(true);
    const inside = lines
      .slice(1, -1)
      .map((l) => l.slice(2, -2).trimEnd())
      .join('');
    expect(inside.replace(/ /g, '')).toBe(`storedin${path}(mode0600)`);
  });

  it('should never grow wider than 80 columns on a wide terminal', () => {
    const text = frameBanner(['x'.repeat(200)], 300);
    expect(
      text
        .trimEnd()
        .split('\n')
        .every((l) => l.length === 80),
    ).toBe(true);
  });
});
