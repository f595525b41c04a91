import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';

import { createTestDatabase, runSvc, startDaemonProcess, SVC_BIN, svcEnv, TestDatabase, waitFor } from '@app/testing';

import { revertAllMigrations, runMigrations } from '../apps/daemon/src/database/migrate';

async function tables(url: string): Promise<string[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const rows = await client.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`,
    );
    return rows.rows.map((r: { table_name: string }) => r.table_name);
  } finally {
    await client.end();
  }
}

const SPEC_TABLES = [
  'items',
  'item_sections',
  'item_dependencies',
  'epic_tasks',
  'epic_task_files',
  'epic_dispatch_chains',
  'epic_progress_notes',
  'shepherd_verdicts',
  'caveat_dispositions',
  'ouroboros_entries',
  'item_progress_view',
  'projects',
  'actors',
  'organizations',
  'memberships',
  'api_tokens',
  'machine_credentials',
  'workflows',
  'workflow_versions',
  'deployment_flows',
  'environments',
  'deployment_runs',
  'events',
  'machine_authorizations',
  'rate_counters',
  'executor_sessions',
  'item_claims',
];

describe('migrations', () => {
  for (const kind of ['server', 'embedded'] as const) {
    describe(`on the ${kind === 'server' ? 'PostgreSQL server' : 'embedded database'}`, () => {
      let db: TestDatabase;
      beforeAll(async () => {
        db = await createTestDatabase(kind, 'migrations');
      });
      afterAll(() => db.drop());

      it('should create every table and the view when applied', async () => {
        await runMigrations(db.url);
        const present = await tables(db.url);
        for (const table of SPEC_TABLES) expect(present).toContain(table);
      });

      it('should be a no-op when applied twice', async () => {
        expect(await runMigrations(db.url)).toEqual([]);
      });

      it('should remove everything when reverted, and apply again', async () => {
        expect(await revertAllMigrations(db.url)).toBeGreaterThan(0);
        expect(await tables(db.url)).toEqual(['migrations']);
        await runMigrations(db.url);
        expect(await tables(db.url)).toContain('items');
      });

      it('should keep workflow versions immutable when updated', async () => {
        const client = new Client({ connectionString: db.url });
        await client.connect();
        try {
          await client.query(`INSERT INTO workflows (id, name) VALUES ('wf', 'wf')`);
          await client.query(`INSERT INTO workflow_versions (workflow_id, version, definition, checksum)
                              VALUES ('wf', 1, '{}', 'x')`);
          await expect(client.query(`UPDATE workflow_versions SET definition = '{"a":1}'`)).rejects.toThrow(
            /immutable/,
          );
        } finally {
          await client.end();
        }
      });
    });
  }
});

describe('svc daemon', () => {
  describe('on the embedded database', () => {
    const home = mkdtempSync(join(tmpdir(), 'svc-e2e-home-'));
    const configDir = mkdtempSync(join(tmpdir(), 'svc-e2e-config-'));

    it('should boot, answer health and readiness, and hand the CLI its token', async () => {
      const daemon = await startDaemonProcess({ env: { SVC_HOME: home }, configDir });
      try {
        expect((await fetch(`${daemon.url}/healthz`)).status).toBe(200);
        const ready = await fetch(`${daemon.url}/readyz`);
        expect(ready.status).toBe(200);
        expect(await ready.json()).toMatchObject({
          status: 'ok',
          info: { database: { status: 'up' }, migrations: { status: 'up' } },
        });
        expect(daemon.token).toMatch(/^svc_/);
        const credentialsFile = join(configDir, 'credentials.json');
        expect(statSync(credentialsFile).mode & 0o777).toBe(0o600);
        expect(JSON.parse(readFileSync(credentialsFile, 'utf8'))).toMatchObject({ servers: [{ token: daemon.token }] });
        const me = await runSvc(['whoami', '--json'], { env: { SVC_CONFIG_DIR: configDir } });
        expect(me.code).toBe(0);
        expect(JSON.parse(me.stdout)).toMatchObject({ name: 'admin', is_admin: true, via: 'api_token' });
        expect(daemon.stdout() + daemon.stderr()).not.toMatch(/"token"/);
      } finally {
        expect(await daemon.stop()).toBe(0);
      }
    });

    it('should restart on the same data without issuing a new token', async () => {
      const before = (
        JSON.parse(readFileSync(join(configDir, 'credentials.json'), 'utf8')) as { servers: { token: string }[] }
      ).servers[0];
      const daemon = await startDaemonProcess({ env: { SVC_HOME: home }, configDir });
      try {
        expect(daemon.token).toBeNull();
        const me = await fetch(`${daemon.url}/v1/whoami`, { headers: { authorization: `Bearer ${before.token}` } });
        expect(me.status).toBe(200);
      } finally {
        await daemon.stop();
      }
    });

    it('should recover when the daemon was killed with SIGKILL', async () => {
      const first = await startDaemonProcess({ env: { SVC_HOME: home }, configDir });
      await first.kill();
      const second = await startDaemonProcess({ env: { SVC_HOME: home }, configDir });
      try {
        expect(second.stderr()).toMatch(/reusing the embedded database server/);
        expect((await fetch(`${second.url}/readyz`)).status).toBe(200);
      } finally {
        expect(await second.stop()).toBe(0);
      }
    });

    it('should refuse a request without a valid token', async () => {
      const daemon = await startDaemonProcess({ env: { SVC_HOME: home }, configDir });
      try {
        const none = await fetch(`${daemon.url}/v1/whoami`);
        expect(none.status).toBe(401);
        expect(await none.json()).toMatchObject({ code: 'unauthorized' });
        const wrong = await fetch(`${daemon.url}/v1/whoami`, { headers: { authorization: 'Bearer svc_nope' } });
        expect(wrong.status).toBe(401);
      } finally {
        await daemon.stop();
      }
    });
  });

  describe('under svc daemon, stopped with Ctrl-C', () => {
    it('should drain, stop the embedded database and exit 0 when the whole process group gets SIGINT', async () => {
      const home = mkdtempSync(join(tmpdir(), 'svc-e2e-ctrlc-'));
      const child = spawn(process.execPath, [SVC_BIN, 'daemon'], {
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          SVC_HOME: home,
          SVC_PORT: '0',
          SVC_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'svc-e2e-ctrlc-config-')),
          SVC_LOG_LEVEL: 'warn',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      await waitFor(() => /listening on/.test(stderr), { timeout: 30_000, what: 'the listening line' });
      expect(stderr).toMatch(/listening on/);
      expect(existsSync(join(home, 'pg', 'postmaster.pid'))).toBe(true);
      process.kill(-child.pid!, 'SIGINT');
      expect(await exited).toBe(0);
      expect(stderr).toMatch(/embedded database server stopped/);
      expect(existsSync(join(home, 'pg', 'postmaster.pid'))).toBe(false);
    });
  });

  describe('when the embedded database cannot start', () => {
    it('should exit and report the server log that says why', async () => {
      const broken = mkdtempSync(join(tmpdir(), 'svc-e2e-broken-'));
      mkdirSync(join(broken, 'pg'));
      writeFileSync(join(broken, 'pg', 'PG_VERSION'), '17\n');
      const error = await startDaemonProcess({ env: { SVC_HOME: broken } }).then(
        () => null,
        (err: Error) => err,
      );
      expect(error?.message).toMatch(/failed to start: the embedded database server exited/);
      expect(error?.message).toMatch(/could not access the server configuration file/);
    });
  });

  describe('on the PostgreSQL server', () => {
    let db: TestDatabase;
    beforeAll(async () => {
      db = await createTestDatabase('server', 'daemon');
    });
    afterAll(() => db.drop());

    it('should boot with SVC_DATABASE_URL and apply the migrations', async () => {
      const daemon = await startDaemonProcess({ env: { SVC_DATABASE_URL: db.url } });
      try {
        expect((await fetch(`${daemon.url}/readyz`)).status).toBe(200);
        const me = await runSvc(['whoami', '--json'], { env: svcEnv(daemon) });
        expect(JSON.parse(me.stdout)).toMatchObject({ name: 'admin' });
      } finally {
        await daemon.stop();
      }
      expect(await tables(db.url)).toContain('item_dependencies');
    });
  });

  describe('configuration errors', () => {
    it('should stop and name the bad variable', async () => {
      await expect(startDaemonProcess({ env: { SVC_PORT: 'eighty', SVC_DATABASE_URL: 'nope' } })).rejects.toThrow(
        /SVC_DATABASE_URL[\s\S]*|SVC_PORT/,
      );
      const result = await runSvc(['daemon'], { env: { SVC_PORT: 'eighty' } });
      expect(result.code).toBe(78);
      expect(result.stderr).toContain('SVC_PORT');
    });
  });
});

describe('svc command line', () => {
  it('should print help naming the command groups', async () => {
    const result = await runSvc(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: svc');
    expect(result.stdout).toContain('daemon');
  });

  it('should print the package version', async () => {
    const result = await runSvc(['--version']);
    const { version } = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string };
    expect(result.stdout.trim()).toBe(version);
  });

  it('should report an unreachable daemon clearly', async () => {
    const result = await runSvc(['whoami'], { env: { SVC_URL: 'http://127.0.0.1:9', SVC_TOKEN: 'x' } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('daemon_unreachable');
  });
});
