import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { readmeKeyTable } from './help';

// The key table (docs/keys.md, linked from the README and the user guide) is generated from the keymap: a binding
// added, moved or reworded fails here until the table says the same. SVC_UPDATE_README=1 rewrites it between the
// markers.
const README = join(__dirname, '..', '..', '..', '..', 'docs', 'keys.md');
const START = '<!-- tui-keys:start (generated from apps/tui/src/keys/keymap.ts; see readme-keys.spec.ts) -->';
const END = '<!-- tui-keys:end -->';

describe('docs/keys.md key table', () => {
  it('should be the table generated from the keymap', () => {
    const text = readFileSync(README, 'utf8');
    const start = text.indexOf(START);
    const end = text.indexOf(END);
    expect(start).toBeGreaterThan(0);
    expect(end).toBeGreaterThan(start);
    const expected = `${START}\n\n${readmeKeyTable()}\n\n${END}`;
    if (process.env.SVC_UPDATE_README === '1') {
      writeFileSync(README, text.slice(0, start) + expected + text.slice(end + END.length));
      return;
    }
    expect(text.slice(start, end + END.length)).toBe(expected);
  });
});
