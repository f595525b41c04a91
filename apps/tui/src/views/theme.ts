import type { KeyBinding } from '../keys/keymap';

// blessed cannot parse Debian 12's ncurses-6 terminfo and falls back to 8 colours for TERM=tmux-256color, where
// "gray" becomes SGR 30, black text, invisible on a dark background. The depth is decided here (COLORTERM, the TERM
// name, tmux); a role never maps to black, and at 8 colours secondary text is the default colour.

export const THEME_NAMES = ['dark', 'light', 'high-contrast'] as const;
export type ThemeName = (typeof THEME_NAMES)[number];

// The colour names the views paint with, as roles: gray secondary text (headers, hints, low priority, borders),
// white neutral emphasis, cyan accents (keys, adapters, headings), green/yellow/red ok/warn/error, magenta claims.
export type Role = 'gray' | 'white' | 'cyan' | 'green' | 'yellow' | 'red' | 'magenta';
export const ROLES: readonly Role[] = ['gray', 'white', 'cyan', 'green', 'yellow', 'red', 'magenta'];

export interface Theme {
  color: boolean;
  name: ThemeName;
  depth: number;
  palette: Record<Role, string>;
  keymap?: readonly KeyBinding[];
  columns?: readonly string[];
}

export function colorDepth(env: NodeJS.ProcessEnv, fallback = 8): number {
  const term = (env.TERM ?? '').toLowerCase();
  const colorterm = (env.COLORTERM ?? '').toLowerCase();
  if (term === 'dumb') return 2;
  if (colorterm === 'truecolor' || colorterm === '24bit') return 256;
  if (/256colou?r|truecolor|direct/.test(term)) return 256;
  // tmux draws 256 colours whatever terminal is outside it (it translates them down itself)
  if (env.TMUX || term.startsWith('tmux')) return 256;
  if (/^(xterm|rxvt|screen|linux|vt220|putty|konsole|gnome|alacritty|kitty|foot|wezterm)/.test(term) || colorterm) {
    return Math.max(16, fallback);
  }
  return Math.max(8, fallback);
}

function paletteFor(name: ThemeName, depth: number): Record<Role, string> {
  const rich = depth >= 256;
  const bright = depth >= 16;
  if (name === 'light') {
    // a light background: no white or yellow text; darker shades where the terminal has them
    // (256-colour indexes: blessed's hex matching picks black for dark green)
    return {
      gray: bright ? (rich ? '242' : 'gray') : 'default',
      white: 'default',
      cyan: rich ? '24' : 'blue',
      green: rich ? '22' : 'green',
      yellow: rich ? '94' : 'magenta',
      red: rich ? '124' : 'red',
      magenta: rich ? '90' : 'magenta',
    };
  }
  if (name === 'high-contrast') {
    return {
      gray: 'default',
      white: 'default',
      cyan: bright ? 'brightcyan' : 'cyan',
      green: bright ? 'brightgreen' : 'green',
      yellow: bright ? 'brightyellow' : 'yellow',
      red: bright ? 'brightred' : 'red',
      magenta: bright ? 'brightmagenta' : 'magenta',
    };
  }
  return {
    // bright black (SGR 90) where the terminal has 16 colours; never colour 0
    gray: bright ? 'gray' : 'default',
    white: 'white',
    cyan: 'cyan',
    green: 'green',
    yellow: 'yellow',
    red: 'red',
    magenta: 'magenta',
  };
}

export function makeTheme(options: { name?: ThemeName; color?: boolean; depth?: number } = {}): Theme {
  const name = options.name ?? 'dark';
  const depth = options.depth ?? 256;
  const color = (options.color ?? true) && depth > 2;
  return { color, name, depth, palette: paletteFor(name, depth) };
}

// https://no-color.org: any non-empty NO_COLOR turns colour off; glyphs and words still carry every signal.
export function themeFromEnv(env: NodeJS.ProcessEnv = process.env, name?: ThemeName, fallbackDepth = 8): Theme {
  return makeTheme({
    name,
    color: !(env.NO_COLOR !== undefined && env.NO_COLOR !== ''),
    depth: colorDepth(env, fallbackDepth),
  });
}
