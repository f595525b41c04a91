// A box so it stands out as the last thing on the terminal; the token has a line of its own and is never cut.
const MAX_WIDTH = 80;
const MIN_WIDTH = 40;

function wrap(line: string, width: number): string[] {
  if (line.length <= width) return [line];
  const out: string[] = [];
  let current = '';
  for (const word of line.split(' ')) {
    let rest = word;
    while (rest.length > 0) {
      const candidate = current ? `${current} ${rest}` : rest;
      if (candidate.length <= width) {
        current = candidate;
        rest = '';
      } else if (current) {
        out.push(current);
        current = '';
      } else {
        out.push(rest.slice(0, width));
        rest = rest.slice(width);
      }
    }
  }
  if (current) out.push(current);
  return out;
}

export function frameBanner(lines: readonly string[], columns: number = MAX_WIDTH): string {
  const outer = Math.max(MIN_WIDTH, Math.min(MAX_WIDTH, columns));
  const longest = Math.max(...lines.map((l) => l.length));
  const inner = Math.min(outer - 4, Math.max(longest, MIN_WIDTH - 4));
  const body = lines.flatMap((l) => wrap(l, inner));
  const rule = '─'.repeat(inner + 2);
  return [`╭${rule}╮`, ...body.map((l) => `│ ${l.padEnd(inner)} │`), `╰${rule}╯`, ''].join('\n');
}
