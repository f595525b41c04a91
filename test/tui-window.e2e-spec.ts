import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { FrontierResultWire } from '@app/contracts';
import {
  createProject,
  createTestDatabase,
  CreatedItem,
  DaemonProcess,
  insertEdges,
  insertItems,
  startDaemonProcess,
  SVC_BIN,
  svcEnv,
  TestDatabase,
  waitFor,
  withClient,
} from '@app/testing';
import { http } from '@app/testing/machine-auth';

import { TmuxSession, tmuxAvailable } from '../apps/tui/src/testing/tmux';

// Issue 38, item 5: a project too large to hold (here: above SVC_TUI_WINDOW_ABOVE=100 items) is shown from windows
// of the answer the daemon cuts (GET /v1/charge/frontier/window): the whole list's length, the last row reached with
// G, a filter the daemon applies, another list, and a write that shows — under a real tmux against a real daemon.

const ITEMS = 1_000;

describe('svc tui on a project shown from windows of the answer (issue 38)', () => {
  let db: TestDatabase;
  let daemon: DaemonProcess;
  let tui: TmuxSession;
  let items: CreatedItem[];
  let answer: FrontierResultWire;
  const dir = mkdtempSync(join(tmpdir(), 'svc-tui-window-'));
  const statsFile = join(dir, 'stats.json');

  beforeAll(async () => {
    if (!tmuxAvailable()) throw new Error('tmux is required for the TUI end-to-end tests (apt-get install tmux)');
    db = await createTestDatabase('server', 'tui_window');
    daemon = await startDaemonProcess({ env: { SVC_DATABASE_URL: db.url } });
    await withClient(db.url, async (client) => {
      await createProject(client, { id: 'big', prefix: 'BG' });
      items = await insertItems(
        client,
        'big',
        Array.from({ length: ITEMS }, (_, i) => ({
          title: i % 97 === 0 ? `Needle ${i}` : `Hay ${i}`,
          status: 'planned',
          createdAt: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
        })),
      );
      await insertEdges(
        client,
        items.slice(1, 6).map((d) => ({ blocker: items[0].id, dependent: d.id })),
      );
    });
    answer = (
      await http<FrontierResultWire>(daemon.url, 'GET', '/v1/charge/frontier?project=big', { token: daemon.token! })
    ).body;
    tui = new TmuxSession({
      width: 120,
      height: 36,
      command: [process.execPath, SVC_BIN, 'tui', '--project', 'big'],
      env: {
        ...svcEnv(daemon),
        TERM: 'tmux-256color',
        XDG_CONFIG_HOME: dir,
        SVC_TUI_WINDOW_ABOVE: '100',
        SVC_TUI_BENCH_STATS: statsFile,
      },
    });
    tui.start();
    await tui.waitFor('● live');
  });

  afterAll(async () => {
    tui?.kill();
    await daemon?.stop();
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  const selected = (screen: string) => screen.split('\n').find((l) => l.startsWith('›')) ?? '';

  it('should count every row of the answer while it holds a window of it', async () => {
    expect(answer.runnable.length).toBe(ITEMS - 5);
    const conduct = (rows: { adapter: string }[]) => rows.filter((r) => r.adapter === 'conduct').length;
    const suppressed = conduct(answer.runnable) - conduct(answer.conduct_eligible);
    expect(suppressed).toBeGreaterThan(0);
    await tui.waitFor(`runnable ${ITEMS - 5} · blocked 5 · frozen 0  WIP 0/30 · ${suppressed} suppressed`);
    await tui.waitFor(`${answer.runnable[0].item_id} `);
    // the TUI's counters: windows read, never the whole answer
    await waitFor(() => existsSync(statsFile) && JSON.parse(readFileSync(statsFile, 'utf8')).windows >= 1);
    const stats = JSON.parse(readFileSync(statsFile, 'utf8')) as { windows: number; deltas: number };
    expect(stats.deltas).toBe(0);
  });

  it('should reach the last row with G and read the window around it', async () => {
    const last = answer.runnable[answer.runnable.length - 1].item_id;
    tui.keys('G');
    const screen = await tui.waitFor((s) => selected(s).includes(`${last} `));
    expect(screen).toContain(answer.runnable[answer.runnable.length - 2].item_id);
    tui.keys('g');
    await tui.waitFor((s) => selected(s).includes(`${answer.runnable[0].item_id} `));
  });

  it('should filter on the daemon and show how many rows match', async () => {
    const needles = answer.runnable.filter((r) => r.title.startsWith('Needle'));
    expect(needles.length).toBeGreaterThan(5);
    tui.keys('/');
    tui.type('needle');
    await tui.waitFor(`(${needles.length} matches`);
    tui.keys('Enter');
    const screen = await tui.waitFor((s) => selected(s).includes(`${needles[0].item_id} `));
    for (const n of needles.slice(0, 5)) expect(screen).toContain(`${n.item_id} `);
    expect(screen).not.toContain(`Hay `);
    tui.keys('Escape');
    await tui.waitFor((s) => s.includes('Hay '));
  });

  it('should show another list on its tab, and a write to a row it holds', async () => {
    tui.keys('2');
    await tui.waitFor((s) => selected(s).includes(`${answer.blocked[0].item_id} `));
    tui.keys('1');
    const top = answer.runnable[0].item_id;
    await tui.waitFor((s) => selected(s).includes(`${top} `));
    const res = await http(daemon.url, 'PUT', `/v1/items/${top}/fields/title`, {
      token: daemon.token!,
      body: { value: 'Retitled while windowed' },
    });
    expect(res.status).toBe(200);
    await tui.waitFor('Retitled while windowed');
  });
});
