import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { FrontierResultWire } from '@app/contracts';
import {
  createTestDatabase,
  DaemonProcess,
  REPO_ROOT,
  runSvc,
  startDaemonProcess,
  SVC_BIN,
  svcEnv,
  TestDatabase,
} from '@app/testing';
import { http } from '@app/testing/machine-auth';

import { sgrForegrounds } from '../apps/tui/src/testing/fixtures';
import { TmuxSession, tmuxAvailable } from '../apps/tui/src/testing/tmux';

// The TUI's rendering under a real tmux with TERM=tmux-256color (whose terminfo blessed cannot read) at 80x24, in
// one session with a user tui.json: colours never black, the configured tab and key, an info line that expires,
// mouse clicks, the help scrolled to its end; and `svc tui --print-config` with a good and a clashing file.

const SECRET = 'e2e-tui-render-secret-0123456789abcdef012345';
// 1-based SGR mouse reports, as a terminal sends them with mouse mode 1006 on
const click = (x: number, y: number) => `\x1b[<0;${x + 1};${y + 1}M\x1b[<0;${x + 1};${y + 1}m`;

describe('svc tui rendering under tmux (TERM=tmux-256color, 80x24, tui.json)', () => {
  let db: TestDatabase;
  let daemon: DaemonProcess;
  let tui: TmuxSession;
  let env: Record<string, string>;
  let configHome: string;

  beforeAll(async () => {
    if (!tmuxAvailable()) throw new Error('tmux is required for the TUI end-to-end tests (apt-get install tmux)');
    db = await createTestDatabase('server', 'tui_render_e2e');
    daemon = await startDaemonProcess({ env: { SVC_DATABASE_URL: db.url, SVC_SERVER_SECRET: SECRET } });
    env = svcEnv(daemon);
    expect((await runSvc(['import', join(REPO_ROOT, 'examples', 'demo-backlog.json')], { env })).code).toBe(0);
    configHome = mkdtempSync(join(tmpdir(), 'svc-tui-xdg-'));
    mkdirSync(join(configHome, 'svc'));
    writeFileSync(
      join(configHome, 'svc', 'tui.json'),
      JSON.stringify({ defaultTab: 'blocked', mouse: true, keys: { refresh: 'R' } }),
    );
    tui = new TmuxSession({
      width: 80,
      height: 24,
      command: [process.execPath, SVC_BIN, 'tui', '--project', 'atlas'],
      env: { ...env, TERM: 'tmux-256color', XDG_CONFIG_HOME: configHome },
    });
    tui.start();
    await tui.waitFor('● live');
  });

  afterAll(async () => {
    tui?.kill();
    await daemon?.stop();
    await db?.drop();
  });

  it('should draw no text black, open the configured tab, expire an info line, take clicks and scroll the help', async () => {
    const res = await http<FrontierResultWire>(daemon.url, 'GET', '/v1/charge/frontier?project=atlas', {
      token: daemon.token!,
    });
    const f = res.body;
    // tui.json: the Blocked tab first; whole words on the tabs line at 80 columns
    let screen = await tui.waitFor(`[2 Blocked ${f.blocked.length}]`);
    expect(screen.split('\n')[1]).toContain(`1 Runnable ${f.runnable.length}`);

    // colours from the terminal's real capabilities: grey is bright black or a 256-colour grey, never SGR 30
    const colours = sgrForegrounds(tui.captureEscapes());
    expect(colours.length).toBeGreaterThan(0);
    expect(colours).not.toContain(0);
    expect(colours).toContain(8);

    // tui.json rebinds refresh to R; the info line goes by itself after ~4 s
    tui.keys('R');
    await tui.waitFor('refreshing…');
    await tui.waitFor((s) => !s.includes('refreshing…'), 15_000);

    // mouse: a click on the Runnable tab, then on the third row
    const tabs = tui.lines()[1];
    tui.type(click(tabs.indexOf('1 Runnable') + 1, 1));
    screen = await tui.waitFor(`[1 Runnable ${f.runnable.length}]`);
    const third = screen.split('\n')[3 + 2];
    tui.type(click(10, 3 + 2));
    await tui.waitFor(() => tui.selectedLine().includes(third.trim().split(/\s+/)[1]));

    // the help scrolls to its last section with PgDn, at 80x24
    tui.keys('?');
    await tui.waitFor(/Keys 1-\d+\/\d+/);
    for (let i = 0; i < 10 && !tui.capture().includes('open this project'); i++) {
      const before = tui.capture();
      tui.keys('NPage');
      await tui.waitFor((s) => s !== before, 5_000).catch(() => undefined);
    }
    expect(tui.capture()).toContain('open this project');
    expect(tui.capture()).not.toMatch(/\(asks first\) \(asks first\)/);
    tui.keys('Escape');
    await tui.waitFor((s) => !s.includes('search:'));
  });

  it('should print the settings in effect, and refuse a clashing key with the field named', async () => {
    const printed = await runSvc(['tui', '--print-config'], { env: { ...env, XDG_CONFIG_HOME: configHome } });
    expect(printed.code).toBe(0);
    expect(printed.stdout).toContain(join(configHome, 'svc', 'tui.json'));
    expect(printed.stdout).toMatch(/"refresh": \[\s*"R"\s*\]/);
    expect(printed.stdout).toContain('"defaultTab": "blocked"');

    const clash = mkdtempSync(join(tmpdir(), 'svc-tui-xdg-'));
    mkdirSync(join(clash, 'svc'));
    writeFileSync(join(clash, 'svc', 'tui.json'), JSON.stringify({ keys: { refresh: 'q' } }));
    const refused = await runSvc(['tui', '--print-config'], { env: { ...env, XDG_CONFIG_HOME: clash } });
    expect(refused.code).toBe(78);
    expect(refused.stderr).toContain('tui.json: keys: clash: key "q" is bound to quit (global) and refresh (global)');
  });
});
