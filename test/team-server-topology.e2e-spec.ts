import { ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { load as loadYaml } from 'js-yaml';
import { Client } from 'pg';
import { request } from 'undici';

import {
  createProject,
  createTestDatabase,
  DaemonProcess,
  REPO_ROOT,
  startDaemonProcess,
  SVC_BIN,
  TestDatabase,
  waitFor,
} from '@app/testing';
import { CaddyProcess, caddyBinary, CADDYFILE, freePort, startCaddy, UPSTREAM_HEADER } from '@app/testing/caddy';
import { awaitRoomInMinute, resolveMachineAuthorization, sql } from '@app/testing/machine-auth';
import { startTcpProxy, TcpProxy } from '@app/testing/tcp-proxy';

import { clientAddress, compileTrust } from '../apps/daemon/src/common/client-identity';

const SECRET = 'e2e-team-server-topology-0123456789abcdef';
// The operator's first-boot admin token, as compose passes it to every replica (docker/.env).
const BOOTSTRAP_TOKEN = `svc_${randomBytes(32).toString('hex')}`;
const COMPOSE = join(REPO_ROOT, 'docker', 'compose.yaml');

// ---------------------------------------------------------------------------------------------------------------
// docker/compose.yaml and docker/Caddyfile, checked without a container engine (none on these machines): the YAML
// parsed and its services, environment and health checks checked; the Caddyfile adapted by the real caddy binary
// with the environment compose gives it.

type Service = {
  image?: string;
  build?: unknown;
  ports?: string[];
  expose?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] | string };
  deploy?: { replicas?: number };
  volumes?: string[];
  networks?: string[] | Record<string, { ipv4_address?: string }>;
};
type Compose = {
  name: string;
  services: Record<string, Service>;
  networks: Record<string, { ipam?: { config: { subnet: string }[] } }>;
};

// Compose's interpolation of ${VAR}, ${VAR:-default} and ${VAR:?error} with the given variables.
function interpolate(text: string, vars: Record<string, string>): string {
  return text.replace(/\$\{([A-Z0-9_]+)(?::([-?])([^}]*))?\}/g, (_, name: string, kind?: string, arg?: string) => {
    const value = vars[name];
    if (value !== undefined && value !== '') return value;
    if (kind === '?') throw new Error(`compose would refuse: ${arg}`);
    return kind === '-' ? (arg ?? '') : '';
  });
}

function adaptCaddyfile(env: Record<string, string>): Record<string, unknown> {
  const home = mkdtempSync(join(tmpdir(), 'svc-caddy-adapt-'));
  const out = execFileSync(caddyBinary()!, ['adapt', '--config', CADDYFILE, '--adapter', 'caddyfile'], {
    env: { PATH: process.env.PATH, HOME: home, XDG_DATA_HOME: join(home, 'data'), ...env },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return JSON.parse(out) as Record<string, unknown>;
}

describe('docker/compose.yaml and docker/Caddyfile (no container engine here: parsed and adapted)', () => {
  const text = readFileSync(COMPOSE, 'utf8');
  const compose = loadYaml(text) as Compose;
  const { postgres, daemon, caddy } = compose.services;
  const defaults = (value: string) =>
    interpolate(value, { SVC_SERVER_SECRET: 'x'.repeat(48), SVC_BOOTSTRAP_TOKEN: BOOTSTRAP_TOKEN });

  it('should run PostgreSQL, daemon replicas and Caddy, with only Caddy published', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['backup', 'caddy', 'daemon', 'postgres']);
    expect(daemon.deploy?.replicas).toBe(3);
    expect(daemon.ports).toBeUndefined();
    expect(postgres.ports).toBeUndefined();
    expect(caddy.ports!.map(defaults)).toEqual(['80:80', '443:443', '443:443/udp']);
    // a current Caddy in the image (pinned by digest: test/compose.e2e-spec.ts); CI runs Debian's 2.6 as a process
    expect(caddy.image).toMatch(/^caddy:2\.1\d\./);
    expect(caddy.volumes).toContain('./Caddyfile:/etc/caddy/Caddyfile:ro');
  });

  it('should trust the proxy’s fixed address only, inside the network’s subnet', () => {
    const trusted = defaults(daemon.environment!.SVC_API_TRUSTED_PROXIES);
    const caddyNet = caddy.networks as Record<string, { ipv4_address?: string }>;
    expect(defaults(caddyNet.svc.ipv4_address!)).toBe(trusted);
    expect(trusted).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    const subnet = defaults(compose.networks.svc.ipam!.config[0].subnet);
    expect(subnet).toBe('172.30.57.0/24');
    expect(trusted.startsWith('172.30.57.')).toBe(true);
    // the daemons refuse to start without the shared secret
    expect(() => interpolate(daemon.environment!.SVC_SERVER_SECRET, {})).toThrow(/SVC_SERVER_SECRET/);
    expect(defaults(daemon.environment!.SVC_PUBLIC_URL)).toBe('https://localhost');
  });

  it('should take the first admin’s token from the operator (a container’s output is a log: never shown there)', () => {
    // required, like the secret: compose refuses to start without it, so no replica makes up a token nobody sees
    expect(() => interpolate(daemon.environment!.SVC_BOOTSTRAP_TOKEN, {})).toThrow(/SVC_BOOTSTRAP_TOKEN/);
    expect(defaults(daemon.environment!.SVC_BOOTSTRAP_TOKEN)).toBe(BOOTSTRAP_TOKEN);
    // the file that holds it stays out of the image's build context and out of git
    const ignored = (file: string) => readFileSync(join(REPO_ROOT, file), 'utf8').split('\n');
    expect(ignored('.dockerignore')).toContain('**/.env');
    expect(ignored('.gitignore')).toContain('.env');
  });

  it('should gate on /readyz: daemons healthy before Caddy, PostgreSQL healthy before the daemons', () => {
    expect(JSON.stringify(daemon.healthcheck!.test)).toContain('http://127.0.0.1:7700/readyz');
    expect(daemon.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    expect(caddy.depends_on).toEqual({ daemon: { condition: 'service_healthy' } });
    expect(JSON.stringify(postgres.healthcheck!.test)).toContain('pg_isready');
  });

  it('should name every default upstream after a compose replica of the daemon service', () => {
    const upstreams = defaults(caddy.environment!.SVC_UPSTREAMS).split(' ');
    expect(upstreams).toEqual(
      Array.from({ length: daemon.deploy!.replicas! }, (_, i) => `${compose.name}-daemon-${i + 1}:7700`),
    );
  });

  const caddyDescribe = caddyBinary() || process.env.CI ? describe : describe.skip;
  caddyDescribe('the Caddyfile, adapted by caddy with compose’s environment', () => {
    const composeEnv = () =>
      Object.fromEntries(Object.entries(caddy.environment!).map(([k, v]) => [k, defaults(v)])) as Record<
        string,
        string
      >;
    const proxyOf = (config: Record<string, unknown>): Record<string, unknown> => {
      const found = JSON.stringify(config).match(/"handler":"reverse_proxy"/);
      expect(found).not.toBeNull();
      let handler: Record<string, unknown> | null = null;
      const walk = (node: unknown) => {
        if (Array.isArray(node)) node.forEach(walk);
        else if (node && typeof node === 'object') {
          const o = node as Record<string, unknown>;
          if (o.handler === 'reverse_proxy') handler = o;
          Object.values(o).forEach(walk);
        }
      };
      walk(config);
      return handler!;
    };

    it('should serve localhost with the internal CA, round robin over the replicas, /readyz checks, unbuffered', () => {
      const config = adaptCaddyfile(composeEnv());
      const text = JSON.stringify(config);
      expect(text).toContain('"host":["localhost"]');
      expect(text).toContain('"module":"internal"');
      expect(text).toContain('"admin":{"disabled":true}');
      const proxy = proxyOf(config);
      expect(proxy.upstreams).toEqual([
        { dial: 'svc-daemon-1:7700' },
        { dial: 'svc-daemon-2:7700' },
        { dial: 'svc-daemon-3:7700' },
      ]);
      expect(proxy.flush_interval).toBe(-1);
      // the balancer's check is /livez (503 only while a replica drains), not /readyz (503 during a database outage)
      expect(proxy.health_checks).toEqual({ active: expect.objectContaining({ uri: '/livez' }) });
      // only GET and HEAD are sent again after they reached a replica; no passive health (no fail_duration)
      expect(proxy.load_balancing).toMatchObject({ retries: 3, retry_match: [{ method: ['GET', 'HEAD'] }] });
      expect(proxy.load_balancing).toMatchObject({ selection_policy: { policy: 'round_robin' } });
      // no trusted_proxies: Caddy replaces a client's X-Forwarded-For rather than extending it
      expect(proxy.trusted_proxies).toBeUndefined();
      expect(proxy.headers).toBeUndefined();
    });

    it('should ask an ACME CA for a real certificate when a domain and an e-mail are set', () => {
      const config = adaptCaddyfile({ ...composeEnv(), SVC_SITE: 'svc.example.com', SVC_TLS: 'ops@example.com' });
      const text = JSON.stringify(config);
      expect(text).toContain('"host":["svc.example.com"]');
      expect(text).toContain('"module":"acme"');
      expect(text).not.toContain('"module":"internal"');
    });
  });
});

// ---------------------------------------------------------------------------------------------------------------
// The same topology as processes: Caddy (Debian's package) in front of three daemons on one PostgreSQL database.

interface Reply {
  status: number;
  upstream: string;
  body: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
}

interface Cli {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  waitFor: (what: string, test: (out: string) => boolean, timeoutMs?: number) => Promise<void>;
  exited: Promise<number | null>;
}

function startCli(args: string[], env: Record<string, string>): Cli {
  const child = spawn(process.execPath, [SVC_BIN, ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const waitForOutput = async (what: string, test: (o: string) => boolean, timeout = 20_000) => {
    await waitFor(() => test(out), { timeout, interval: 50, what: `svc ${args[0]}: ${what}` }).catch((e: Error) => {
      throw new Error(`${e.message}\nstdout:\n${out}\nstderr:\n${err}`);
    });
  };
  return { child, out: () => out, err: () => err, waitFor: waitForOutput, exited };
}

// Skipped on a developer machine without caddy; under CI (.ci/run installs it) a missing caddy fails the run.
const describeTopology = caddyBinary() || process.env.CI ? describe : describe.skip;

describeTopology('the team server topology as processes: Caddy over HTTPS in front of three replicas', () => {
  let db: TestDatabase;
  const replicas: DaemonProcess[] = [];
  let caddy: CaddyProcess;
  let admin: string;
  // the upstream list as Caddy has it, in its round-robin order
  let order: string[];
  const upstreamOf = (d: DaemonProcess) => `127.0.0.1:${d.port}`;

  beforeAll(async () => {
    db = await createTestDatabase('server', 'topology');
    const port = await freePort();
    const env = {
      SVC_DATABASE_URL: db.url,
      SVC_SERVER_SECRET: SECRET,
      // Caddy connects to the replicas from 127.0.0.1: that address, and no other, is the proxy.
      SVC_API_TRUSTED_PROXIES: '127.0.0.1',
      SVC_PUBLIC_URL: `https://127.0.0.1:${port}`,
      SVC_BOOTSTRAP_TOKEN: BOOTSTRAP_TOKEN,
    };
    // Booted together, as compose starts them: one applies the migrations and one creates the admin (advisory locks).
    replicas.push(...(await Promise.all([0, 1, 2].map(() => startDaemonProcess({ env })))));
    expect(replicas.filter((d) => /first boot/.test(d.stderr()))).toHaveLength(1);
    admin = BOOTSTRAP_TOKEN;
    order = replicas.map(upstreamOf);
    caddy = await startCaddy({ upstreams: order, port, upstreamHeader: true });
  });

  afterAll(async () => {
    await caddy?.stop();
    await Promise.all(replicas.map((d) => d.stop()));
    await db?.drop();
  });

  // One request through the proxy, in-process (undici trusting Caddy's root), from the given loopback address.
  async function viaProxy(
    method: 'GET' | 'POST',
    path: string,
    options: { body?: unknown; token?: string; headers?: Record<string, string>; from?: string } = {},
  ): Promise<Reply> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const res = await request(`${caddy.url}${path}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      dispatcher: agentFor(options.from ?? '127.0.0.1'),
    });
    const text = await res.body.text();
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // not JSON
    }
    return { status: res.statusCode, upstream: String(res.headers[UPSTREAM_HEADER]), body, headers: res.headers };
  }
  const agents = new Map<string, ReturnType<CaddyProcess['agent']>>();
  const agentFor = (from: string) => {
    if (!agents.has(from)) agents.set(from, caddy.agent(from));
    return agents.get(from)!;
  };

  // Which replica served `action`'s one request through the proxy: round robin hands out the upstreams in order, so
  // a probe just before and just after pin it, when nothing else went through the proxy meanwhile and no replica
  // was skipped (on a loaded machine a health check can time out: then `undo` and try again).
  async function servedBy<T>(
    action: () => Promise<T>,
    undo: (value: T) => Promise<void>,
  ): Promise<{ value: T; replica: DaemonProcess }> {
    for (let attempt = 1; ; attempt += 1) {
      const before = (await viaProxy('GET', '/readyz')).upstream;
      const value = await action();
      const after = (await viaProxy('GET', '/readyz')).upstream;
      const i = order.indexOf(before);
      if (i >= 0 && after === order[(i + 2) % order.length])
        return { value, replica: replicas[(i + 1) % order.length] };
      await undo(value);
      if (attempt === 3) throw new Error(`could not pin the serving replica (${before}, then ${after})`);
    }
  }

  const cliEnv = (extra: Record<string, string> = {}) => ({
    NODE_EXTRA_CA_CERTS: caddy.rootCaPath,
    SVC_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'svc-topology-cli-')),
    ...extra,
  });

  it('should serve HTTPS with the internal CA and spread requests over the three replicas', async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 6; i += 1) {
      const res = await viaProxy('GET', '/v1/whoami', { token: admin });
      expect(res.status).toBe(200);
      seen.add(res.upstream);
    }
    expect([...seen].sort()).toEqual([...order].sort());
    // an untrusting client is refused: the certificate is Caddy's own CA's, not a public one
    await expect(request(`${caddy.url}/readyz`)).rejects.toThrow();
  });

  it('should make the operator’s token the admin’s, stored as a hash only and printed by no replica', async () => {
    expect((await viaProxy('GET', '/v1/whoami', { token: admin })).body).toMatchObject({
      name: 'admin',
      is_admin: true,
    });
    for (const d of replicas) expect(d.stdout() + d.stderr()).not.toContain(BOOTSTRAP_TOKEN);
    const stored = await sql<{ token_hash: Buffer }>(db.url, `SELECT token_hash FROM api_tokens`);
    expect(stored.map((r) => r.token_hash.toString('hex'))).toEqual([
      createHash('sha256').update(BOOTSTRAP_TOKEN).digest('hex'),
    ]);
    // no row of any table holds the token itself
    const tables = await sql<{ name: string }>(
      db.url,
      `SELECT quote_ident(table_name) AS name FROM information_schema.tables
        WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
    );
    const holding = await sql<{ name: string }>(
      db.url,
      tables.map((t) => `SELECT '${t.name}' AS name FROM ${t.name} x WHERE x::text LIKE $1`).join(' UNION ALL '),
      [`%${BOOTSTRAP_TOKEN.slice(4)}%`],
    );
    expect(holding).toEqual([]);
  });

  // `svc doctor` of a client that trusts Caddy's CA, through the proxy: every check passes, TLS verified (exit 0).
  // Run straight against a replica by a client that does not trust it: the public URL's TLS fails (exit 1).
  it('should pass the doctor through the proxy with TLS verified, and fail it where the CA is not trusted', async () => {
    const doctor = (env: Record<string, string>) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(
          process.execPath,
          [SVC_BIN, 'doctor'],
          { env: { PATH: process.env.PATH, HOME: process.env.HOME, SVC_TOKEN: admin, ...env }, timeout: 60_000 },
          (error, stdout, stderr) =>
            resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
        );
      });
    const [trusted, untrusted] = await Promise.all([
      doctor({ SVC_URL: caddy.url, NODE_EXTRA_CA_CERTS: caddy.rootCaPath }),
      doctor({ SVC_URL: replicas[0].url }),
    ]);
    expect(trusted.stdout).toMatch(
      new RegExp(`^ok +public url +${caddy.url.replace(/[.]/g, '\\.')}: TLS verified, /readyz answered 200$`, 'm'),
    );
    expect(trusted.stdout).toMatch(/^ok +server secret +.*shared by 3 replicas/m);
    expect(trusted.stdout).not.toMatch(/^FAIL/m);
    expect(trusted.code).toBe(0);
    expect(untrusted.stdout).toMatch(
      new RegExp(`^FAIL +public url +${caddy.url.replace(/[.]/g, '\\.')}: unreachable over TLS`, 'm'),
    );
    expect(untrusted.code).toBe(1);
  });

  it('should connect a machine with the device code started through the proxy and approved on another replica', async () => {
    const env = cliEnv();
    const {
      value: { cli, code },
      replica: starter,
    } = await servedBy(
      async () => {
        const started = startCli(['connect', caddy.url, '--machine-name', 'topology box'], env);
        let found = '';
        await started.waitFor('code', (out) => {
          const m = /^\s+([BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4})\s*$/m.exec(out);
          found = m ? m[1] : '';
          return found !== '';
        });
        return { cli: started, code: found };
      },
      async ({ cli: started }) => {
        started.child.kill('SIGTERM');
        await started.exited;
      },
    );
    const approver = replicas.find((d) => d !== starter)!;
    expect((await resolveMachineAuthorization(approver.url, admin, code, 'approve')).status).toBe(200);
    expect(await cli.exited).toBe(0);
    expect(cli.out()).toContain(`connected to ${caddy.url}`);
    const stored = JSON.parse(readFileSync(join(env.SVC_CONFIG_DIR, 'credentials.json'), 'utf8')) as {
      servers: { url: string; kind: string }[];
    };
    expect(stored.servers[0]).toMatchObject({ url: caddy.url, kind: 'machine_credential' });
    // and the stored credential works through the proxy, over TLS, from a fresh process
    const whoami = startCli(['whoami', '--json'], { ...env });
    expect(await whoami.exited).toBe(0);
    expect(JSON.parse(whoami.out())).toMatchObject({ name: 'admin', via: 'machine_credential' });
  });

  it('should key the start budget by the real client address and ignore a forged X-Forwarded-For', async () => {
    await awaitRoomInMinute(db.url);
    const statuses: number[] = [];
    const servedFrom = new Set<string>();
    for (let i = 0; i < 7; i += 1) {
      // every request claims another client; the proxy says who it really is (127.0.0.2)
      const res = await viaProxy('POST', '/api/machine/authorizations', {
        body: { machine_id: `m-topo-a-${i}`, machine_name: 'a' },
        headers: { 'x-forwarded-for': `203.0.113.${i + 1}` },
        from: '127.0.0.2',
      });
      statuses.push(res.status);
      servedFrom.add(res.upstream);
      if (res.status === 429) expect(res.body).toMatchObject({ code: 'authorization_start_rate_limited' });
    }
    // the budget is shared by the replicas (all three answered) and spent by the one real client
    expect(statuses).toEqual([201, 201, 201, 201, 201, 201, 429]);
    expect(servedFrom.size).toBe(3);
    // another client behind the same proxy has its own budget (the proxy's address is not the key)
    const other = await viaProxy('POST', '/api/machine/authorizations', {
      body: { machine_id: 'm-topo-b', machine_name: 'b' },
      from: '127.0.0.3',
    });
    expect(other.status).toBe(201);
    const subjects = await sql<{ subject: string }>(
      db.url,
      `SELECT DISTINCT subject FROM rate_counters WHERE scope = 'machine_auth_start' ORDER BY subject`,
    );
    expect(subjects.map((r) => r.subject)).toEqual(expect.arrayContaining(['127.0.0.2', '127.0.0.3']));
    expect(subjects.filter((r) => r.subject.startsWith('203.0.113.'))).toEqual([]);
    const keys = await sql<{ client_key: string }>(
      db.url,
      `SELECT DISTINCT client_key FROM machine_authorizations WHERE machine_id LIKE 'm-topo-a-%'`,
    );
    expect(keys).toEqual([{ client_key: '127.0.0.2' }]);
  });

  it('should take the hop the proxy vouches for, also if a proxy passed a forged header on', () => {
    // Caddy replaces the header (above); were it to append (trusted_proxies), the daemon still takes the last hop.
    const trust = compileTrust(['127.0.0.1']);
    const req = (xff: string) =>
      ({ headers: { 'x-forwarded-for': xff }, socket: { remoteAddress: '127.0.0.1' } }) as unknown as IncomingMessage;
    expect(clientAddress(req('203.0.113.9, 198.51.100.7'), trust)).toBe('198.51.100.7');
    expect(clientAddress(req('198.51.100.7'), trust)).toBe('198.51.100.7');
  });

  it('should stream, unbuffered through the proxy, the writes of every replica, and survive its replica being killed', async () => {
    const record = async (base: string) => {
      const res = await request(`${base}/v1/charge/decisions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
        body: JSON.stringify({ reason: 'dry_run' }),
      });
      expect(res.statusCode).toBe(201);
      return String(((await res.body.json()) as { event_id: string }).event_id);
    };
    const idsIn = (out: string) =>
      out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { type: string; id: string | null; data: { name?: string } })
        .filter((n) => n.type === 'event' && n.data.name === 'ChargeDecisionMade')
        .map((n) => n.id!);

    // The stream's one request goes through the proxy; pinned to its replica by the probes around it.
    const stop = async (cli: Cli) => {
      cli.child.kill('SIGTERM');
      await cli.exited;
    };
    const { value: stream, replica: holder } = await servedBy(async () => {
      const opened = startCli(
        ['events', 'stream', '--json', '--all-projects'],
        cliEnv({ SVC_URL: caddy.url, SVC_TOKEN: admin }),
      );
      // a write straight to a replica (not through the proxy) shows when the stream is open
      await waitFor(
        async () => {
          const id = await record(replicas[0].url);
          // not there within a moment: the stream is not open yet, write again
          return waitFor(() => idsIn(opened.out()).includes(id), { timeout: 200, interval: 20 }).catch(() => false);
        },
        { timeout: 20_000, what: 'the stream to open' },
      );
      return opened;
    }, stop);
    try {
      // a write through each replica reaches the one stream, whichever replica serves it
      const written = await Promise.all(replicas.map((d) => record(d.url)));
      await stream.waitFor('a write of every replica', (out) => written.every((id) => idsIn(out).includes(id)));

      // the replica serving the stream dies (SIGKILL: no drain); the others keep serving through the proxy once the
      // active health check has taken it out (until then a GET is sent again to another replica, a write is not:
      // docs/operations.md, "Rolling restarts")
      const logged = caddy.logs().length;
      await holder.kill();
      await waitFor(
        () =>
          caddy
            .logs()
            .slice(logged)
            .split('\n')
            .some((l) => /health_checker\.active/.test(l) && l.includes(`"${upstreamOf(holder)}"`)),
        { what: 'the active health check to fail the killed replica', timeout: 20_000 },
      );
      for (let i = 0; i < 6; i += 1) {
        const res = await viaProxy('GET', '/v1/whoami', { token: admin });
        expect(res.status).toBe(200);
        expect(res.upstream).not.toBe(upstreamOf(holder));
      }
      const during: string[] = [];
      for (let i = 0; i < 3; i += 1) {
        const res = await viaProxy('POST', '/v1/charge/decisions', { token: admin, body: { reason: 'dry_run' } });
        expect(res.status).toBe(201);
        expect(res.upstream).not.toBe(upstreamOf(holder));
        during.push(String(res.body.event_id));
      }
      // the stream reconnects through the proxy to a live replica and, with Last-Event-ID, misses nothing
      await stream.waitFor('the writes made while it reconnected', (out) =>
        during.every((id) => idsIn(out).includes(id)),
      );
      expect(stream.err()).toMatch(/reconnecting/);
      const ids = idsIn(stream.out());
      expect(new Set(ids).size).toBe(ids.length);
    } finally {
      await stop(stream);
    }
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Rolling restarts and database outages through Caddy (issue 40): two replicas whose database is reached through a
// TCP relay the test cuts (the outage), Caddy checking /livez every half second.

describeTopology('rolling restart and database outage through Caddy, two replicas', () => {
  let db: TestDatabase;
  let relay: TcpProxy;
  let caddy: CaddyProcess;
  const replicas: DaemonProcess[] = [];
  let env: Record<string, string>;
  const admin = BOOTSTRAP_TOKEN;

  beforeAll(async () => {
    db = await createTestDatabase('server', 'rolling');
    relay = await startTcpProxy({ host: new URL(db.url).hostname, port: Number(new URL(db.url).port || 5432) });
    const port = await freePort();
    env = {
      SVC_DATABASE_URL: relay.via(db.url),
      SVC_SERVER_SECRET: SECRET,
      SVC_API_TRUSTED_PROXIES: '127.0.0.1',
      SVC_PUBLIC_URL: `https://127.0.0.1:${port}`,
      SVC_BOOTSTRAP_TOKEN: BOOTSTRAP_TOKEN,
    };
    replicas.push(...(await Promise.all([0, 1].map(() => startDaemonProcess({ env, timeoutMs: 120_000 })))));
    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    try {
      await createProject(pg, { id: 'roll', prefix: 'ROLL' });
    } finally {
      await pg.end();
    }
    caddy = await startCaddy({
      upstreams: replicas.map((d) => `127.0.0.1:${d.port}`),
      port,
      upstreamHeader: true,
      healthInterval: '500ms',
    });
  });

  afterAll(async () => {
    await caddy?.stop();
    await relay?.start();
    await Promise.all(replicas.map((d) => d.stop()));
    await relay?.stop();
    await db?.drop();
  });

  async function viaCaddy(method: 'GET' | 'POST', path: string, body?: unknown) {
    const res = await request(`${caddy.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${admin}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      dispatcher: agent,
    });
    const text = await res.body.text();
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // not JSON: kept as text below
    }
    return { status: res.statusCode, body: json, text, headers: res.headers };
  }
  let agent: ReturnType<CaddyProcess['agent']>;
  beforeAll(() => {
    if (caddy) agent = caddy.agent();
  });

  it('should answer every request of a mixed load while one replica is restarted: no 5xx, no acknowledged write lost', async () => {
    const statuses = new Map<number, number>();
    const failures: string[] = [];
    const acknowledged: string[] = [];
    // Caddy's own 503 when, for an instant, it finds no replica to send a request to: Caddy 2.6's round robin shares
    // one counter between concurrent requests, so with one replica out a request can look at that one twice and at
    // the other never, and 2.6 does not try a POST again after that. No replica saw the request, so a client may send
    // it again; this one does, as a client honouring the 503's Retry-After would, and such writes land exactly once.
    const resent: string[] = [];
    const proxyFoundNone = (res: Awaited<ReturnType<typeof viaCaddy>>) =>
      res.status === 503 &&
      res.body.code === 'service_unavailable' &&
      res.headers['retry-after'] === '2' &&
      res.headers[UPSTREAM_HEADER] === undefined;
    let running = true;
    let sent = 0;
    const worker = async (w: number) => {
      for (let i = 0; running; i += 1) {
        const write = i % 2 === 0;
        const title = `rolling ${w}-${i}`;
        const send = () =>
          write
            ? viaCaddy('POST', '/v1/items', { project: 'roll', title })
            : viaCaddy('GET', '/v1/items?project=roll&limit=5');
        let res = await send();
        for (let again = 0; again < 5 && proxyFoundNone(res); again += 1) {
          if (write) resent.push(title);
          await new Promise((r) => setTimeout(r, 100));
          res = await send();
        }
        sent += 1;
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (write && res.status === 201) acknowledged.push(title);
        else if (res.status !== (write ? 201 : 200) && failures.length < 5) failures.push(`${res.status} ${res.text}`);
      }
    };
    const load = Promise.all([0, 1, 2, 3].map(worker));
    try {
      await waitFor(() => sent >= 40, { what: 'the load to run', timeout: 30_000 });
      // SIGTERM to one replica under load: it answers /livez 503 shutting_down (the balancer takes it out) while it
      // still serves what reaches it, then stops accepting and exits 0.
      const [leaving, staying] = replicas;
      const oldPort = leaving.port;
      leaving.child.kill('SIGTERM');
      const draining = await waitFor(
        async () => {
          const res = await fetch(`${leaving.url}/livez`).catch(() => null);
          return res?.status === 503 ? res : null;
        },
        { what: 'the leaving replica to answer /livez 503', timeout: 10_000, interval: 20 },
      );
      expect(draining.headers.get('retry-after')).toBe('1');
      expect(await draining.json()).toMatchObject({ code: 'shutting_down' });
      expect(await leaving.stop()).toBe(0);
      const servedAfter = sent;
      await waitFor(() => sent >= servedAfter + 40, { what: 'the load on the remaining replica', timeout: 30_000 });
      // the replacement, on the same address; the balancer takes it in once its /livez answers
      const back = await startDaemonProcess({ env, port: oldPort, timeoutMs: 120_000 });
      replicas[0] = back;
      await waitFor(
        async () => String((await viaCaddy('GET', '/v1/whoami')).headers[UPSTREAM_HEADER]) === `127.0.0.1:${back.port}`,
        { what: 'the replacement to serve through the proxy', timeout: 20_000, interval: 50 },
      );
      expect(staying.child.exitCode).toBeNull();
    } finally {
      running = false;
      await load;
    }
    expect({ failures, statuses: Object.fromEntries(statuses) }).toEqual({
      failures: [],
      statuses: { 200: expect.any(Number), 201: expect.any(Number) },
    });
    // every create that was acknowledged is there, once; one sent again after the proxy found no replica too
    const rows = await sql<{ title: string }>(db.url, `SELECT title FROM items WHERE title = ANY($1)`, [acknowledged]);
    expect(rows.length).toBe(acknowledged.length);
    expect(acknowledged.length).toBeGreaterThan(20);
    expect(resent.filter((t) => !acknowledged.includes(t))).toEqual([]);
  });

  it('should pass the replicas’ database_unavailable through during an outage; svc doctor names PostgreSQL; svc connect keeps waiting', async () => {
    const configDir = mkdtempSync(join(tmpdir(), 'svc-rolling-connect-'));
    const cli = startCli(['connect', caddy.url, '--machine-name', 'outage box'], {
      NODE_EXTRA_CA_CERTS: caddy.rootCaPath,
      SVC_CONFIG_DIR: configDir,
    });
    let code = '';
    await cli.waitFor('the user code', (out) => {
      code = /^\s+([BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4})\s*$/m.exec(out)?.[1] ?? '';
      return code !== '';
    });
    const logged = replicas.map((d) => d.stdout().length);
    await relay.stop();
    try {
      // svc connect's poll is answered 503 machine_credential_unavailable with Retry-After (a replica logs the 503s it
      // answers while the database is away), passed through by Caddy, and it keeps waiting
      await waitFor(
        () =>
          replicas.some((d, i) =>
            d
              .stdout()
              .slice(logged[i])
              .split('\n')
              .some((l) => /MachineAuthorization/.test(l) && /answered 503/.test(l)),
          ),
        { what: 'a poll answered 503 during the outage', timeout: 30_000 },
      );
      expect(cli.child.exitCode).toBeNull();
      // the replicas stay in (their /livez answers) and their own answer reaches the client, not Caddy's empty 503
      const res = await waitFor(
        async () => {
          const r = await viaCaddy('GET', '/v1/whoami');
          return r.status === 503 ? r : null;
        },
        { what: 'a 503 through the proxy', timeout: 20_000 },
      );
      expect(res.body).toMatchObject({ code: 'database_unavailable' });
      expect(res.headers['retry-after']).toMatch(/^[1-9][0-9]*$/);
      expect(String(res.headers[UPSTREAM_HEADER])).toMatch(/^127\.0\.0\.1:\d+$/);
      // svc doctor through the proxy says what is wrong
      const doctor = startCli(['doctor'], {
        NODE_EXTRA_CA_CERTS: caddy.rootCaPath,
        SVC_URL: caddy.url,
        SVC_TOKEN: admin,
        SVC_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'svc-rolling-doctor-')),
      });
      expect(await doctor.exited).toBe(1);
      expect(doctor.out()).toMatch(/^FAIL +database +PostgreSQL is unreachable/m);
      expect(cli.child.exitCode).toBeNull();
    } finally {
      await relay.start();
    }
    await waitFor(async () => (await viaCaddy('GET', '/readyz')).status === 200, {
      what: 'readiness',
      timeout: 30_000,
    });
    await waitFor(
      async () => (await resolveMachineAuthorization(replicas[1].url, admin, code, 'approve')).status === 200,
      { what: 'the approval', timeout: 20_000 },
    );
    expect(await cli.exited).toBe(0);
    expect(cli.out()).toContain(`connected to ${caddy.url}`);
  });
});
