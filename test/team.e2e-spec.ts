import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { createTestDatabase, DaemonProcess, runSvc, startDaemonProcess, SVC_BIN, TestDatabase } from '@app/testing';
import {
  http,
  pollMachineAuthorization,
  resolveMachineAuthorization,
  sql,
  startMachineAuthorization,
} from '@app/testing/machine-auth';

const CODE_LINE = /^\s+([BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4})\s*$/m;

// `svc connect` as a person runs it: returns the code it shows and a promise of its exit.
function connectMachine(url: string, configDir: string, machineName: string) {
  const child = spawn(process.execPath, [SVC_BIN, 'connect', url, '--machine-name', machineName], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, SVC_CONFIG_DIR: configDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const code = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no code shown:\n${out}\n${err}`)), 20000);
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const match = CODE_LINE.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
  });
  return { code, exited, output: () => out + err };
}

// Each test drives several real svc processes (and a browser or a terminal): generous on a loaded machine.
jest.setTimeout(180000);

describe('a team on one server', () => {
  let db: TestDatabase;
  let daemon: DaemonProcess;
  let adminEnv: Record<string, string>;
  let annToken: string;

  beforeAll(async () => {
    db = await createTestDatabase('server', 'team');
    daemon = await startDaemonProcess({
      env: { SVC_DATABASE_URL: db.url, SVC_SERVER_SECRET: 'e2e-team-accounts-secret-0123456789abcdef' },
    });
    adminEnv = { SVC_URL: daemon.url, SVC_TOKEN: daemon.token!, SVC_CONFIG_DIR: daemon.configDir };
  });

  afterAll(async () => {
    await daemon?.stop();
    await db?.drop();
  });

  it('should let the admin create a teammate and a token printed once and stored hashed', async () => {
    const created = await runSvc(['actors', 'create', 'ann', '--email', 'Ann@Example.com'], { env: adminEnv });
    expect(created.code).toBe(0);
    const shown = await runSvc(['actors', 'show', 'ann', '--json'], { env: adminEnv });
    expect(JSON.parse(shown.stdout)).toMatchObject({
      name: 'ann',
      email: 'ann@example.com',
      kind: 'person',
      status: 'active',
      is_admin: false,
      memberships: [{ org: 'default', role: 'member', status: 'active' }],
    });
    const again = await runSvc(['actors', 'create', 'ann'], { env: adminEnv });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('actor_exists');

    const token = await runSvc(['tokens', 'create', '--actor', 'ann', '--name', 'laptop'], { env: adminEnv });
    expect(token.code).toBe(0);
    annToken = token.stdout.trim();
    expect(annToken).toMatch(/^svc_[A-Za-z0-9_-]{43}$/);
    const rows = await sql<{ token_hash: Buffer; token_prefix: string }>(
      db.url,
      `SELECT t.token_hash, t.token_prefix FROM api_tokens t JOIN actors a ON a.id = t.actor_id WHERE a.name = 'ann'`,
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].token_hash.toString('utf8')).not.toContain(annToken);
    expect(annToken.startsWith(rows[0].token_prefix.replace('…', ''))).toBe(true);

    const listed = await runSvc(['tokens', 'list', '--actor', 'ann'], { env: adminEnv });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('laptop');
    expect(listed.stdout).toContain('never');
    expect(listed.stdout).not.toContain(annToken);
    expect(daemon.stdout() + daemon.stderr()).not.toContain(annToken);
  });

  it('should record last use without a write per request', async () => {
    for (let i = 0; i < 3; i += 1) {
      expect((await http(daemon.url, 'GET', '/v1/whoami', { token: annToken })).status).toBe(200);
    }
    const list = await runSvc(['tokens', 'list', '--json'], { env: { ...adminEnv, SVC_TOKEN: annToken } });
    const [mine] = (JSON.parse(list.stdout) as { tokens: { name: string; last_used_at: string | null }[] }).tokens;
    expect(mine).toMatchObject({ name: 'laptop' });
    expect(mine.last_used_at).not.toBeNull();
    const [{ xmin }] = await sql<{ xmin: string }>(db.url, `SELECT xmin::text FROM api_tokens WHERE name = 'laptop'`);
    await http(daemon.url, 'GET', '/v1/whoami', { token: annToken });
    const [{ xmin: after }] = await sql<{ xmin: string }>(
      db.url,
      `SELECT xmin::text FROM api_tokens WHERE name = 'laptop'`,
    );
    expect(after).toBe(xmin);
  });

  it('should keep members to their own business', async () => {
    const annEnv = { ...adminEnv, SVC_TOKEN: annToken };
    const create = await runSvc(['actors', 'create', 'mallory'], { env: annEnv });
    expect(create.code).toBe(3);
    expect(create.stderr).toContain('forbidden');
    const adminTokens = await runSvc(['tokens', 'list', '--actor', 'admin'], { env: annEnv });
    expect(adminTokens.stderr).toContain('not_found');
    const own = await runSvc(['tokens', 'create', '--name', 'ci', '--expires-in', '1h', '--json'], { env: annEnv });
    expect(own.code).toBe(0);
    const body = JSON.parse(own.stdout) as { token_id: number; token: string; expires_at: string };
    expect(Date.parse(body.expires_at) - Date.now()).toBeGreaterThan(3000 * 1000);
    expect((await http(daemon.url, 'GET', '/v1/whoami', { token: body.token })).status).toBe(200);
    const revoke = await runSvc(['tokens', 'revoke', String(body.token_id)], { env: annEnv });
    expect(revoke.code).toBe(0);
    expect((await http(daemon.url, 'GET', '/v1/whoami', { token: body.token })).status).toBe(401);
    const twice = await runSvc(['tokens', 'revoke', String(body.token_id)], { env: annEnv });
    expect(twice.stdout).toContain('already revoked');
    const bad = await runSvc(['tokens', 'create', '--expires-in', 'soon'], { env: annEnv });
    expect(bad.stderr).toContain('invalid_request');
  });

  it('should refuse an expired token', async () => {
    const made = await http<{ token: string; token_id: number }>(daemon.url, 'POST', '/v1/tokens', {
      token: daemon.token!,
      body: { actor: 'ann', name: 'short', expires_in: 60 },
    });
    expect(made.status).toBe(201);
    expect((await http(daemon.url, 'GET', '/v1/whoami', { token: made.body.token })).status).toBe(200);
    await sql(db.url, `UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = $1`, [
      made.body.token_id,
    ]);
    expect((await http(daemon.url, 'GET', '/v1/whoami', { token: made.body.token })).status).toBe(401);
  });

  it('should let the teammate connect a machine and approve it with her token', async () => {
    const configDir = mkdtempSync(join(tmpdir(), 'svc-team-ann-'));
    const connect = connectMachine(daemon.url, configDir, 'ann-laptop');
    const code = await connect.code;
    expect(connect.output()).toContain('ann-laptop');
    expect(connect.output()).toMatch(/Machine id: +[0-9a-f-]{36}/);
    const resolved = await runSvc(['machine-authorization', 'resolve', code.toLowerCase(), '--action', 'approve'], {
      env: { ...adminEnv, SVC_TOKEN: annToken },
    });
    expect(resolved.code).toBe(0);
    expect(await connect.exited).toBe(0);
    expect(connect.output()).toContain('as ann');
    const file = join(configDir, 'credentials.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const me = await runSvc(['whoami', '--json'], { env: { SVC_CONFIG_DIR: configDir } });
    expect(JSON.parse(me.stdout)).toMatchObject({ name: 'ann', via: 'machine_credential' });
    const status = await runSvc(['auth', 'status', '--json'], { env: { SVC_CONFIG_DIR: configDir } });
    expect(JSON.parse(status.stdout)).toMatchObject({
      server: daemon.url,
      identity: 'ann',
      kind: 'machine_credential',
      daemon: 'answers',
      credential: 'accepted',
    });
  });

  it("should not let the admin take over the teammate's claimed code", async () => {
    const machine = { id: 'ann-desktop-id', name: 'ann-desktop' };
    const started = await startMachineAuthorization(daemon.url, machine);
    expect(started.status).toBe(201);
    expect((await resolveMachineAuthorization(daemon.url, annToken, started.body.user_code, 'approve')).status).toBe(
      200,
    );
    for (const action of ['approve', 'deny'] as const) {
      const takeOver = await resolveMachineAuthorization(daemon.url, daemon.token!, started.body.user_code, action);
      expect(takeOver.status).toBe(403);
      expect(takeOver.body).toMatchObject({ code: 'authorization_claimed' });
    }
    const poll = await pollMachineAuthorization(daemon.url, started.body.device_code, machine);
    expect(poll.status).toBe(200);
    const token = (poll.body as { token: string }).token;
    const me = await http<{ name: string }>(daemon.url, 'GET', '/v1/whoami', { token });
    expect(me.body.name).toBe('ann');
  });

  it('should refuse her token, machine credential and pending decisions at once when disabled', async () => {
    const machine = { id: 'ann-phone-id', name: 'ann-phone' };
    const started = await startMachineAuthorization(daemon.url, machine);
    expect((await resolveMachineAuthorization(daemon.url, annToken, started.body.user_code, 'approve')).status).toBe(
      200,
    );
    const [cred] = await sql<{ count: string }>(
      db.url,
      `SELECT count(*) FROM machine_credentials m JOIN actors a ON a.id = m.actor_id WHERE a.name = 'ann' AND m.revoked_at IS NULL`,
    );
    expect(Number(cred.count)).toBeGreaterThan(0);
    const laptop = mkdtempSync(join(tmpdir(), 'svc-team-ann2-'));
    const connect = connectMachine(daemon.url, laptop, 'ann-tablet');
    const code = await connect.code;
    await resolveMachineAuthorization(daemon.url, annToken, code, 'approve');
    expect(await connect.exited).toBe(0);
    expect((await runSvc(['whoami'], { env: { SVC_CONFIG_DIR: laptop } })).code).toBe(0);

    const disabled = await runSvc(['actors', 'disable', 'ann'], { env: adminEnv });
    expect(disabled.code).toBe(0);
    expect(disabled.stdout).toContain('ann is disabled');

    const byToken = await http(daemon.url, 'GET', '/v1/whoami', { token: annToken });
    expect(byToken.status).toBe(403);
    expect(byToken.body).toMatchObject({ code: 'actor_disabled' });
    const byMachine = await runSvc(['whoami'], { env: { SVC_CONFIG_DIR: laptop } });
    expect(byMachine.code).toBe(3);
    expect(byMachine.stderr).toContain('actor_disabled');
    const pending = await pollMachineAuthorization(daemon.url, started.body.device_code, machine);
    expect(pending.status).toBe(403);
    expect(pending.body).toMatchObject({ code: 'actor_disabled' });

    const self = await runSvc(['actors', 'disable', 'admin'], { env: adminEnv });
    expect(self.stderr).toContain('cannot_disable_self');

    expect((await runSvc(['actors', 'enable', 'ann'], { env: adminEnv })).code).toBe(0);
    expect((await http(daemon.url, 'GET', '/v1/whoami', { token: annToken })).status).toBe(200);
    expect((await runSvc(['whoami'], { env: { SVC_CONFIG_DIR: laptop } })).code).toBe(0);
  });

  it('should manage memberships and keep the last admin', async () => {
    const add = await runSvc(['members', 'add', 'ann', '--role', 'admin'], { env: adminEnv });
    expect(add.code).toBe(0);
    expect(add.stdout).toContain('ann is admin of default');
    const list = await runSvc(['members', 'list', '--json'], { env: adminEnv });
    expect(JSON.parse(list.stdout)).toMatchObject({
      members: [
        { org: 'default', actor: 'admin', role: 'admin' },
        { org: 'default', actor: 'ann', role: 'admin' },
      ],
    });
    // ann is now an organization admin: she creates a colleague (a member of her organization).
    const annEnv = { ...adminEnv, SVC_TOKEN: annToken };
    expect((await runSvc(['actors', 'create', 'bob', '--kind', 'agent'], { env: annEnv })).code).toBe(0);
    expect((await runSvc(['members', 'remove', 'ann'], { env: adminEnv })).code).toBe(0);
    expect((await runSvc(['members', 'remove', 'bob'], { env: adminEnv })).code).toBe(0);
    expect((await runSvc(['members', 'remove', 'bob'], { env: adminEnv })).stderr).toContain('not_found');
    const last = await runSvc(['members', 'remove', 'admin'], { env: adminEnv });
    expect(last.stderr).toContain('last_admin');
    // Without a membership ann can no longer approve codes.
    const started = await startMachineAuthorization(daemon.url, { id: 'x', name: 'x' });
    const refused = await resolveMachineAuthorization(daemon.url, annToken, started.body.user_code, 'approve');
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'organization_membership_required' });
  });

  it('should keep several servers in the credential file, switch and log out', async () => {
    const configDir = mkdtempSync(join(tmpdir(), 'svc-team-multi-'));
    const env = { SVC_CONFIG_DIR: configDir };
    const none = await runSvc(['projects', 'list'], { env });
    expect(none.code).toBe(3);
    expect(none.stderr).toContain('not connected — run svc setup or svc connect');
    const other = daemon.url.replace('127.0.0.1', 'localhost');
    expect((await runSvc(['connect', daemon.url, '--token-stdin'], { env, input: daemon.token! })).code).toBe(0);
    expect((await runSvc(['connect', other, '--token-stdin'], { env, input: annToken })).code).toBe(0);
    const file = JSON.parse(readFileSync(join(configDir, 'credentials.json'), 'utf8')) as {
      current: string;
      servers: { url: string; actor: string }[];
    };
    expect(file.current).toBe(other);
    expect(file.servers.map((s) => [s.url, s.actor])).toEqual([
      [daemon.url, 'admin'],
      [other, 'ann'],
    ]);
    expect(JSON.parse((await runSvc(['whoami', '--json'], { env })).stdout)).toMatchObject({ name: 'ann' });
    expect((await runSvc(['auth', 'switch', daemon.url], { env })).code).toBe(0);
    expect(JSON.parse((await runSvc(['whoami', '--json'], { env })).stdout)).toMatchObject({ name: 'admin' });
    const listed = await runSvc(['auth', 'list'], { env });
    expect(listed.stdout).toMatch(/\*\s+│?\s*http:\/\/127\.0\.0\.1/);
    expect((await runSvc(['auth', 'switch', 'https://nowhere.example'], { env })).code).toBe(3);
    expect((await runSvc(['logout'], { env })).code).toBe(0);
    expect(JSON.parse((await runSvc(['whoami', '--json'], { env })).stdout)).toMatchObject({ name: 'ann' });
    expect((await runSvc(['logout'], { env })).code).toBe(0);
    expect((await runSvc(['logout'], { env })).stderr).toContain('not connected');
    expect(statSync(join(configDir, 'credentials.json')).mode & 0o777).toBe(0o600);
  });
});
