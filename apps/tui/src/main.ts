import { readFileSync, writeFileSync } from 'node:fs';

import type * as blessed from 'blessed';

import { apiFor, openEventStream, resolveConnection } from '@app/client';

import type { App } from './app';
import { findDemoBacklog, prefetch } from './effects/effects';
import type { State } from './state/state';
import { applyKeys, ConfigError, configPath, loadConfig, printConfig, TuiConfig } from './config';
import { PASTE_OFF, PASTE_ON } from './views/paste';
import { themeFromEnv } from './views/theme';
import type { Theme } from './views/theme';

// A tui.json that cannot be used (EX_CONFIG, as the daemon's bad configuration).
export const CONFIG_EXIT_CODE = 78;

export interface TuiArgs {
  readOnly: boolean;
  project: string | null;
  url: string | undefined;
  help: boolean;
  printConfig: boolean;
}

export const USAGE = `usage: svc tui [--project <id>] [--url <daemon url>] [--read-only] [--print-config]

  --project <id>   open this project (default: the first one; P switches)
  --url <url>      the daemon (default: SVC_URL, then the credential file, then http://127.0.0.1:7700)
  --read-only      browse only: charge, approve and deny are disabled
  --print-config   print the settings in effect ($XDG_CONFIG_HOME/svc/tui.json, else ~/.config/svc/tui.json)
Token: SVC_TOKEN, else the credential file written by \`svc connect\` or the first daemon start.
Keys: ? inside the TUI lists them all.
`;

export function parseArgs(argv: string[]): TuiArgs {
  const args: TuiArgs = {
    readOnly: false,
    project: process.env.SVC_PROJECT || null,
    url: undefined,
    help: false,
    printConfig: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i];
      if (v === undefined || v === '') throw new Error(`${a.split('=')[0]} needs a value`);
      return v;
    };
    if (a === '--read-only' || a === '--readonly') args.readOnly = true;
    else if (a === '--project' || a.startsWith('--project=')) args.project = value();
    else if (a === '--url' || a.startsWith('--url=')) args.url = value();
    else if (a === '-h' || a === '--help') args.help = true;
    else if (a === '--print-config') args.printConfig = true;
    else throw new Error(`unknown argument: ${a}`);
  }
  return args;
}

export async function runTui(argv: string[], options: { exitMessage?: boolean } = {}): Promise<number> {
  let args: TuiArgs;
  try {
    args = parseArgs(argv);
  } catch (err) {
    process.stderr.write(`svc tui: ${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  if (args.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const path = configPath();
  let loaded: { config: TuiConfig; found: boolean };
  try {
    loaded = loadConfig(path);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`svc tui: ${err.message}\n`);
    return CONFIG_EXIT_CODE;
  }
  if (args.printConfig) {
    process.stdout.write(printConfig(path, loaded.config, loaded.found));
    return 0;
  }
  const { config } = loaded;
  if (!process.stdout.isTTY || !process.stdin.isTTY) {
    process.stderr.write(
      'svc tui: needs a terminal (stdin and stdout must be a TTY); the `svc` commands work in scripts\n',
    );
    return 2;
  }
  const connection = resolveConnection({ url: args.url });
  const api = apiFor(connection, 'tui');
  // above this many items the TUI holds a window of the answer (0: always)
  const windowEnv = process.env.SVC_TUI_WINDOW_ABOVE ?? '';
  const windowAbove = /^[0-9]+$/.test(windowEnv) ? Number(windowEnv) : undefined;
  const early = prefetch(api, args.project, windowAbove);
  const widgets = await import('./views/widgets');
  const { App: AppClass } = await import('./app');
  const { KeymapError, KEYMAP } = await import('./keys/keymap');
  const { initialState } = await import('./state/state');
  const theme: Theme = {
    ...themeFromEnv(process.env, config.theme),
    keymap: applyKeys(KEYMAP, config.keys),
    ...(config.columns ? { columns: config.columns } : {}),
  };

  // blessed prints terminfo compilation failures to stderr while it builds the screen (Setulc on some terminals);
  // a user must never see that dump, so stderr is held until the screen exists.
  const realWrite = process.stderr.write.bind(process.stderr);
  const held: string[] = [];
  process.stderr.write = ((chunk: string | Uint8Array) => {
    held.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString());
    return true;
  }) as typeof process.stderr.write;
  // blessed spawns `tmux -V` while it builds the screen when TMUX is set, only to decide how to pass all-motion mouse
  // tracking, which the TUI never asks for: the spawn is skipped (tmux mode is set on the program right after).
  const tmux = process.env.TMUX;
  delete process.env.TMUX;
  let screen: blessed.Widgets.Screen;
  try {
    screen = widgets.screen({
      smartCSR: true,
      fullUnicode: true,
      autoPadding: false,
      warnings: false,
      ignoreLocked: ['C-c'],
      dockBorders: false,
    } as blessed.Widgets.IScreenOptions);
  } finally {
    process.stderr.write = realWrite;
    if (tmux !== undefined) process.env.TMUX = tmux;
  }
  if (tmux !== undefined) (screen.program as unknown as { tmux: boolean }).tmux = true;
  screen.title = 'svc';
  if (process.env.SVC_TUI_DEBUG && held.length) realWrite(held.join(''));

  return new Promise<number>((resolve) => {
    let done = false;
    let app: App | null = null;
    const finish = (code: number, message?: string) => {
      if (done) return;
      done = true;
      app?.stop();
      try {
        screen.destroy();
      } catch {
        // already gone
      }
      // blessed leaves these on when it is interrupted mid-sequence
      process.stdout.write('\x1b[?2004l\x1b[?1000l\x1b[?1006l\x1b[?25h\x1b[?1049l\x1b[0m');
      if (message) process.stderr.write(message);
      const state = app?.store.state;
      const connected = state !== undefined && state.actor !== null && state.failure === null;
      if (options.exitMessage !== false && code === 0 && connected) {
        process.stdout.write(
          `svc tui: the daemon at ${connection.url} keeps running; \`svc down\` stops a daemon started by \`svc up\`.\n`,
        );
      }
      for (const [signal, handler] of handlers) process.removeListener(signal, handler);
      resolve(code);
    };
    const crash = (err: unknown) =>
      finish(1, `svc tui crashed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    const handlers: [string, (...a: unknown[]) => void][] = [
      ['uncaughtException', crash],
      ['unhandledRejection', crash],
      ['SIGTERM', () => finish(143)],
      ['SIGHUP', () => finish(129)],
      ['SIGINT', () => finish(130)],
    ];
    for (const [signal, handler] of handlers) process.on(signal, handler);
    try {
      app = new AppClass({
        screen,
        theme,
        state: {
          ...initialState({ readOnly: args.readOnly, url: connection.url, project: args.project }),
          tab: config.defaultTab,
          views: config.views,
          userCommands: config.commands,
        },
        mouse: config.mouse,
        bracketedPaste: true,
        effects: {
          api,
          prefetch: early,
          windowAbove,
          token: connection.token,
          openStream: openEventStream,
          // a claim made here shows as the person's (the token's actor), its session named tui
          harness: process.env.SVC_HARNESS || 'tui',
          heartbeatMs: Number(process.env.SVC_TUI_HEARTBEAT_MS) || undefined,
          ...(config.opener ? { opener: config.opener } : {}),
          model: process.env.SVC_MODEL || 'unknown',
          dispatchCommand: process.env.SVC_DISPATCH_COMMAND || null,
          demoBacklogPath: findDemoBacklog(),
          // blessed suspends the screen and repaints when the editor exits
          editFile: (path) =>
            new Promise<number>((resolve) => {
              const editor = process.env.VISUAL || process.env.EDITOR || 'vi';
              // the editor reads a paste as the terminal sends it, without the TUI's bracketed-paste markers
              process.stdout.write(PASTE_OFF);
              const child = screen.spawn('/bin/sh', ['-c', `${editor} "$1"`, 'svc-editor', path], {});
              const back = (code: number) => {
                process.stdout.write(PASTE_ON);
                resolve(code);
              };
              child.once('error', () => back(127));
              child.once('exit', (code: number | null) => back(code ?? 1));
            }),
        },
        onQuit: () => finish(0),
        onFrame: benchReporter(),
      });
      void app.start().catch(crash);
    } catch (err) {
      finish(err instanceof KeymapError ? 3 : 1, `svc tui: ${(err as Error).message}\n`);
    }
  });
}

// SVC_TUI_BENCH_REPORT: bench/tui's first frame showing the frontier and the settled memory.
function benchReporter(): ((state: State) => void) | undefined {
  const file = process.env.SVC_TUI_BENCH_REPORT;
  if (!file) return undefined;
  let reported = false;
  const memory = () => {
    const status = readFileSync('/proc/self/status', 'utf8');
    const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
    return {
      rss_mb: kb('VmRSS') / 1024,
      hwm_mb: kb('VmHWM') / 1024,
      heap_mb: process.memoryUsage().heapUsed / 2 ** 20,
    };
  };
  return (state) => {
    if (reported || !state.frontier) return;
    reported = true;
    const rows = state.frontier.runnable.length + state.frontier.blocked.length + state.frontier.frozen.length;
    const cpu = process.cpuUsage();
    const first = {
      first_frame_ms: process.uptime() * 1000,
      first_frame_cpu_ms: (cpu.user + cpu.system) / 1000,
      rows,
      ...memory(),
    };
    writeFileSync(file, JSON.stringify({ first }) + '\n');
    setTimeout(() => {
      global.gc?.();
      writeFileSync(file, JSON.stringify({ first, settled: memory() }) + '\n');
    }, 3000).unref();
  };
}

if (require.main === module) {
  void runTui(process.argv.slice(2)).then((code) => process.exit(code));
}
