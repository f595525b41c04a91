import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { ExplainResponse, FrontierResultWire, ScheduleResponse } from '@app/contracts';
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

// The real TUI under tmux against a real daemon with the demo backlog, driven key by key as a user would.
// tmux is required (CI has it): without it these tests fail with that message instead of passing silently.

const TUI_ENTRY = join(REPO_ROOT, 'dist', 'apps', 'tui', 'src', 'main.js');
const SECRET = 'e2e-tui-secret-0123456789abcdef0123456789';
const CODE = /^\s+([BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4})\s*$/m;

interface Connect {
  child: ChildProcess;
  code: string;
  output: () => string;
  exited: Promise<number | null>;
}

// A real `svc connect` polling the daemon, as on a new machine; resolves once it shows its code.
function startConnect(url: string, machineName: string): Promise<Connect> {
  const configDir = mkdtempSync(join(tmpdir(), 'svc-tui-connect-'));
  const child = spawn(process.execPath, [SVC_BIN, 'connect', url, '--machine-name', machineName], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, SVC_CONFIG_DIR: configDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`svc connect showed no code:\n${out}`)), 20_000);
    const check = () => {
      const match = CODE.exec(out);
      if (!match) return;
      clearTimeout(timer);
      child.stdout!.off('data', check);
      resolve({ child, code: match[1], output: () => out, exited });
    };
    child.stdout!.on('data', check);
  });
}

describe('svc tui (end to end under tmux)', () => {
  let db: TestDatabase;
  let daemon: DaemonProcess;
  let tui: TmuxSession;
  let env: Record<string, string>;
  let dispatchLog: string;
  let viaSvc = false;
  const connects: Connect[] = [];

  const api = async <T>(path: string): Promise<T> => {
    const res = await http<T>(daemon.url, 'GET', path, { token: daemon.token! });
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${res.text}`);
    return res.body;
  };

  // back to a known place: no dialog, no filter, no detail pane, the Runnable tab
  const home = async () => {
    // one key at a time: escape followed at once by another key would read as a meta chord
    for (let i = 0; i < 3; i++) {
      const screen = tui.capture();
      if (!screen.includes('Detail') && !/^ \/\S/m.test(screen) && !screen.includes('┌')) break;
      tui.keys('Escape');
      await tui.waitFor((s) => s !== screen, 5_000).catch(() => undefined);
    }
    tui.keys('1');
    await tui.waitFor((s) => /\[1 Runnable \d+\]/.test(s) && !s.includes('Detail'));
  };
  const machineRow = (name: string) => new RegExp(`^[ ›]${name}`, 'm');

  beforeAll(async () => {
    if (!tmuxAvailable()) throw new Error('tmux is required for the TUI end-to-end tests (apt-get install tmux)');
    db = await createTestDatabase('server', 'tui_e2e');
    daemon = await startDaemonProcess({ env: { SVC_DATABASE_URL: db.url, SVC_SERVER_SECRET: SECRET } });
    env = svcEnv(daemon);
    const imported = await runSvc(['import', join(REPO_ROOT, 'examples', 'demo-backlog.json')], { env });
    expect(imported.code).toBe(0);
    dispatchLog = join(mkdtempSync(join(tmpdir(), 'svc-tui-dispatch-')), 'dispatched.log');
    writeFileSync(dispatchLog, '');
    const svcTui = await runSvc(['tui', '--help'], { env });
    // the real `svc tui` once the command line has it, else the TUI entry itself
    viaSvc = /--read-only/.test(svcTui.stdout);
    const command = viaSvc ? [process.execPath, SVC_BIN, 'tui'] : [process.execPath, TUI_ENTRY];
    tui = new TmuxSession({
      width: 120,
      height: 36,
      command: [...command, '--project', 'atlas'],
      env: {
        ...env,
        SVC_DISPATCH_COMMAND: `echo {ref} {adapter} {entrypoint} >> ${dispatchLog}`,
        SVC_HARNESS: 'e2e',
        SVC_MODEL: 'tmux',
      },
    });
    tui.start();
    await tui.waitFor('● live');
  });

  afterAll(async () => {
    tui?.kill();
    for (const c of connects) c.child.kill();
    await daemon?.stop();
    await db?.drop();
  });

  it('should browse the runnable, blocked and frozen buckets', async () => {
    const f = await api<FrontierResultWire>('/v1/charge/frontier?project=atlas');
    let screen = await tui.waitFor(f.runnable[0].item_id);
    expect(screen).toContain(`runnable ${f.runnable.length} · blocked ${f.blocked.length} · frozen ${f.frozen.length}`);
    expect(screen).toContain(`WIP ${f.wip_active}/${f.wip_cap}`);
    expect(tui.selectedLine()).toContain(f.runnable[0].item_id);
    tui.keys('2');
    screen = await tui.waitFor(`[2 Blocked ${f.blocked.length}]`);
    expect(screen).toContain(f.blocked[0].title.slice(0, 12));
    tui.keys(']');
    screen = await tui.waitFor(`[3 Frozen ${f.frozen.length}]`);
    for (const item of f.frozen) expect(screen).toContain(item.item_id);
    tui.keys('[', '[');
    await tui.waitFor(`[1 Runnable ${f.runnable.length}]`);
    tui.keys('G');
    await tui.waitFor(() => tui.selectedLine().includes(f.runnable[f.runnable.length - 1].item_id));
    tui.keys('g');
    await tui.waitFor(() => tui.selectedLine().includes(f.runnable[0].item_id));
  });

  it('should open a blocked item and show its reasons and critical path', async () => {
    await home();
    const f = await api<FrontierResultWire>('/v1/charge/frontier?project=atlas');
    let chosen: ExplainResponse | null = null;
    for (const item of f.blocked) {
      const ex = await api<ExplainResponse>(`/v1/frontier/explain/${item.item_id}`);
      if (ex.critical_path.length > 1 && ex.unblock_roots.length > 0) {
        chosen = ex;
        break;
      }
    }
    expect(chosen).not.toBeNull();
    const ref = chosen!.item_id;
    const row = f.blocked.find((i) => i.item_id === ref)!;
    tui.keys('2');
    await tui.waitFor('[2 Blocked');
    await tui.select(ref);
    tui.keys('Enter');
    // the same direction as `svc frontier explain`: the item, then what it waits on
    const screen = await tui.waitFor(`critical path: ${chosen!.critical_path.join(' ← ')}`);
    expect(screen).toContain('Blocked by');
    expect(screen).toContain(`reason: ${row.blocked_reasons[0].slice(0, 20)}`);
    expect(screen).toContain(`start first: ${chosen!.unblock_roots.join(', ')}`);
    // the edges section lists every edge in and out; a small pane scrolls to it with J
    for (let i = 0; i < 8 && !tui.capture().includes('Depends on (edges in:'); i++) {
      const before = tui.capture();
      tui.keys('J');
      await tui.waitFor((s) => s !== before, 5_000).catch(() => undefined);
    }
    await tui.waitFor(/Depends on \(edges in: [1-9]/);
    tui.keys('Escape');
    await tui.waitFor((s) => !s.includes('critical path:'));
  });

  it('should filter the list as the user types', async () => {
    await home();
    const f = await api<FrontierResultWire>('/v1/charge/frontier?project=atlas');
    const needle = 'invoice';
    const expected = f.runnable.filter((i) => `${i.item_id} ${i.title}`.toLowerCase().includes(needle));
    tui.keys('/');
    tui.type(needle);
    const screen = await tui.waitFor(`/${needle}`);
    await tui.waitFor(`(${expected.length} match`);
    for (const i of expected) expect(screen).toContain(i.item_id);
    for (const i of f.runnable.filter((r) => !expected.includes(r)))
      expect(screen).not.toMatch(new RegExp(`${i.item_id}\\s`));
    tui.keys('Escape');
    await tui.waitFor((s) => !s.includes(`/${needle}`) && s.includes(f.runnable[0].item_id));
  });

  it('should record operator_cancelled when the charge dialog is answered no, and claim nothing', async () => {
    await home();
    const schedule = await api<ScheduleResponse>('/v1/charge/schedule?project=atlas');
    const top = schedule.steps[0];
    tui.keys('c');
    const screen = await tui.waitFor('>[ No ]<');
    expect(screen).toContain(`Dispatch ${top.item_id}`);
    expect(screen).toMatch(new RegExp(`adapter\\s+${top.adapter}`));
    expect(screen).toContain(top.entrypoint!);
    tui.keys('n');
    await tui.waitFor(`charge: operator_cancelled (${top.item_id})`);
    const events = await api<{
      events: { name: string; item_id: string; payload: { detail: Record<string, unknown> } }[];
    }>('/v1/events?event_name=ChargeDecisionMade&limit=5');
    expect(events.events[0]).toMatchObject({ item_id: top.item_id });
    expect(events.events[0].payload.detail).toMatchObject({ reason: 'operator_cancelled', dispatched: false });
    const claims = await api<{ claims: { item_id: string }[] }>('/v1/charge/claims?project=atlas');
    expect(claims.claims.map((c) => c.item_id)).not.toContain(top.item_id);
    expect(readFileSync(dispatchLog, 'utf8')).toBe('');
  });

  it('should claim and dispatch on y, like svc charge --yes, and show the holder and the event', async () => {
    await home();
    const schedule = await api<ScheduleResponse>('/v1/charge/schedule?project=atlas');
    const top = schedule.steps[0];
    tui.keys('c');
    await tui.waitFor(`Dispatch ${top.item_id}`);
    await tui.waitFor('>[ No ]<');
    tui.keys('y');
    await tui.waitFor(`charge: dispatched ${top.item_id}`);
    // the dispatch in a dialog, not only a toast: item, session, claim expiry, entrypoint
    const shown = await tui.waitFor(`Dispatched ${top.item_id}`);
    expect(shown).toMatch(/session\s+#\d+/);
    expect(shown).toContain('claim ends');
    expect(shown).toContain(top.entrypoint!);
    tui.keys('Escape');
    await tui.waitFor((s) => !s.includes(`Dispatched ${top.item_id}`));
    const events = await api<{ events: { item_id: string; payload: { detail: Record<string, unknown> } }[] }>(
      '/v1/events?event_name=ChargeDecisionMade&limit=5',
    );
    expect(events.events[0]).toMatchObject({ item_id: top.item_id });
    expect(events.events[0].payload.detail).toMatchObject({ reason: 'dispatched', dispatched: true });
    const claims = await api<{ claims: { item_id: string; harness: string; session_id: number }[] }>(
      '/v1/charge/claims?project=atlas',
    );
    const claim = claims.claims.find((c) => c.item_id === top.item_id);
    expect(claim).toMatchObject({ harness: 'e2e' });
    expect(readFileSync(dispatchLog, 'utf8')).toBe(`${top.item_id} ${top.adapter} ${top.entrypoint}\n`);
    // the claim holder column follows the claim notice, without a key press
    await tui.waitFor(new RegExp(`${top.item_id}.*#${claim!.session_id}`));
    tui.keys('5');
    await tui.waitFor(/\s+atlas\s+ChargeDecisionMade dispatched · dispatched/);
    await tui.waitFor(/\s+atlas\s+ChargeDecisionMade operator_cancelled/);
    tui.keys('1');
  });

  it('should approve a machine request by its typed code while svc connect polls, refusing a code of another request', async () => {
    const first = await startConnect(daemon.url, 'tui approve box');
    connects.push(first);
    const other = await startConnect(daemon.url, 'tui other box');
    connects.push(other);
    await tui.waitFor('! 2 machine requests');
    tui.keys('4');
    await tui.waitFor('tui approve box');
    await tui.waitFor('tui other box');
    await tui.select('tui approve box');
    tui.keys('a');
    await tui.waitFor('Approve the request of "tui approve box"');
    tui.type(other.code);
    tui.keys('Enter');
    await tui.waitFor('belongs to another request');
    for (let i = 0; i < 9; i++) tui.keys('BSpace');
    await tui.waitFor((s) => /code: ▏/.test(s));
    tui.type(first.code.toLowerCase());
    tui.keys('Enter');
    await tui.waitFor('approved tui approve box');
    expect(await first.exited).toBe(0);
    expect(first.output()).toContain('connected to');
    await tui.waitFor((s) => !machineRow('tui approve box').test(s) && machineRow('tui other box').test(s));
  });

  // issue 26: a request nobody expected is denied without the code its machine shows
  it('should deny a machine request after a confirmation, without its code', async () => {
    const other = connects[1];
    await tui.select('tui other box');
    tui.keys('d');
    await tui.waitFor('Deny "tui other box"?');
    expect(tui.capture()).toContain('>[ No ]<');
    expect(tui.capture()).not.toContain('code:');
    tui.keys('y');
    await tui.waitFor('denied tui other box');
    expect(await other.exited).not.toBe(0);
    expect(other.output()).toMatch(/denied/i);
    await tui.waitFor((s) => !machineRow('tui other box').test(s) && s.includes('no pending machine requests'));
  });

  it('should list connected machines and revoke one after a confirmation', async () => {
    tui.keys('m');
    await tui.waitFor(/^ machine\s+machine id\s+person/m);
    await tui.select('tui approve box');
    tui.keys('x');
    await tui.waitFor('Revoke the credential of "tui approve box"?');
    expect(tui.capture()).toContain('>[ No ]<');
    tui.keys('y');
    await tui.waitFor('revoked 1 credential of tui approve box');
    await tui.waitFor((s) => !machineRow('tui approve box').test(s));
    const machines = await api<{ machines: { machine_name: string; revoked_at: string | null }[] }>(
      '/v1/machines?include_revoked=true',
    );
    expect(machines.machines.find((m) => m.machine_name === 'tui approve box')?.revoked_at).not.toBeNull();
    tui.keys('m');
    await tui.waitFor('no pending machine requests');
  });

  it('should show an item created by the CLI without a key press', async () => {
    await home();
    tui.keys('1');
    await tui.waitFor('[1 Runnable');
    const created = await runSvc(
      ['items', 'create', '--project', 'atlas', '--title', 'Live from the command line', '--priority', 'high'],
      { env },
    );
    expect(created).toMatchObject({ code: 0 });
    await tui.waitFor('Live from the command line', 10_000);
  });

  // issue 26: the TUI's own reads hidden, an item change made elsewhere shown, the / filter and the payload view;
  // issue 36: the change is the audit log's line, with its actor and before → after
  it('should show item changes made elsewhere on the Events tab, filter it and open a payload', async () => {
    await home();
    const f = await api<FrontierResultWire>('/v1/charge/frontier?project=atlas');
    // an item whose priority the update changes (a write that changes nothing records nothing)
    const target = f.runnable.filter((i) => i.priority !== 'low').pop()!;
    const ref = target.item_id;
    tui.keys('5');
    await tui.waitFor(/^ time\s+item\s+who\s+via\s+project\s+change/m);
    expect(tui.capture()).not.toContain('FrontierComputed');
    expect(await runSvc(['items', 'update', ref, 'priority', 'low'], { env })).toMatchObject({ code: 0 });
    const changed = new RegExp(`${ref}\\s+admin\\s+cli\\s+atlas\\s+priority: ${target.priority} → low`);
    await tui.waitFor(changed, 10_000);
    tui.keys('/');
    tui.type('ChargeDecision');
    await tui.waitFor('/ChargeDecision');
    await tui.waitFor((s) => !changed.test(s) && s.includes('ChargeDecisionMade'));
    tui.keys('Enter', 'Enter');
    await tui.waitFor('"reason":');
    tui.keys('Escape');
    await tui.waitFor((s) => !s.includes('"reason":'));
    tui.keys('Escape');
    await tui.waitFor((s) => changed.test(s) && !s.includes('/ChargeDecision'));
    tui.keys('f');
    await tui.waitFor('FrontierComputed');
    tui.keys('f', '1');
  });

  it('should show a deployment halt in the detail pane, approve it there after a dialog, refuse a second approval and clear once the usher re-runs', async () => {
    await home();
    const token = daemon.token!;
    const flow = await http(daemon.url, 'POST', '/v1/deployments/flows', {
      token,
      body: {
        id: 'tui-ship',
        project: 'atlas',
        name: 'TUI ship',
        stages: ['build', { name: 'production', environment: 'production', approval: true }],
      },
    });
    expect(flow.status).toBe(201);
    const created = await http<{ item_id: string }>(daemon.url, 'POST', '/v1/items', {
      token,
      body: { project: 'atlas', title: 'Ship the approval pane', priority: 'high', deployment_flow: 'tui-ship' },
    });
    expect(created.status).toBe(201);
    const ref = created.body.item_id;
    const run = await http<{ id: string }>(daemon.url, 'POST', '/v1/deployments/runs', {
      token,
      body: { project: 'atlas', flow_id: 'tui-ship', environment: 'production', items: [ref], stage_index: 1 },
    });
    expect(run.status).toBe(201);
    const halted = await http<{ status: string }>(daemon.url, 'PATCH', `/v1/deployments/runs/${run.body.id}`, {
      token,
      body: { stage_index: 2 },
    });
    expect(halted.body.status).toBe('halted');

    tui.keys('/');
    tui.type('approval pane');
    await tui.waitFor('(1 match');
    tui.keys('Enter');
    await tui.waitFor(() => tui.selectedLine().includes(ref));
    tui.keys('Enter');
    for (let i = 0; i < 8 && !tui.capture().includes('HALTED'); i++) {
      const before = tui.capture();
      tui.keys('J');
      await tui.waitFor((s) => s !== before, 5_000).catch(() => undefined);
    }
    let screen = await tui.waitFor('HALTED: awaiting approval for production');
    expect(screen).toContain('Deployment pipeline (flow TUI ship)');
    expect(screen).toContain('deploy_stage: awaiting-approval');

    // the dialog opens with No focused; enter answers it: nothing is recorded
    tui.keys('A');
    screen = await tui.waitFor('Approve deployment stage');
    expect(screen).toContain('>[ No ]<');
    tui.keys('Enter');
    await tui.waitFor((s) => !s.includes('Approve deployment stage'));
    const before = await api<{ events: { name: string }[] }>(`/v1/events?item=${ref}&event_name=DeploymentApproved`);
    expect(before.events).toHaveLength(0);

    tui.keys('A');
    await tui.waitFor('Approve deployment stage');
    tui.keys('y');
    await tui.waitFor(`approved production for ${ref}`);
    const after = await api<{ events: { name: string; payload: Record<string, unknown> }[] }>(
      `/v1/events?item=${ref}&event_name=DeploymentApproved`,
    );
    expect(after.events).toHaveLength(1);
    expect(after.events[0].payload).toMatchObject({ stage: 'production', run_id: run.body.id });

    // approving again before the usher re-runs: the daemon's 409, in words
    tui.keys('A');
    await tui.waitFor('Approve deployment stage');
    tui.keys('y');
    await tui.waitFor(/error: approve \S+: already_approved: production of run/);

    // the usher step re-runs: the halt clears in the pane without a key press
    const resumed = await http<{ status: string }>(daemon.url, 'PATCH', `/v1/deployments/runs/${run.body.id}`, {
      token,
      body: { stage_index: 2 },
    });
    expect(resumed.body.status).not.toBe('halted');
    screen = await tui.waitFor((s) => !s.includes('HALTED') && s.includes('deploy_stage: production'), 10_000);
    expect(screen).toContain(`run ${run.body.id}`);
    expect(screen).toContain('stages: ✓ build › ▶ production (approval)');
  });

  it('should show reconnecting when the daemon stops and recover, keeping the selection, when it is back', async () => {
    await home();
    tui.keys('g', 'j', 'j');
    // the third row, once all three keys are drawn (reading the selection earlier raced them)
    await tui.waitFor(() => /^›\s*3\s/.test(tui.selectedLine()));
    const selected = /^›\s*\d+\s+(\S+)/.exec(tui.selectedLine())![1];
    const port = daemon.port;
    await daemon.stop();
    await tui.waitFor(/reconnecting|offline/);
    daemon = await startDaemonProcess({
      port,
      configDir: daemon.configDir,
      env: { SVC_DATABASE_URL: db.url, SVC_SERVER_SECRET: SECRET },
    });
    await tui.waitFor('● live', 60_000);
    expect(tui.selectedLine()).toContain(selected);
    // live again: a change made now still arrives without a key press
    await runSvc(['items', 'create', '--project', 'atlas', '--title', 'After the restart', '--priority', 'high'], {
      env,
    });
    await tui.waitFor('After the restart', 20_000);
  });

  it('should re-lay out at 80x24 with everything reachable', async () => {
    await home();
    tui.resize(80, 24);
    // whole tab labels at 80 columns (issue 26: they were cut to Runna/Block/Froze)
    await tui.waitFor((s) => /\[1 Runnable \d+\]/.test(s) && s.trimEnd().split('\n').length <= 24);
    tui.keys('Enter');
    const screen = await tui.waitFor('Detail');
    const lines = screen.split('\n');
    expect(lines.findIndex((l) => l.includes('Detail'))).toBeGreaterThan(lines.findIndex((l) => l.startsWith('›')));
    tui.keys('Escape');
    await tui.waitFor((s) => !s.includes('Detail'));
    tui.resize(120, 36);
    await tui.waitFor(/\[1 Runnable \d+\]/);
  });

  it('should quit on q, leave the terminal clean and say the daemon keeps running', async () => {
    tui.keys('q');
    // the charge above left a claim of this TUI's session: q asks first (issue 39); n keeps it
    const asked = await tui.waitFor((s) => s.includes('[exited 0]') || s.includes('You hold a claim'));
    if (!asked.includes('[exited 0]')) {
      expect(asked).toContain('release your claims?');
      tui.keys('n');
    }
    const screen = await tui.waitFor('[exited 0]');
    const left = tui.history();
    // svc tui speaks of the daemon only when svc up started it; the bare entry always says it keeps running
    if (!viaSvc) expect(left).toContain('keeps running; `svc down`');
    expect(screen).not.toContain('Runnable');
    expect(screen).not.toContain('svc tui crashed');
    expect(tui.display('#{alternate_on}')).toBe('0');
    expect(tui.display('#{cursor_flag}')).toBe('1');
    expect(tui.display('#{mouse_any_flag}')).toBe('0');
  });
});

describe('svc tui without a daemon', () => {
  it('should show a screen saying how to start one, and quit cleanly on q', async () => {
    if (!tmuxAvailable()) throw new Error('tmux is required for the TUI end-to-end tests (apt-get install tmux)');
    const configDir = mkdtempSync(join(tmpdir(), 'svc-tui-nodaemon-'));
    const session = new TmuxSession({
      width: 80,
      height: 24,
      command: [process.execPath, TUI_ENTRY],
      env: { SVC_URL: 'http://127.0.0.1:9', SVC_CONFIG_DIR: configDir },
    });
    try {
      session.start();
      const screen = await session.waitFor('No svc daemon at http://127.0.0.1:9');
      expect(screen).toContain('svc up');
      expect(screen).not.toMatch(/at .*\.js:\d+/);
      session.keys('q');
      await session.waitFor('[exited 0]');
      // no daemon answered, so none is said to keep running
      expect(session.history()).not.toContain('keeps running');
      expect(session.display('#{alternate_on}')).toBe('0');
    } finally {
      session.kill();
    }
  });
});
