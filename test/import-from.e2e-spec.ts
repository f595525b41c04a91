import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { TmuxSession, tmuxAvailable } from '../apps/tui/src/testing/tmux';
import {
  beadsFixture,
  bigBeadsFixture,
  createTestDatabase,
  DaemonProcess,
  neutralCwd,
  runSvc,
  startDaemonProcess,
  SVC_BIN,
  svcEnv,
  taskwarriorFixture,
  TestDatabase,
  toJsonl,
  toTaskExport,
} from '@app/testing';

// Issue 41: `svc import --from beads|taskwarrior` converts in the command line and sends svc's own document through
// POST /v1/import; `svc graph` draws the dependency graph. The real daemon and the built `svc`.

type Json = Record<string, unknown>;

describe('import from other trackers, and the graph', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-import-from-'));
  let db: TestDatabase;
  let daemon: DaemonProcess;

  const svc = (...args: string[]) => runSvc(args, { env: svcEnv(daemon), timeoutMs: 180_000 });
  async function ok<T = Json>(...args: string[]): Promise<T> {
    const result = await svc(...args, '--json');
    if (result.code !== 0) throw new Error(`svc ${args.join(' ')} failed: ${result.stderr}`);
    return JSON.parse(result.stdout) as T;
  }
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  // external id -> ref, from the project's export
  async function refsOf(project: string): Promise<Map<string, Json>> {
    const doc = await ok<{ items: (Json & { sections: Json[] })[] }>('export', '--project', project);
    const out = new Map<string, Json>();
    for (const item of doc.items) {
      const section = item.sections.find((s) => s.section_name === 'imported-from');
      out.set((section!.content as string).split('\n')[0].split(' ')[1], item);
    }
    return out;
  }
  async function runnable(project: string): Promise<Set<string>> {
    const list = await ok<{ ready_rows: { item_id: string }[] }>(
      'frontier',
      'list',
      '--project',
      project,
      '--only',
      'ready',
    );
    return new Set(list.ready_rows.map((r) => r.item_id));
  }

  beforeAll(async () => {
    db = await createTestDatabase('server', 'import_from');
    // the default limits: a few thousand issues make a document over SVC_BODY_LIMIT (1 MiB), which POST /v1/import
    // takes under its own SVC_IMPORT_BODY_LIMIT (32 MiB)
    daemon = await startDaemonProcess({ env: { SVC_DATABASE_URL: db.url } });
  });

  afterAll(async () => {
    await daemon?.stop();
    await db?.drop();
  });

  it('should import a beads file whose runnable open items are what bd ready lists', async () => {
    const path = file('issues.jsonl', toJsonl(beadsFixture()));
    const dry = await ok('import', '--from', 'beads', path, '--project', 'bring', '--prefix', 'BR', '--dry-run');
    expect(dry).toMatchObject({ dry_run: true, new_project: true, items: 12, created: 12, imported: null });
    expect((await svc('export', '--project', 'bring', '--json')).code).not.toBe(0);

    const summary = await ok('import', '--from', 'beads', path, '--project', 'bring', '--prefix', 'BR', '--yes');
    expect(summary).toMatchObject({ dry_run: false, created: 12, changed: true, skipped: expect.any(Array) });
    expect((summary.skipped as Json[]).map((s) => s.reason)).toContain('tombstone (deleted in beads)');
    expect(summary.imported).toMatchObject({ project: 'bring', items: 12 });

    const refs = await refsOf('bring');
    expect(refs.get('bd-x1')).toMatchObject({ status: 'done', resolution: 'completed', priority: 'low' });
    expect(refs.get('bd-e1')).toMatchObject({ workflow_id: 'epic', owner: 'alice', priority: 'high' });
    const open = beadsFixture()
      .filter((i) => i.status === 'open')
      .map((i) => i.id as string);
    const run = await runnable('bring');
    // bd ready: open, no open blocks blocker, no ancestor (parent-child) with one
    expect(open.filter((id) => run.has(refs.get(id)!.ref as string)).sort()).toEqual(['bd-b1', 'bd-d1', 'bd-w1']);
  });

  it('should change nothing on a re-import of the same file, and apply the edits of a changed one', async () => {
    const before = await ok<Json>('export', '--project', 'bring');
    const path = file('issues.jsonl', toJsonl(beadsFixture()));
    const again = await ok('import', '--from', 'beads', path, '--project', 'bring', '--yes');
    expect(again).toMatchObject({ changed: false, created: 0, updated: 0, unchanged: 12, imported: null });
    expect(await ok<Json>('export', '--project', 'bring')).toEqual(before);

    const edited = beadsFixture().map((i) =>
      i.id === 'bd-b1' ? { ...i, title: 'Blocker renamed', status: 'closed' } : i,
    );
    const third = await ok(
      'import',
      '--from',
      'beads',
      file('edited.jsonl', toJsonl(edited)),
      '--project',
      'bring',
      '--yes',
    );
    expect(third).toMatchObject({ changed: true, created: 0, updated: 1, unchanged: 11 });
    const refs = await refsOf('bring');
    expect(refs.size).toBe(12);
    expect(refs.get('bd-b1')).toMatchObject({ title: 'Blocker renamed', status: 'done' });
    const open = edited.filter((i) => i.status === 'open').map((i) => i.id as string);
    const run = await runnable('bring');
    expect(open.filter((id) => run.has(refs.get(id)!.ref as string)).sort()).toEqual([
      'bd-c1',
      'bd-d1',
      'bd-e1',
      'bd-g1',
      'bd-w1',
    ]);
  });

  it('should import a Taskwarrior export whose runnable set is +READY, and re-import it unchanged', async () => {
    const now = Date.now();
    const path = file('export.json', toTaskExport(taskwarriorFixture(now)));
    const summary = await ok('import', '--from', 'taskwarrior', path, '--project', 'tw', '--prefix', 'TW', '--yes');
    expect(summary).toMatchObject({ created: 14, dependencies: 6 });
    const refs = await refsOf('tw');
    const uuid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
    const run = await runnable('tw');
    const ready = [...refs.entries()].filter(([, item]) => run.has(item.ref as string)).map(([id]) => id);
    // +READY: pending, not waiting, scheduled passed, every dependency completed or deleted (Taskwarrior 2.6.2)
    expect(ready.sort()).toEqual([1, 3, 7, 13].map(uuid).sort());
    const again = await ok('import', '--from', 'taskwarrior', path, '--project', 'tw', '--yes');
    expect(again).toMatchObject({ changed: false, created: 0, updated: 0 });
  });

  it('should read a Taskwarrior export piped into standard input (task export | svc import --from taskwarrior -)', async () => {
    const result = await runSvc(
      ['import', '--from', 'taskwarrior', '-', '--project', 'piped', '--prefix', 'PI', '--yes', '--json'],
      { env: svcEnv(daemon), input: toTaskExport(taskwarriorFixture()) },
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ file: '-', created: 14, dependencies: 6, changed: true });
    expect((await refsOf('piped')).size).toBe(14);
  });

  it('should only show what it would do on a terminal without --yes, with a progress bar, and import nothing', async () => {
    if (!tmuxAvailable()) throw new Error('tmux is required for the terminal tests (apt-get install tmux)');
    const path = file('terminal.jsonl', toJsonl(beadsFixture()));
    const session = new TmuxSession({
      width: 100,
      height: 50,
      env: svcEnv(daemon),
      cwd: neutralCwd(),
      command: [
        process.execPath,
        SVC_BIN,
        'import',
        '--from',
        'beads',
        path,
        '--project',
        'onscreen',
        '--prefix',
        'ON',
      ],
    });
    session.start();
    try {
      await session.waitFor(/\[exited \d+\]/);
      const screen = session.history(200);
      expect(screen).toContain('[exited 0]');
      expect(screen).toMatch(/reading \[#{30}\] 100%/);
      expect(screen).toMatch(/items\s+12: 12 new, 0 updated, 0 unchanged/);
      expect(screen).toContain('dry run: nothing was imported; run again with --yes to import');
    } finally {
      session.kill();
    }
    const exported = await svc('export', '--project', 'onscreen', '--json');
    expect(exported.code).not.toBe(0);
  });

  it('should refuse a malformed line with its number and import nothing', async () => {
    const lines = toJsonl(beadsFixture()).split('\n');
    lines.splice(4, 0, '{"id": "bd-zz", "title": ');
    const result = await svc(
      'import',
      '--from',
      'beads',
      file('bad.jsonl', lines.join('\n')),
      '--project',
      'bad',
      '--prefix',
      'BAD',
      '--yes',
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/bad\.jsonl: line 5: not valid JSON .*nothing was imported/);
    expect((await svc('export', '--project', 'bad', '--json')).code).not.toBe(0);
    const tw = toTaskExport(taskwarriorFixture()).split('\n');
    tw[3] = '{"uuid": ';
    const refused = await svc(
      'import',
      '--from',
      'taskwarrior',
      file('bad.json', tw.join('\n')),
      '--project',
      'tw',
      '--yes',
      '--json',
    );
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stderr.trim().split('\n').pop()!)).toMatchObject({
      code: 'invalid_import_file',
      message: expect.stringContaining('line 4'),
    });
  });

  it('should draw the graph around an item as Mermaid, dot and JSON', async () => {
    const refs = await refsOf('bring');
    const q1 = refs.get('bd-q1')!.ref as string;
    const mermaid = await svc('graph', q1, '--format', 'mermaid');
    expect(mermaid.code).toBe(0);
    const lines = mermaid.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('flowchart LR');
    const id = `n_${q1.replace('-', '_')}`;
    expect(lines.find((l) => l.startsWith(`  ${id}["`))).toMatch(
      /^ {2}n_BR_\d+\["BR-\d+: Hostile #34;title#34; #91;with#93;.*"\]$/,
    );
    const p1 = `n_${(refs.get('bd-p1')!.ref as string).replace('-', '_')}`;
    expect(lines).toContain(`  ${p1} ==>|"activation · blocked"| ${id}`);
    expect(lines.some((l) => l.startsWith('  classDef blocked'))).toBe(true);
    expect(lines).toContain(`  class ${id} root`);

    const dot = await svc('graph', q1, '--format', 'dot');
    expect(dot.stdout).toMatch(/^digraph svc \{/);
    const graph = await ok<{ nodes: Json[]; edges: Json[]; root: string }>('graph', q1, '--format', 'json');
    expect(graph.root).toBe(q1);
    expect(graph.edges.filter((e) => e.dependent === q1).map((e) => e.gate_point)).toEqual([
      'activation',
      'activation',
    ]);

    const project = await ok<{ nodes: Json[]; truncated: unknown }>(
      'graph',
      'bring',
      '--format',
      'json',
      '--max-nodes',
      '3',
    );
    expect(project.nodes).toHaveLength(3);
    expect(project.truncated).toMatchObject({ shown: 3 });
  });

  it('should import a few thousand issues with about a thousand dependencies', async () => {
    const rows = bigBeadsFixture(3000, 1000);
    const path = file('big.jsonl', toJsonl(rows));
    const started = Date.now();
    const summary = await ok('import', '--from', 'beads', path, '--project', 'big', '--prefix', 'BIG', '--yes');
    const first = Date.now() - started;
    expect(summary).toMatchObject({ created: 3000, changed: true });
    const again = Date.now();
    expect(await ok('import', '--from', 'beads', path, '--project', 'big', '--yes')).toMatchObject({ changed: false });
    // the timing goes to the report, never into an assertion
    process.stdout.write(`import of 3000 beads issues: ${first} ms; re-import: ${Date.now() - again} ms\n`);
  });
});
