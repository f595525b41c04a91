import type { ItemCommentListWire } from '@app/contracts';
import {
  createProject,
  createTestDatabase,
  DaemonProcess,
  insertItems,
  parseJson,
  runSvc,
  startDaemonProcess,
  SVC_BIN,
  svcEnv,
  TestDatabase,
  waitFor,
  withClient,
} from '@app/testing';

import { TmuxSession, tmuxAvailable } from '../apps/tui/src/testing/tmux';

// Comments in the TUI (issue 39 §8): the real `svc tui` under tmux at 80x24 against a real daemon. `m` writes a
// comment over several lines (recorded as the TUI's, path tui); another TUI with the item open shows it live, and
// a comment made with `svc items comment` reaches the open pane the same way (the ItemCommented event).
describe('svc tui comments (end to end under tmux)', () => {
  let db: TestDatabase;
  let daemon: DaemonProcess;
  let env: Record<string, string>;
  let tui: TmuxSession;
  let other: TmuxSession;
  let ref = '';

  const comments = async (): Promise<ItemCommentListWire> => {
    const r = await runSvc(['items', 'comments', ref, '--json'], { env });
    if (r.code !== 0) throw new Error(`svc items comments: ${r.stderr}`);
    return parseJson<ItemCommentListWire>(r);
  };

  beforeAll(async () => {
    if (!tmuxAvailable()) throw new Error('tmux is required for the TUI end-to-end tests (apt-get install tmux)');
    db = await createTestDatabase('server', 'tui_comments_e2e');
    daemon = await startDaemonProcess({ env: { SVC_DATABASE_URL: db.url } });
    env = svcEnv(daemon);
    await withClient(db.url, async (client) => {
      await createProject(client, { id: 'atlas', prefix: 'ATL', policy: { wip_cap: 4 } });
      ref = (await insertItems(client, 'atlas', [{ title: 'Comment on me', status: 'planned', priority: 'high' }]))[0]
        .ref;
    });
    const start = (name: string) =>
      new TmuxSession({
        width: 80,
        height: 24,
        command: [process.execPath, SVC_BIN, 'tui', '--project', 'atlas'],
        env: { ...env, SVC_HARNESS: `e2e-${name}`, SVC_MODEL: 'tmux', TERM: 'tmux-256color' },
      });
    tui = start('a');
    other = start('b');
    tui.start();
    other.start();
    await Promise.all([tui.waitFor('● live'), other.waitFor('● live')]);
    for (const t of [tui, other]) {
      await t.waitFor('Comment on me');
      t.keys('Enter');
      await t.waitFor('not claimed');
    }
  });

  afterAll(async () => {
    tui?.kill();
    other?.kill();
    await daemon?.stop();
    await db?.drop();
  });

  it('should write a comment of two lines with m and C-s, and show it in both TUIs’ detail panes', async () => {
    tui.keys('m');
    await tui.waitFor(`Comment on ${ref}`);
    tui.type('first line of the note');
    tui.keys('Enter');
    tui.type('second line');
    await tui.waitFor('2 lines');
    tui.keys('C-s');
    await tui.waitFor('posted');
    const posted = await waitFor(
      async () => {
        const page = await comments();
        return page.comments.length > 0 && page;
      },
      { timeout: 10_000, what: 'the comment to be stored' },
    );
    expect(posted.comments[0]).toEqual(
      expect.objectContaining({ body: 'first line of the note\nsecond line', author: 'admin', path: 'tui' }),
    );
    for (const t of [tui, other]) {
      const screen = await t.waitFor('Comments (1, newest first');
      expect(screen).toContain('admin');
      await t.waitFor('second line');
    }
  });

  it('should show a comment made with svc items comment in the open panes, newest first', async () => {
    const r = await runSvc(['items', 'comment', ref, 'from the command line'], { env });
    expect(r.code).toBe(0);
    for (const t of [tui, other]) {
      const screen = await t.waitFor('Comments (2, newest first');
      expect(screen.indexOf('from the command line')).toBeLessThan(screen.indexOf('first line of the note'));
    }
  });
});
