import { ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
  CliResult,
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
  withClient,
  waitFor,
} from '@app/testing';
import { createActor, http } from '@app/testing/machine-auth';

// libs/testing's waitFor until `check` holds; fails with what it last saw.
async function until(check: () => boolean, describeState: () => string, timeoutMs = 20_000): Promise<void> {
  await waitFor(check, { timeout: timeoutMs, interval: 50 }).catch((error: Error) => {
    throw new Error(`${error.message}; last state:\n${describeState()}`);
  });
}

function bash(script: string, cwd: string, env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      'bash',
      ['-c', script],
      { cwd, env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, timeout: 120_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('svc command-line habits: project scope, --watch, sessions list, completion, suggestions', () => {
  let db: TestDatabase;
  let daemon: DaemonProcess;
  let env: Record<string, string>;
  // a checkout of project beta, with a subfolder (.svc.json is found upward)
  let checkout: string;
  let deep: string;

  beforeAll(async () => {
    db = await createTestDatabase('server', 'cli_habits');
    daemon = await startDaemonProcess({ env: { SVC_DATABASE_URL: db.url } });
    env = svcEnv(daemon);
    await withClient(db.url, async (client) => {
      await createProject(client, { id: 'alpha', prefix: 'AL' });
      await insertItems(client, 'alpha', [
        { title: 'alpha one', status: 'planned', priority: 'high' },
        { title: 'alpha two', status: 'planned' },
      ]);
      await createProject(client, { id: 'beta', prefix: 'BE' });
      await insertItems(client, 'beta', [
        { title: 'beta one', status: 'planned', priority: 'high' },
        { title: 'beta two', status: 'planned' },
      ]);
    });
    checkout = mkdtempSync(join(tmpdir(), 'svc-checkout-'));
    writeFileSync(join(checkout, '.svc.json'), JSON.stringify({ project: 'beta' }));
    deep = join(checkout, 'src', 'deep');
    mkdirSync(deep, { recursive: true });
    // each project has events and sessions, so a filter that is not applied shows
    for (const project of ['alpha', 'beta']) {
      expect((await runSvc(['frontier', 'list', '--project', project, '--json'], { env })).code).toBe(0);
      expect((await runSvc(['sessions', 'register', '--project', project, '--json'], { env })).code).toBe(0);
    }
  });

  afterAll(async () => {
    await daemon?.stop();
    await db?.drop();
  });

  // Every project-scoped command, with what its --json answer says about the project it worked on.
  const SCOPED: { args: string[]; projects(body: never): string[] }[] = [
    { args: ['charge-frontier'], projects: (b: { runnable: { item_id: string }[] }) => b.runnable.map(refProject) },
    { args: ['frontier', 'list'], projects: (b: { project: string }) => [b.project] },
    { args: ['frontier', 'explain', '1'], projects: (b: { project: string; item_id: string }) => [b.project] },
    { args: ['items', 'list'], projects: (b: { items: { project: string }[] }) => b.items.map((i) => i.project) },
    { args: ['items', 'create', '--title', 'scoped'], projects: (b: { project: string }) => [b.project] },
    { args: ['events', 'query'], projects: (b: { events: { project: string }[] }) => b.events.map((e) => e.project) },
    { args: ['charge', '--dry-run'], projects: (b: { project: string }) => [b.project] },
    { args: ['charge', 'schedule'], projects: (b: { scope: string[] }) => b.scope },
    { args: ['sessions', 'register'], projects: (b: { project: string }) => [b.project] },
    {
      args: ['sessions', 'list'],
      projects: (b: { sessions: { project: string }[] }) => b.sessions.map((s) => s.project),
    },
    { args: ['deployments', 'flows', 'list'], projects: () => [] },
  ];
  const refProject = (row: { item_id: string }) => ({ AL: 'alpha', BE: 'beta' })[row.item_id.split('-')[0]] ?? '?';

  async function expectScope(expected: string, options: { cwd: string; env: Record<string, string> }) {
    for (const { args, projects } of SCOPED) {
      const result = await runSvc([...args, '--json'], options);
      expect({ args, code: result.code, stderr: result.stderr }).toEqual({ args, code: 0, stderr: '' });
      const seen = projects(parseJson(result) as never);
      if (args[0] !== 'deployments') expect({ args, nonEmpty: seen.length > 0 }).toEqual({ args, nonEmpty: true });
      expect({ args, projects: [...new Set(seen)] }).toEqual({ args, projects: seen.length ? [expected] : [] });
    }
  }

  it('should scope every project-scoped command by the nearest .svc.json upward', async () => {
    await expectScope('beta', { cwd: deep, env });
  }, 180_000);

  it('should let SVC_PROJECT override .svc.json, and --project override both', async () => {
    await expectScope('alpha', { cwd: deep, env: { ...env, SVC_PROJECT: 'alpha' } });
    const flagged = await runSvc(['frontier', 'list', '--project', 'beta', '--json'], {
      cwd: deep,
      env: { ...env, SVC_PROJECT: 'alpha' },
    });
    expect(parseJson<{ project: string }>(flagged).project).toBe('beta');
    // --all-projects drops the implicit scope of a list
    const all = parseJson<{ items: { project: string }[] }>(
      await runSvc(['items', 'list', '--all-projects', '--json'], { cwd: deep, env }),
    );
    expect(new Set(all.items.map((i) => i.project))).toEqual(new Set(['alpha', 'beta']));
    // --help says where the default came from
    const help = await runSvc(['frontier', 'list', '--help'], { cwd: deep, env });
    expect(help.stdout).toContain(`beta, from ${join(checkout, '.svc.json')}`);
  }, 180_000);

  it('should scope svc events stream by .svc.json too', async () => {
    const child = spawn(process.execPath, [SVC_BIN, 'events', 'stream', '--json'], {
      cwd: deep,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const create = (project: string) =>
      http(daemon.url, 'POST', '/v1/items', { token: daemon.token!, body: { project, title: `stream ${project}` } });
    try {
      // the stream connects at some point: write to both projects until a notice arrives (alpha first each time,
      // and notices come in commit order, so an unfiltered stream would show alpha's)
      const deadline = Date.now() + 20_000;
      while (!out.includes('\n') && Date.now() < deadline) {
        expect((await create('alpha')).status).toBe(201);
        expect((await create('beta')).status).toBe(201);
        // a notice within a second, else write again
        await waitFor(() => out.includes('\n'), { timeout: 1000, interval: 50 }).catch(() => undefined);
      }
      const notices = out
        .slice(0, out.lastIndexOf('\n'))
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { data: { project?: string } });
      expect(notices.length).toBeGreaterThan(0);
      expect(new Set(notices.map((n) => n.data.project))).toEqual(new Set(['beta']));
    } finally {
      child.kill('SIGINT');
    }
    await exited;
  });

  it('should ask for a project when a command needs one and none is named anywhere', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'svc-noscope-'));
    const result = await runSvc(['frontier', 'list'], { cwd: outside, env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('project_required');
    expect(result.stderr).toContain('.svc.json');
  });

  it('should list sessions as a table and as JSON, filtered by state, and refuse bad filters', async () => {
    const registered = parseJson<{ session_id: number }>(
      await runSvc(['sessions', 'register', '--project', 'alpha', '--harness', 'claude-code', '--json'], { env }),
    );
    const table = await runSvc(['sessions', 'ls', '--project', 'alpha'], { env });
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(new RegExp(`\\b${registered.session_id}\\b.*claude-code`));
    expect((await runSvc(['sessions', 'end', String(registered.session_id)], { env })).code).toBe(0);
    const live = parseJson<{ sessions: { session_id: number }[] }>(
      await runSvc(['sessions', 'list', '--all-projects', '--json'], { env }),
    );
    expect(live.sessions.map((s) => s.session_id)).not.toContain(registered.session_id);
    const ended = parseJson<{ sessions: { session_id: number; ended_at: string | null }[] }>(
      await runSvc(['sessions', 'list', '--all-projects', '--state', 'ended', '--json'], { env }),
    );
    expect(ended.sessions.map((s) => s.session_id)).toContain(registered.session_id);
    expect(ended.sessions.every((s) => s.ended_at !== null)).toBe(true);
    const limited = parseJson<{ sessions: unknown[] }>(
      await runSvc(['sessions', 'list', '--all-projects', '--state', 'all', '--limit', '1', '--json'], { env }),
    );
    expect(limited.sessions).toHaveLength(1);
    for (const query of ['state=gone', 'limit=0', 'limit=1001', 'harness=%20x']) {
      const res = await http<{ code: string }>(daemon.url, 'GET', `/v1/sessions?${query}`, { token: daemon.token! });
      expect({ query, status: res.status, code: res.body.code }).toEqual({
        query,
        status: 400,
        code: 'validation_failed',
      });
    }
    // a member sees only the sessions it registered; the admin sees everyone's
    const otto = await createActor(db.url, { name: 'otto' });
    const ottoEnv = { ...env, SVC_TOKEN: otto.token };
    const own = parseJson<{ session_id: number }>(
      await runSvc(['sessions', 'register', '--label', 'otto', '--json'], { env: ottoEnv }),
    );
    const ottoSees = parseJson<{ sessions: { session_id: number }[] }>(
      await runSvc(['sessions', 'list', '--all-projects', '--state', 'all', '--json'], { env: ottoEnv }),
    );
    expect(ottoSees.sessions.map((s) => s.session_id)).toEqual([own.session_id]);
    const adminSees = parseJson<{ sessions: { session_id: number }[] }>(
      await runSvc(['sessions', 'list', '--all-projects', '--json'], { env }),
    );
    expect(adminSees.sessions.length).toBeGreaterThan(1);
    expect(adminSees.sessions.map((s) => s.session_id)).toContain(own.session_id);
    const unknown = await http<{ code: string }>(daemon.url, 'GET', '/v1/sessions?project=nope', {
      token: daemon.token!,
    });
    expect(unknown.status).toBe(404);
  });

  it('should redraw charge-frontier --watch after a write from another command, and exit 130 on Ctrl-C', async () => {
    const child: ChildProcess = spawn(process.execPath, [SVC_BIN, 'charge-frontier', '--watch'], {
      cwd: deep,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const blocks = () => out.split('\n').filter((line) => line.startsWith('── beta ·')).length;
    try {
      await until(
        () => blocks() >= 1 && out.includes('frozen'),
        () => `${out}\n${err}`,
      );
      // the first block is complete: the stream is about to open; a write now must be drawn
      const created = parseJson<{ item_id: string }>(
        await runSvc(['items', 'create', '--title', 'watch me', '--priority', 'high', '--json'], { cwd: deep, env }),
      );
      expect(created.item_id).toMatch(/^BE-/);
      await until(
        () => blocks() >= 2 && out.slice(out.lastIndexOf('── beta ·')).includes(created.item_id),
        () => `${out}\n${err}`,
      );
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(130);
  });

  it('should clear and redraw charge-frontier --watch on a terminal', async () => {
    // the real binary under a pseudo-terminal (util-linux `script`); ^C typed on it ends the watch
    const command = [process.execPath, SVC_BIN, 'charge-frontier', '--watch'].map((a) => `'${a}'`).join(' ');
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      cwd: deep,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, TERM: 'xterm-256color', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let screen = '';
    child.stdout!.on('data', (chunk: Buffer) => (screen += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const CLEAR = '\x1b[H\x1b[2J';
    const draws = () => screen.split(CLEAR).length - 1;
    try {
      await until(
        () => draws() >= 1 && screen.includes('frozen'),
        () => JSON.stringify(screen),
      );
      const created = parseJson<{ item_id: string }>(
        await runSvc(['items', 'create', '--title', 'on the screen', '--priority', 'high', '--json'], {
          cwd: deep,
          env,
        }),
      );
      await until(
        () => draws() >= 2 && screen.slice(screen.lastIndexOf(CLEAR)).includes(created.item_id),
        () => JSON.stringify(screen),
      );
      expect(screen).toContain('Ctrl-C stops');
      child.stdin!.write('\x03');
    } finally {
      setTimeout(() => child.kill('SIGKILL'), 20_000).unref();
    }
    expect(await exited).toBe(130);
  });

  it('should print completion scripts, and complete commands, options, projects and refs', async () => {
    const script = await runSvc(['completion', 'bash']);
    expect(script.code).toBe(0);
    expect(script.stdout).toContain('complete -o default -F _svc_complete svc');
    for (const shell of ['zsh', 'fish']) {
      expect((await runSvc(['completion', shell])).stdout).toContain('__complete');
    }
    expect((await runSvc(['completion', 'tcsh'])).code).not.toBe(0);

    // bash itself, as a shell would call the function (svc is the binary under test); one shell for every case
    const cases: string[][] = [
      ['svc', ''],
      ['svc', 'fr'],
      ['svc', 'items', 'l'],
      ['svc', 'items', 'list', '--pr'],
      ['svc', 'frontier', 'list', '--only', ''],
      ['svc', 'items', 'list', '--project', ''],
      ['svc', 'items', 'show', 'BE-'],
    ];
    const shell = await bash(
      `svc() { "${process.execPath}" "${SVC_BIN}" "$@"; }\n` +
        `eval "$(svc completion bash)"\n` +
        cases
          .map(
            (words) =>
              `COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; ` +
              `_svc_complete; echo '>>>'; printf '%s\\n' "\${COMPREPLY[@]}"`,
          )
          .join('\n'),
      deep,
      env,
    );
    expect(shell.stderr).toBe('');
    const [commands, fr, itemsL, options, choices, projects, refs] = shell.stdout
      .split('>>>\n')
      .slice(1)
      .map((block) => block.split('\n').filter(Boolean));
    expect(commands).toEqual(expect.arrayContaining(['charge-frontier', 'items', 'sessions', 'completion']));
    expect(fr).toEqual(['frontier']);
    expect(itemsL).toEqual(['list']);
    expect(options).toEqual(expect.arrayContaining(['--project', '--priority']));
    expect(choices).toEqual(expect.arrayContaining(['runnable', 'blocked', 'frozen']));
    // from the daemon: projects, and refs of the scoped project
    expect(projects).toEqual(expect.arrayContaining(['alpha', 'beta']));
    expect(refs).toEqual(expect.arrayContaining(['BE-1', 'BE-2']));
    expect(refs.every((r) => r.startsWith('BE-'))).toBe(true);
    // the daemon away: no candidates, no noise
    const away = await runSvc(['__complete', 'items', 'show', ''], {
      env: { SVC_URL: 'http://127.0.0.1:1', SVC_TOKEN: 'svc_x' },
    });
    expect(away).toEqual({ code: 0, stdout: '', stderr: '' });
  }, 180_000);

  // zsh and fish run the printed scripts as they would on a prompt: zsh's _svc with compadd standing in for the
  // completion system, fish's own `complete -C`. CI installs both shells (.ci/run); elsewhere a missing shell skips.
  it.each([
    [
      'zsh',
      (svc: string) =>
        `svc() { ${svc} "$@"; }\neval "$(svc completion zsh)"\ncompadd() { shift; print -l -- "$@"; }\n` +
        `words=(svc ite); CURRENT=2; _svc; print '>>>'; words=(svc items list --pr); CURRENT=4; _svc`,
    ],
    [
      'fish',
      (svc: string) =>
        `function svc; ${svc} $argv; end\nsvc completion fish | source\n` +
        `complete -C 'svc ite'; echo '>>>'; complete -C 'svc items list --pr'`,
    ],
  ])(
    'should complete commands and options in %s',
    async (shellName, script) => {
      const found = await bash(`command -v ${shellName}`, deep, env);
      if (found.code !== 0 && process.env.CI !== 'true') return;
      const shell = await new Promise<CliResult>((resolve) => {
        execFile(
          shellName,
          ['-c', script(`"${process.execPath}" "${SVC_BIN}"`)],
          { cwd: deep, env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, timeout: 120_000 },
          (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
        );
      });
      const [commands, options] = shell.stdout.split('>>>\n').map((block) => block.split('\n').filter(Boolean));
      // fish prints "candidate<TAB>description"
      expect(commands.map((c) => c.split('\t')[0])).toEqual(['items']);
      expect(options.map((c) => c.split('\t')[0])).toEqual(expect.arrayContaining(['--project', '--priority']));
    },
    120_000,
  );

  it('should suggest the command or option meant, for subcommands too', async () => {
    const top = await runSvc(['itms'], { env });
    expect(top.code).toBe(64); // a usage error (svc help exit-codes)
    expect(top.stderr).toContain("unknown command 'itms'");
    expect(top.stderr).toContain('Did you mean items?');
    const sub = await runSvc(['items', 'lsit'], { env });
    expect(sub.code).toBe(64);
    expect(sub.stderr).toContain('Did you mean list?');
    const option = await runSvc(['items', 'list', '--projetc', 'beta'], { env });
    expect(option.code).toBe(64);
    expect(option.stderr).toContain('Did you mean --project?');
  });

  it('should say what to try first when run without arguments, and show examples and aliases in help', async () => {
    const bare = await runSvc([]);
    expect(bare.code).toBe(0);
    for (const hint of ['svc up', 'svc tui', 'svc charge-frontier', 'svc --help']) expect(bare.stdout).toContain(hint);
    const help = await runSvc(['--help']);
    const groups = [...help.stdout.matchAll(/^ {2}([a-z][a-z-]+)(?: \[options\])?\s{2,}/gm)].map((m) => m[1]);
    expect(groups.length).toBeGreaterThan(20);
    for (const group of groups) {
      const text = (await runSvc([group, '--help'])).stdout;
      const hasSubcommands = /^Commands:/m.test(text);
      if (hasSubcommands)
        expect({ group, examples: text.includes('Examples:\n  $ svc') }).toEqual({ group, examples: true });
    }
    const ls = await runSvc(['projects', 'ls', '--json'], { env });
    expect(parseJson<{ projects: { id: string }[] }>(ls).projects.map((p) => p.id)).toEqual(
      expect.arrayContaining(['alpha', 'beta']),
    );
    const show = await runSvc(['items', 'show', 'BE-1', '--json'], { env });
    expect(parseJson<{ item_id: string }>(show).item_id).toBe('BE-1');
  }, 180_000);
});
