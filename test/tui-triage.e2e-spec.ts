import { join } from 'node:path';

import type { FrontierItemWire, FrontierResultWire } from '@app/contracts';
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

// Triage from the keyboard (issue 25): the real `svc tui` under tmux against a real daemon with the demo backlog;
// every change is checked with `svc … --json`. One TUI drives the actions in sequence (each test starts from
// where the last left off); a second one beside it must see the changes through the live stream.

const SECRET = 'e2e-tui-triage-secret-0123456789abcdef01234';

interface ItemJson {
  item_id: string;
  title: string;
  status: string;
  priority: string;
  blocked: 0 | 1;
  blocked_reason: string | null;
  frozen: 0 | 1;
}

describe('svc tui triage (end to end under tmux)', () => {
  let db: TestDatabase;
  let daemon: DaemonProcess;
  let env: Record<string, string>;
  let tui: TmuxSession;
  let other: TmuxSession;
  let created = '';
  let blocker: FrontierItemWire;

  const svcJson = async <T>(args: string[]): Promise<T> => {
    const r = await runSvc([...args, '--json'], { env });
    if (r.code !== 0) throw new Error(`svc ${args.join(' ')}: ${r.stderr}`);
    return parseJson<T>(r);
  };
  const get = (ref: string) => svcJson<ItemJson>(['items', 'get', ref]);
  const api = async <T>(path: string): Promise<T> => {
    const res = await http<T>(daemon.url, 'GET', path, { token: daemon.token! });
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${res.text}`);
    return res.body;
  };
  const frontierNow = () => api<FrontierResultWire>('/v1/charge/frontier?project=atlas');
  // waits until the daemon says so: the TUI's write is asynchronous
  const until = (ref: string, test: (i: ItemJson) => boolean): Promise<ItemJson> =>
    waitFor(
      async () => {
        const i = await get(ref);
        return test(i) && i;
      },
      { timeout: 10_000, what: `${ref} to reach the state` },
    );
  // : jumps to an item in whatever tab it lives
  const jump = async (ref: string) => {
    tui.keys(':');
    await tui.waitFor('┌');
    tui.type(ref);
    tui.keys('Enter');
    await tui.waitFor(() => tui.selectedLine().includes(`${ref} `));
  };
  const closed = () => tui.waitFor((s) => !s.includes('┌'));
  // no dialog left open by an earlier test
  const reset = async () => {
    for (let i = 0; i < 3 && tui.capture().includes('┌'); i++) {
      const before = tui.capture();
      tui.keys('Escape');
      await tui.waitFor((s) => s !== before, 5_000).catch(() => undefined);
    }
  };
  beforeEach(() => reset());

  beforeAll(async () => {
    if (!tmuxAvailable()) throw new Error('tmux is required for the TUI end-to-end tests (apt-get install tmux)');
    db = await createTestDatabase('server', 'tui_triage_e2e');
    daemon = await startDaemonProcess({ env: { SVC_DATABASE_URL: db.url, SVC_SERVER_SECRET: SECRET } });
    env = svcEnv(daemon);
    expect((await runSvc(['import', join(REPO_ROOT, 'examples', 'demo-backlog.json')], { env })).code).toBe(0);
    const start = (name: string) =>
      new TmuxSession({
        width: 120,
        height: 36,
        command: [process.execPath, SVC_BIN, 'tui', '--project', 'atlas'],
        env: { ...env, SVC_HARNESS: `e2e-${name}`, SVC_MODEL: 'tmux' },
      });
    tui = start('a');
    other = start('b');
    tui.start();
    other.start();
    await Promise.all([tui.waitFor('● live'), other.waitFor('● live')]);
  });

  afterAll(async () => {
    tui?.kill();
    other?.kill();
    await daemon?.stop();
    await db?.drop();
  });

  it('should raise the priority with +, and undo it with z after showing the inverse write', async () => {
    const f = await frontierNow();
    const target = f.runnable.find((i) => i.priority === 'medium')!;
    await jump(target.item_id);
    tui.keys('+');
    await until(target.item_id, (i) => i.priority === 'high');
    await tui.waitFor(`priority medium → high`);
    tui.keys('z');
    const screen = await tui.waitFor('Undo');
    expect(screen).toContain(`set the priority of ${target.item_id} to medium`);
    expect(screen).toContain('>[ No ]<');
    tui.keys('y');
    await until(target.item_id, (i) => i.priority === 'medium');
    await tui.waitFor('undone:');
  });

  it('should create an item blocked by a fuzzy-picked one, select it when it arrives, and show it in the other TUI', async () => {
    const f = await frontierNow();
    // a blocker the test can finish later: an issue no deployment flow carries
    for (const candidate of f.runnable.filter((i) => i.workflow_id === 'issue')) {
      const full = await api<{ deployment_flow: string | null }>(`/v1/items/${candidate.item_id}`);
      if (!full.deployment_flow) {
        blocker = candidate;
        break;
      }
    }
    tui.keys('n');
    await tui.waitFor('New item in atlas');
    tui.type('Triage e2e fresh item');
    tui.keys('Enter');
    await tui.waitFor('Priority');
    tui.type('high');
    tui.keys('Enter');
    await tui.waitFor('Blocked by (optional)');
    tui.type(blocker.item_id);
    await tui.waitFor(new RegExp(`›\\s*${blocker.item_id} `));
    tui.keys('Enter');
    await tui.waitFor(() => tui.selectedLine().includes('Triage e2e fresh item'));
    const list = await svcJson<{ items: ItemJson[] }>(['items', 'list', '--project', 'atlas', '--limit', '1000']);
    const item = list.items.find((i) => i.title === 'Triage e2e fresh item')!;
    created = item.item_id;
    expect(item.priority).toBe('high');
    const deps = await svcJson<{ dependencies: { other_item: string; gate_point: string }[] }>([
      'items',
      'dependency',
      'list',
      created,
    ]);
    expect(deps.dependencies).toEqual([
      expect.objectContaining({ other_item: blocker.item_id, gate_point: 'activation' }),
    ]);
    // the other TUI sees it through the live stream, without a key pressed
    other.keys('2');
    await other.waitFor('Triage e2e fresh item', 5_000);
  });

  it('should refuse a status move at the activation gate with the blocker, then allow it once the blocker is done', async () => {
    await jump(created);
    tui.keys('s');
    let screen = await tui.waitFor('gate: check_hard_blocks at activation');
    expect(screen).toMatch(/done\s+terminal: asks first/);
    tui.type('implementing');
    tui.keys('Enter');
    screen = await tui.waitFor('Refused');
    expect(screen).toContain('blocked_by_dependencies');
    expect(screen).toContain(`${blocker.item_id} (${blocker.status}) status:done — would satisfy`);
    expect(screen).toContain(`start first: ${blocker.item_id}`);
    expect((await get(created)).status).not.toBe('implementing');
    tui.keys('Escape');
    await closed();
    const done = await runSvc(['items', 'resolve', blocker.item_id, '--resolution', 'completed'], { env });
    expect(done.stderr).toBe('');
    // once the blocker is done the item leaves the Blocked tab on screen; follow it to Runnable
    await tui.waitFor((screen) => !screen.includes('Triage e2e fresh item'));
    await jump(created);
    await tui.waitFor(/\[1 Runnable \d+\]/);
    tui.keys('s');
    await tui.waitFor('gate: check_hard_blocks at activation');
    tui.type('implementing');
    tui.keys('Enter');
    await until(created, (i) => i.status === 'implementing');
  });

  it('should block with a reason, and freeze after asking', async () => {
    tui.keys('b');
    await tui.waitFor(`Block ${created}`);
    tui.type('waiting on the vendor');
    tui.keys('Enter');
    const blocked = await until(created, (i) => i.blocked === 1);
    expect(blocked.blocked_reason).toBe('waiting on the vendor');
    // the cursor stays in the tab shown, on the next row (issue 39): the blocked item is reached by jumping
    await tui.waitFor(() => !tui.selectedLine().includes(`${created} `));
    await jump(created);
    tui.keys('f');
    const screen = await tui.waitFor(`freeze ${created}`);
    expect(screen).toContain('>[ No ]<');
    tui.keys('y');
    await until(created, (i) => i.frozen === 1);
    await tui.waitFor(`${created} frozen`);
  });

  it('should add a dependency with D and refuse, naming it, the one that closes a cycle', async () => {
    const f = await frontierNow();
    const [a, b] = f.runnable.filter((i) => i.item_id !== blocker.item_id).slice(-2);
    await jump(a.item_id);
    tui.keys('D');
    await tui.waitFor(`${a.item_id} waits on`);
    tui.type(b.item_id);
    await tui.waitFor(new RegExp(`›\\s*${b.item_id} `));
    tui.keys('Enter');
    await tui.waitFor(`${a.item_id} waits on ${b.item_id} at activation`);
    const deps = await svcJson<{ dependencies: { other_item: string }[] }>(['items', 'dependency', 'list', a.item_id]);
    expect(deps.dependencies.map((d) => d.other_item)).toContain(b.item_id);
    await jump(b.item_id);
    tui.keys('D');
    await tui.waitFor(`${b.item_id} waits on`);
    tui.type(a.item_id);
    await tui.waitFor(new RegExp(`›\\s*${a.item_id} `));
    tui.keys('Enter');
    const screen = await tui.waitFor('Refused');
    expect(screen).toMatch(new RegExp(`cycle: .*${a.item_id}.*${b.item_id}|cycle: .*${b.item_id}.*${a.item_id}`));
    tui.keys('Escape');
    await closed();
  });

  it('should say why in the Blocked tab and open the dependency tree with t, enter jumping to a blocker', async () => {
    const f = await frontierNow();
    const waiting = f.blocked.find((i) => i.blocked_by.length > 0 && i.item_id !== created)!;
    const first = waiting.blocked_by[0];
    await jump(waiting.item_id);
    // the "blocked by" column: the first blocker and how many more
    const more = waiting.blocked_by.length > 1 ? ` +${waiting.blocked_by.length - 1}` : '';
    expect(tui.capture()).toContain('blocked by');
    expect(tui.selectedLine()).toContain(`${first}${more}`);
    tui.keys('t');
    await tui.waitFor(`Dependencies of ${waiting.item_id}`);
    const screen = await tui.waitFor(new RegExp(`↑ ${first} .*· unsatisfied`));
    expect(screen).toContain(`● ${waiting.item_id}`);
    tui.type(first);
    tui.keys('Enter');
    await tui.waitFor(() => tui.selectedLine().includes(`${first} `));
    expect(tui.capture()).not.toContain(`Dependencies of`);
  });

  it("should release a session's claim with u after asking", async () => {
    const f = await frontierNow();
    const target = f.runnable[0];
    const session = await http<{ session_id: number }>(daemon.url, 'POST', '/v1/sessions', {
      token: daemon.token!,
      body: { harness: 'e2e', model: 'claim', project: 'atlas' },
    });
    const dispatched = await http(daemon.url, 'POST', '/v1/charge/dispatch', {
      token: daemon.token!,
      body: { session_id: session.body.session_id, item_id: target.item_id },
    });
    expect(dispatched.status).toBe(200);
    await jump(target.item_id);
    await tui.waitFor(() => /@/.test(tui.selectedLine()) || tui.selectedLine().includes('admin#'));
    tui.keys('u');
    const screen = await tui.waitFor('Release claim');
    expect(screen).toContain(`(session ${session.body.session_id}) on ${target.item_id}`);
    tui.keys('y');
    await tui.waitFor(`released the claim on ${target.item_id}`);
    const claims = await api<{ claims: { item_id: string }[] }>('/v1/charge/claims?project=atlas');
    expect(claims.claims.map((c) => c.item_id)).not.toContain(target.item_id);
  });

  it('should change the priority of several marked rows with one confirmation', async () => {
    const f = await frontierNow();
    const [x, y] = f.runnable.filter((i) => i.priority !== 'low').slice(0, 2);
    await jump(x.item_id);
    tui.keys('Space');
    await tui.waitFor('1 marked');
    await jump(y.item_id);
    tui.keys('Space');
    await tui.waitFor('2 marked');
    tui.keys('=');
    await tui.waitFor('Priority of 2 items');
    tui.type('low');
    tui.keys('Enter');
    const screen = await tui.waitFor('2 items:');
    expect(screen).toContain(`set the priority of ${x.item_id} to low`);
    expect(screen).toContain(`set the priority of ${y.item_id} to low`);
    tui.keys('y');
    await until(x.item_id, (i) => i.priority === 'low');
    await until(y.item_id, (i) => i.priority === 'low');
  });

  it('should jump across tabs with :ATL-n and come back with backspace', async () => {
    const f = await frontierNow();
    const frozen = f.frozen.find((i) => i.item_id !== created)!;
    await tui.waitFor((s) => !s.includes('┌'));
    tui.keys('1');
    await tui.waitFor(/\[1 Runnable \d+\]/);
    const from = tui.selectedLine();
    await jump(frozen.item_id);
    await tui.waitFor(/\[3 Frozen \d+\]/);
    tui.keys('BSpace');
    await tui.waitFor(/\[1 Runnable \d+\]/);
    expect(tui.selectedLine()).toBe(from);
  });
});
