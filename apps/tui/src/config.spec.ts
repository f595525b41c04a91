import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { applyKeys, ConfigError, configPath, DEFAULT_CONFIG, loadConfig, parseConfig, printConfig } from './config';
import { KEYMAP, resolveKey } from './keys/keymap';

describe('tui.json', () => {
  it('should live under XDG_CONFIG_HOME, else ~/.config', () => {
    expect(configPath({ XDG_CONFIG_HOME: '/x/conf' })).toBe('/x/conf/svc/tui.json');
    expect(configPath({})).toMatch(/\/\.config\/svc\/tui\.json$/);
    // a relative XDG_CONFIG_HOME is ignored, as the spec says
    expect(configPath({ XDG_CONFIG_HOME: 'rel' })).toMatch(/\/\.config\/svc\/tui\.json$/);
  });

  it('should give the defaults without a file, and read one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-tui-config-'));
    expect(loadConfig(join(dir, 'none.json'))).toEqual({ config: DEFAULT_CONFIG, found: false });
    const path = join(dir, 'tui.json');
    writeFileSync(
      path,
      JSON.stringify({ theme: 'light', defaultTab: 'blocked', columns: ['ref', 'title', 'priority'], mouse: true }),
    );
    expect(loadConfig(path)).toEqual({
      config: {
        ...DEFAULT_CONFIG,
        theme: 'light',
        defaultTab: 'blocked',
        columns: ['ref', 'title', 'priority'],
        mouse: true,
      },
      found: true,
    });
    writeFileSync(path, '{ theme: light }');
    expect(() => loadConfig(path)).toThrow(/tui\.json: not valid JSON/);
  });

  it.each([
    [{ theme: 'blue' }, /theme: must be one of dark, light, high-contrast/],
    [{ defaultTab: 'done' }, /defaultTab: must be one of runnable, blocked, frozen, machines, events/],
    [{ colour: 'x' }, /colour: unknown setting/],
    [{ columns: ['ref', 'title', 'owner'] }, /columns: unknown column owner/],
    [{ columns: ['ref', 'priority'] }, /columns: must include title/],
    [{ mouse: 'yes' }, /mouse: must be true or false/],
    [{ keys: { fly: 'f' } }, /keys\.fly: not an action/],
    [{ keys: { dialog_yes: 'Y' } }, /keys\.dialog_yes: only the main screen's keys/],
    [{ keys: { refresh: 'ctrl+r' } }, /keys\.refresh: "ctrl\+r" is not a key/],
    [{ keys: { refresh: [] } }, /keys\.refresh: must be a key or a non-empty list/],
    // a clash with another binding of the same screen is refused, naming both
    [{ keys: { refresh: 'q' } }, /keys: clash: key "q" is bound to quit \(global\) and refresh \(global\)/],
    [{ keys: { refresh: 'c' } }, /clash: key "c" is bound to refresh \(global\) and charge_top \(frontier\)/],
    [{ views: [{ name: 'mine', sort: 'colour' }] }, /views\[0\]\.sort: must be one of rank, priority/],
    [{ views: [{ name: 'a' }, { name: 'a' }] }, /views\[1\]\.name: "a" is listed twice/],
    [{ views: [{ name: 'a b' }] }, /views\[0\]\.name: must be a word/],
    [{ commands: [{ name: 'gh' }] }, /commands\[0\]: needs one of run .* or open/],
    [{ commands: [{ name: 'gh', run: 'x', open: 'y' }] }, /commands\[0\]: needs one of run/],
    [{ commands: [{ name: 'gh', run: 'x', key: 'c' }] }, /commands\[0\]\.key: "c" is bound to charge_top/],
    [{ opener: 3 }, /opener: must be a program/],
  ])('should refuse %j with a clear error', (raw, message) => {
    expect(() => parseConfig(raw)).toThrow(ConfigError);
    expect(() => parseConfig(raw)).toThrow(message);
  });

  it('should rebind a main screen key and leave the rest', () => {
    const config = parseConfig({ keys: { refresh: 'R', charge_top: ['x', 'f5'] } });
    const keymap = applyKeys(KEYMAP, config.keys);
    expect(resolveKey('R', 'frontier', keymap)?.action).toBe('refresh');
    expect(resolveKey('r', 'frontier', keymap)).toBeNull();
    expect(resolveKey('f5', 'frontier', keymap)?.action).toBe('charge_top');
    // the failure screen's own retry key stays
    expect(resolveKey('r', 'failure', keymap)?.action).toBe('refresh');
  });

  it('should print the settings in effect, keys included', () => {
    const out = printConfig('/c/svc/tui.json', parseConfig({ keys: { refresh: 'R' } }), true);
    expect(out).toContain('# /c/svc/tui.json\n');
    const json = JSON.parse(out.replace(/^#.*\n/gm, '')) as { theme: string; keys: Record<string, string[]> };
    expect(json.theme).toBe('dark');
    expect(json.keys.refresh).toEqual(['R']);
    expect(json.keys.quit).toEqual(['q']);
    expect(printConfig('/c/svc/tui.json', DEFAULT_CONFIG, false)).toContain('(not found: the defaults)');
  });

  it('should read named views, custom commands and the opener', () => {
    const config = parseConfig({
      views: [{ name: 'urgent', filter: 'pri:high', sort: 'age', desc: true, tab: 'blocked' }, { name: 'all' }],
      commands: [
        { name: 'gh', key: 'f6', open: 'https://github.com/acme/app/issues?q={title}', help: 'search GitHub' },
        { name: 'log', run: 'git log --oneline --grep {ref}' },
      ],
      opener: '/usr/local/bin/my-open',
    });
    expect(config.views).toEqual([
      { name: 'urgent', filter: 'pri:high', sort: 'age', desc: true, tab: 'blocked' },
      { name: 'all' },
    ]);
    expect(config.commands).toEqual([
      { name: 'gh', key: 'f6', open: 'https://github.com/acme/app/issues?q={title}', help: 'search GitHub' },
      { name: 'log', run: 'git log --oneline --grep {ref}' },
    ]);
    expect(config.opener).toBe('/usr/local/bin/my-open');
    const printed = printConfig('/c/svc/tui.json', config, true);
    expect(printed).toContain('"urgent"');
    expect(printed).toContain('/usr/local/bin/my-open');
  });
});
