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

import { TmuxSession, tmuxAvailable } from '../apps/tui/src/testing/tmux';

// The record of every write in the TUI (issue 36): a priority change made with the command line shows in the
// running TUI's Events tab with its actor and before → after, and in the item's detail pane and h list. The real
// `svc tui` under tmux (TERM=tmux-256color) against a real daemon; the screen is polled, never slept on.

const SECRET = 'e2e-tui-history-secret-0123456789abcdef0123';

describe('svc tui: the audit log and the item history (end to end under tmux)', () => {
  let db: TestDatabase;
  let daemon: DaemonProcess;
  let env: Record<string, string>;
  let tui: TmuxSession;

  beforeAll(async () => {
    if (!tmuxAvailable()) throw new Error('tmux is required for the TUI end-to-end tests (apt-get install tmux)');
    db = await createTestDatabase('server', 'tui_history_e2e');
    daemon = await startDaemonProcess({ env: { SVC_DATABASE_URL: db.url, SVC_SERVER_SECRET: SECRET } });
    env = svcEnv(daemon);
    expect((await runSvc(['import', join(REPO_ROOT, 'examples', 'demo-backlog.json')], { env })).code).toBe(0);
    tui = new TmuxSession({
      width: 120,
      height: 36,
      command: [process.execPath, SVC_BIN, 'tui', '--project', 'atlas'],
      env: { ...env, TERM: 'tmux-256color' },
    });
    tui.start();
    await tui.waitFor('● live');
  });

  afterAll(async () => {
    tui?.kill();
    await daemon?.stop();
    await db?.drop();
  });

  it('should show a priority change from the command line with its actor and before → after, live', async () => {
    const res = await http<FrontierResultWire>(daemon.url, 'GET', '/v1/charge/frontier?project=atlas', {
      token: daemon.token!,
    });
    const target = res.body.runnable.find((i) => i.priority === 'medium')!;
    const ref = target.item_id;
    tui.keys('5');
    await tui.waitFor('[5 Events]');

    const updated = await runSvc(['items', 'update', ref, 'priority', 'high'], { env });
    expect(updated.code).toBe(0);
    // the running TUI follows the record: the row names the admin and the values (no key pressed)
    const row = new RegExp(`${ref}\\s+admin\\s.*priority: medium → high`);
    const screen = await tui.waitFor(row);
    expect(screen).not.toContain('(no actor)');
    // newest first, at the top, selected
    expect(tui.selectedLine()).toMatch(row);

    // the item's detail pane: its History section, and h for the whole list
    tui.keys(':');
    await tui.waitFor('┌');
    tui.type(ref);
    tui.keys('Enter');
    await tui.waitFor(() => tui.selectedLine().includes(`${ref} `));
    tui.keys('Enter');
    await tui.waitFor('History (h: all)');
    await tui.waitFor(/admin via cli\s+priority: medium → high/);
    tui.keys('h');
    await tui.waitFor(`History of ${ref}`);
    await tui.waitFor(/admin\s+cli\s+priority: medium → high/);
    tui.keys('Escape');
    await tui.waitFor((s) => !s.includes(`History of ${ref}`));
  });
});
