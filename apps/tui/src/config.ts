import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

import { KEY_ACTIONS, KeyAction, KeyBinding, KEYMAP, KeymapError, Scope, validateKeymap } from './keys/keymap';
import { keyLabel } from './keys/help';
import { SORT_KEYS, SortKey } from '@app/contracts';
import { NamedView, Tab, TABS, UserCommand } from './state/state';
import { FRONTIER_COLUMN_IDS } from './views/lists';
import { THEME_NAMES, ThemeName } from './views/theme';

// Every field optional; anything else, or a key override that clashes with another binding, is refused with the file
// and field named.

export interface TuiConfig {
  theme: ThemeName;
  defaultTab: Tab;
  // ref and title always; still dropped by width when narrow
  columns: string[] | null;
  mouse: boolean;
  keys: Partial<Record<KeyAction, string[]>>;
  views: NamedView[];
  commands: UserCommand[];
  opener: string | null;
}

export const DEFAULT_CONFIG: TuiConfig = {
  theme: 'dark',
  defaultTab: 'runnable',
  columns: null,
  mouse: false,
  keys: {},
  views: [],
  commands: [],
  opener: null,
};

const MAIN_SCOPES: readonly Scope[] = ['global', 'list', 'frontier', 'machines', 'events', 'empty'];
const NAMED_KEY =
  /^(?:[CMS]-)?(?:[a-z0-9]|up|down|left|right|enter|escape|tab|space|backspace|delete|insert|home|end|pageup|pagedown|f[1-9]|f1[0-2])$/;

export class ConfigError extends Error {}

export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.startsWith('/') ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return join(base, 'svc', 'tui.json');
}

export function loadConfig(path: string): { config: TuiConfig; found: boolean } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { config: { ...DEFAULT_CONFIG }, found: false };
    throw new ConfigError(`${path}: ${(err as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`${path}: not valid JSON (${(err as Error).message})`);
  }
  return { config: parseConfig(raw, path), found: true };
}

export function parseConfig(raw: unknown, where = 'tui.json'): TuiConfig {
  const fail = (field: string, message: string): never => {
    throw new ConfigError(`${where}: ${field}: ${message}`);
  };
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) fail('(top)', 'must be a JSON object');
  const o = raw as Record<string, unknown>;
  const config: TuiConfig = { ...DEFAULT_CONFIG, keys: {}, views: [], commands: [] };
  const known = ['theme', 'defaultTab', 'columns', 'mouse', 'keys', 'views', 'commands', 'opener'];
  for (const field of Object.keys(o)) {
    if (![...known, '$schema'].includes(field)) fail(field, `unknown setting (known: ${known.join(', ')})`);
  }
  if (o.opener !== undefined) {
    if (typeof o.opener !== 'string' || !o.opener.trim()) fail('opener', 'must be a program (a path or a name)');
    config.opener = (o.opener as string).trim();
  }
  if (o.views !== undefined) config.views = parseViews(o.views, fail);
  if (o.commands !== undefined) config.commands = parseCommands(o.commands, fail);
  if (o.theme !== undefined) {
    if (!THEME_NAMES.includes(o.theme as ThemeName)) fail('theme', `must be one of ${THEME_NAMES.join(', ')}`);
    config.theme = o.theme as ThemeName;
  }
  if (o.defaultTab !== undefined) {
    if (!TABS.includes(o.defaultTab as Tab)) fail('defaultTab', `must be one of ${TABS.join(', ')}`);
    config.defaultTab = o.defaultTab as Tab;
  }
  if (o.mouse !== undefined) {
    if (typeof o.mouse !== 'boolean') fail('mouse', 'must be true or false');
    config.mouse = o.mouse as boolean;
  }
  if (o.columns !== undefined) {
    if (!Array.isArray(o.columns) || o.columns.some((c) => typeof c !== 'string')) {
      fail('columns', 'must be a list of column names');
    }
    const columns = o.columns as string[];
    const unknown = columns.filter((c) => !FRONTIER_COLUMN_IDS.includes(c));
    if (unknown.length)
      fail('columns', `unknown column ${unknown.join(', ')} (known: ${FRONTIER_COLUMN_IDS.join(', ')})`);
    if (new Set(columns).size !== columns.length) fail('columns', 'a column is listed twice');
    for (const needed of ['ref', 'title']) if (!columns.includes(needed)) fail('columns', `must include ${needed}`);
    config.columns = columns;
  }
  if (o.keys !== undefined) {
    if (o.keys === null || typeof o.keys !== 'object' || Array.isArray(o.keys)) {
      fail('keys', 'must be an object: action name -> key or list of keys');
    }
    for (const [action, value] of Object.entries(o.keys as Record<string, unknown>)) {
      if (!KEY_ACTIONS.includes(action as KeyAction))
        fail(`keys.${action}`, 'not an action of the TUI (svc tui --print-config lists them)');
      if (!KEYMAP.some((b) => b.action === action && MAIN_SCOPES.includes(b.scope))) {
        fail(`keys.${action}`, "only the main screen's keys can be rebound (dialogs and text inputs keep theirs)");
      }
      const keys = typeof value === 'string' ? [value] : value;
      if (!Array.isArray(keys) || keys.length === 0 || keys.some((k) => typeof k !== 'string')) {
        fail(`keys.${action}`, 'must be a key or a non-empty list of keys');
      }
      for (const k of keys as string[]) {
        if ([...k].length !== 1 && !NAMED_KEY.test(k))
          fail(`keys.${action}`, `"${k}" is not a key (a character, or a name such as C-x, f5, pagedown)`);
        if ([...k].length === 1 && (k < ' ' || k === '\x7f'))
          fail(`keys.${action}`, 'a control character is not a key');
      }
      config.keys[action as KeyAction] = keys as string[];
    }
    // a clash is refused here, with the same words as the built-in keymap's check
    try {
      validateKeymap(applyKeys(KEYMAP, config.keys));
    } catch (err) {
      if (err instanceof KeymapError) fail('keys', err.message.replace(/^invalid keymap: /, 'clash: '));
      throw err;
    }
  }
  return config;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$/;
type Fail = (field: string, message: string) => never;

function objects(raw: unknown, field: string, fail: Fail): Record<string, unknown>[] {
  if (!Array.isArray(raw)) fail(field, 'must be a list of objects');
  const list = raw as unknown[];
  list.forEach((x, i) => {
    if (x === null || typeof x !== 'object' || Array.isArray(x)) fail(`${field}[${i}]`, 'must be an object');
  });
  return list as Record<string, unknown>[];
}

function nameOf(o: Record<string, unknown>, field: string, seen: Set<string>, fail: Fail): string {
  if (typeof o.name !== 'string' || !NAME.test(o.name))
    fail(`${field}.name`, 'must be a word of letters, digits, _ . - (at most 32)');
  const name = o.name as string;
  if (seen.has(name)) fail(`${field}.name`, `"${name}" is listed twice`);
  seen.add(name);
  return name;
}

function parseViews(raw: unknown, fail: Fail): NamedView[] {
  const seen = new Set<string>();
  return objects(raw, 'views', fail).map((o, i) => {
    const field = `views[${i}]`;
    for (const k of Object.keys(o))
      if (!['name', 'filter', 'sort', 'desc', 'tab'].includes(k))
        fail(`${field}.${k}`, 'unknown (known: name, filter, sort, desc, tab)');
    const view: NamedView = { name: nameOf(o, field, seen, fail) };
    if (o.filter !== undefined) {
      if (typeof o.filter !== 'string') fail(`${field}.filter`, 'must be a filter text (as typed after /)');
      view.filter = o.filter as string;
    }
    if (o.sort !== undefined) {
      if (!SORT_KEYS.includes(o.sort as SortKey)) fail(`${field}.sort`, `must be one of ${SORT_KEYS.join(', ')}`);
      view.sort = o.sort as SortKey;
    }
    if (o.desc !== undefined) {
      if (typeof o.desc !== 'boolean') fail(`${field}.desc`, 'must be true or false');
      view.desc = o.desc as boolean;
    }
    if (o.tab !== undefined) {
      if (!TABS.includes(o.tab as Tab)) fail(`${field}.tab`, `must be one of ${TABS.join(', ')}`);
      view.tab = o.tab as Tab;
    }
    return view;
  });
}

function parseCommands(raw: unknown, fail: Fail): UserCommand[] {
  const seen = new Set<string>();
  const keys = new Set<string>();
  return objects(raw, 'commands', fail).map((o, i) => {
    const field = `commands[${i}]`;
    for (const k of Object.keys(o))
      if (!['name', 'key', 'run', 'open', 'help'].includes(k))
        fail(`${field}.${k}`, 'unknown (known: name, key, run, open, help)');
    const command: UserCommand = { name: nameOf(o, field, seen, fail) };
    const run = typeof o.run === 'string' && o.run.trim() ? o.run : null;
    const open = typeof o.open === 'string' && o.open.trim() ? o.open : null;
    if ((run === null) === (open === null) || (o.run !== undefined && !run) || (o.open !== undefined && !open))
      fail(field, 'needs one of run (a shell command) or open (a URL), with {ref} {title} {url} placeholders');
    if (run) command.run = run;
    if (open) command.open = open;
    if (o.help !== undefined) {
      if (typeof o.help !== 'string') fail(`${field}.help`, 'must be a text');
      command.help = o.help as string;
    }
    if (o.key !== undefined) {
      const k = o.key;
      if (typeof k !== 'string' || ([...k].length !== 1 && !NAMED_KEY.test(k)) || ([...k].length === 1 && k < ' '))
        fail(`${field}.key`, 'must be a key (a character, or a name such as C-x, f5)');
      const taken = KEYMAP.find((b) => b.keys.includes(k as string) && MAIN_SCOPES.includes(b.scope));
      if (taken) fail(`${field}.key`, `"${k as string}" is bound to ${taken.action} (${taken.scope})`);
      if (keys.has(k as string)) fail(`${field}.key`, `"${k as string}" is bound to another command`);
      keys.add(k as string);
      command.key = k as string;
    }
    return command;
  });
}

export function applyKeys(keymap: readonly KeyBinding[], keys: Partial<Record<KeyAction, string[]>>): KeyBinding[] {
  return keymap.map((b) => {
    const replacement = keys[b.action];
    return replacement && MAIN_SCOPES.includes(b.scope) ? { ...b, keys: [...replacement] } : b;
  });
}

export function printConfig(path: string, config: TuiConfig, found: boolean): string {
  const keymap = applyKeys(KEYMAP, config.keys);
  const keys: Record<string, string[]> = {};
  for (const b of keymap) if (MAIN_SCOPES.includes(b.scope) && !keys[b.action]) keys[b.action] = b.keys;
  const effective = {
    theme: config.theme,
    defaultTab: config.defaultTab,
    columns: config.columns ?? FRONTIER_COLUMN_IDS,
    mouse: config.mouse,
    keys,
    views: config.views,
    commands: config.commands,
    opener: config.opener ?? defaultOpener(),
  };
  const where = found ? path : `${path} (not found: the defaults)`;
  return `# ${where}\n# themes: ${THEME_NAMES.join(', ')}; tabs: ${TABS.join(', ')}; keys shown as blessed names (${keyLabel('escape')} is "escape")\n${JSON.stringify(effective, null, 2)}\n`;
}

export function defaultOpener(platform: NodeJS.Platform = process.platform): string {
  return platform === 'darwin' ? 'open' : 'xdg-open';
}
