import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
  createTestDatabase,
  DaemonProcess,
  parseJson,
  REPO_ROOT,
  runSvc,
  startDaemonProcess,
  SVC_BIN,
  svcEnv,
  TestDatabase,
  waitFor,
} from '@app/testing';

import { http } from '@app/testing/machine-auth';

import { TmuxSession, tmuxAvailable } from '../apps/tui/src/testing/tmux';

// Issue 39 under a real tmux (TERM=tmux-256color) at 80x24 and 120x36 against a real daemon: rows with adjacent
// emoji keep their last cells (the age's `s`, Blocked's `+1`), `o` hands the item's link to the opener of tui.json,
// a named view switches with M-1, E stores what $EDITOR wrote line for line, and a claim made in the TUI shows the
// person's name and asks on q.

const SECRET = 'e2e-tui-daily-secret-0123456789abcdef0123456';
const PASTED = 'first pasted line\nsecond pasted line\n\nfourth, after a blank one\n';
const TITLES = ['Flag 🇯🇵 release', 'Party 🎉🎉 time', 'Family 👨‍👩‍👧‍👦 plan with a long title to cut'];

describe.each([
  [80, 24],
  [120, 36],
])('svc tui daily habits under tmux at %ix%i (issue 39)', (width, height) => {
  let db: TestDatabase;
  let daemon: DaemonProcess;
  let env: Record<string, string>;
  let tui: TmuxSession;
  let refs: string[] = [];
  let blocked = '';
  const dir = mkdtempSync(join(tmpdir(), 'svc-tui-daily-'));
  const opened = join(dir, 'opened.txt');
  const edited = join(dir, 'edited.txt');

  const svc = async <T>(args: string[]): Promise<T> => {
    const r = await runSvc([...args, '--json'], { env });
    if (r.code !== 0) throw new Error(`svc ${args.join(' ')}: ${r.stderr}`);
    return parseJson<T>(r);
  };

  beforeAll(async () => {
    if (!tmuxAvailable()) throw new Error('tmux is required for the TUI end-to-end tests (apt-get install tmux)');
    db = await createTestDatabase('server', `tui_daily_${width}`);
    daemon = await startDaemonProcess({ env: { SVC_DATABASE_URL: db.url, SVC_SERVER_SECRET: SECRET } });
    env = svcEnv(daemon);
    expect((await runSvc(['import', join(REPO_ROOT, 'examples', 'demo-backlog.json')], { env })).code).toBe(0);
    refs = [];
    for (const title of TITLES) {
      const created = await svc<{ item_id: string }>(
        ['items', 'create', '--project', 'atlas', '--title', title, '--priority', 'high'].concat(
          refs.length === 0 ? ['--set', 'github_issue=acme/app#12'] : [],
        ),
      );
      refs.push(created.item_id);
    }
    // blocked by two: the Blocked tab's column reads "<first> +1"
    const b = await svc<{ item_id: string }>(['items', 'create', '--project', 'atlas', '--title', 'Wait 🎉🎉 🇯🇵']);
    blocked = b.item_id;
    for (const blocker of refs.slice(0, 2)) await svc(['items', 'dependency', 'add', blocked, blocker]);

    // E's editor: writes several lines (a blank one among them) over the file, as a paste into an editor would
    const editor = join(dir, 'editor.sh');
    writeFileSync(editor, `#!/bin/sh\nprintf '%s\\n' "$1" > '${edited}'\nprintf '%s' '${PASTED}' > "$1"\n`);
    chmodSync(editor, 0o755);
    const opener = join(dir, 'opener.sh');
    writeFileSync(opener, `#!/bin/sh\nprintf '%s\\n' "$@" >> '${opened}'\n`);
    chmodSync(opener, 0o755);
    mkdirSync(join(dir, 'svc'));
    writeFileSync(
      join(dir, 'svc', 'tui.json'),
      JSON.stringify({ opener, views: [{ name: 'party', filter: 'Party', tab: 'runnable' }] }),
    );
    tui = new TmuxSession({
      width,
      height,
      command: [process.execPath, SVC_BIN, 'tui', '--project', 'atlas'],
      env: {
        ...env,
        TERM: 'tmux-256color',
        XDG_CONFIG_HOME: dir,
        SVC_DISPATCH_COMMAND: 'true',
        SVC_TUI_HEARTBEAT_MS: '1500',
        EDITOR: editor,
      },
    });
    tui.start();
    await tui.waitFor('● live');
  });

  afterAll(async () => {
    tui?.kill();
    await daemon?.stop();
    await db?.drop();
  });

  const rowOf = (screen: string, ref: string) => screen.split('\n').find((l) => l.includes(`${ref} `)) ?? '';

  it('should draw emoji rows whole: the age keeps its unit, Blocked its +1', async () => {
    // the new items are at the bottom of the frontier order: filter them in
    tui.keys('/');
    tui.type('🎉');
    await tui.waitFor('/🎉');
    tui.keys('Enter');
    let screen = await tui.waitFor((s) => rowOf(s, refs[1]).length > 0 && !s.includes('enter keeps'));
    // an age is a number and a unit (`0s`, `12s`, `1m`); a cut one is a bare number at the row's end
    expect(rowOf(screen, refs[1]).trimEnd()).toMatch(/\d+[smhd]$/);
    tui.keys('Escape');
    await tui.waitFor((s) => rowOf(s, refs[0]).length > 0);
    for (const ref of [refs[0], refs[2]]) {
      tui.keys(':');
      await tui.waitFor('┌');
      tui.type(ref);
      tui.keys('Enter');
      // the palette closed and the row drawn
      screen = await tui.waitFor((s) => !s.includes('┌') && tui.selectedLine().includes(`${ref} `));
      const row = tui.selectedLine().trimEnd();
      expect(row).toMatch(/\d+[smhdw](\s+.*)?$/);
      expect(row).not.toMatch(/\s\d+$/);
    }
    tui.keys('2');
    screen = await tui.waitFor((s) => rowOf(s, blocked).length > 0);
    expect(rowOf(screen, blocked)).toMatch(new RegExp(`${refs[0]} \\+1`));
    tui.keys('1');
    await tui.waitFor(/\[1 Run/);
  });

  it("should hand the item's link to the opener with o", async () => {
    tui.keys(':');
    await tui.waitFor('┌');
    tui.type(refs[0]);
    tui.keys('Enter');
    await tui.waitFor((s) => !s.includes('┌') && tui.selectedLine().includes(`${refs[0]} `));
    tui.keys('o');
    await waitFor(() => existsSync(opened), { timeout: 15_000, what: 'the opener to run' });
    expect(readFileSync(opened, 'utf8')).toBe('https://github.com/acme/app/issues/12\n');
  });

  it('should switch to the named view with M-1', async () => {
    tui.keys('M-1');
    const screen = await tui.waitFor('view party');
    expect(rowOf(screen, refs[1])).not.toBe('');
    expect(rowOf(screen, refs[0])).toBe('');
    tui.keys('Escape');
    await tui.waitFor((s) => rowOf(s, refs[0]).length > 0);
  });

  it('should store multi-line text written in $EDITOR through E, line for line', async () => {
    tui.keys(':');
    await tui.waitFor('┌');
    tui.type(refs[2]);
    tui.keys('Enter');
    await tui.waitFor((s) => !s.includes('┌') && tui.selectedLine().includes(`${refs[2]} `));
    tui.keys('E');
    await tui.waitFor(`${refs[2]}: body written`);
    await waitFor(() => existsSync(edited), { what: 'the editor to run' });
    // the editor got the file's path and the terminal, with bracketed paste turned off around it
    expect(readFileSync(edited, 'utf8')).toMatch(/\.md$/m);
    const body = await runSvc(['items', 'get', refs[2], 'body'], { env });
    expect(body.code).toBe(0);
    expect(body.stdout).toContain(PASTED.trimEnd());
  });

  it("should hold a TUI claim by the person's name, renew it while open, and release it on q after asking", async () => {
    interface Claim {
      item_id: string;
      session_id: number;
      harness: string;
      actor: string | null;
      expires_at: string;
    }
    const claims = async () =>
      (await http<{ claims: Claim[] }>(daemon.url, 'GET', '/v1/charge/claims?project=atlas', { token: daemon.token! }))
        .body.claims;
    tui.keys('c');
    await tui.waitFor('>[ No ]<');
    tui.keys('y');
    await tui.waitFor('charge: dispatched');
    const [claim] = await waitFor(async () => {
      const list = await claims();
      return list.length > 0 && list;
    });
    expect(claim).toMatchObject({ harness: 'tui' });
    tui.keys('Escape');
    // the heartbeat renews the lease while the TUI is open
    await waitFor(async () => (await claims())[0]?.expires_at !== claim.expires_at, {
      timeout: 20_000,
      what: 'the heartbeat to renew the claim',
    });
    tui.keys(':');
    await tui.waitFor('┌');
    tui.type(claim.item_id);
    tui.keys('Enter');
    await tui.waitFor((s) => !s.includes('┌') && tui.selectedLine().includes(`${claim.item_id} `));
    tui.keys('Enter');
    await tui.waitFor(new RegExp(`claimed by ${claim.actor} #${claim.session_id}`));
    tui.keys('Escape');
    // an Escape with a key right behind it reads as Alt+key: q follows once the detail has closed
    await tui.waitFor((s) => !s.includes('Detail'));
    tui.keys('q');
    const asked = await tui.waitFor(`You hold a claim: ${claim.item_id}.`);
    expect(asked).toContain('lapse');
    tui.keys('y');
    await tui.waitFor('[exited 0]');
    expect(await claims()).toEqual([]);
  });
});
