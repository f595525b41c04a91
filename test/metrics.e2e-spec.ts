import { readFileSync } from 'node:fs';
import { Client } from 'pg';
import { createServer } from 'node:net';
import { join } from 'node:path';

import {
  REPO_ROOT,
  createProject,
  runSvc,
  svcEnv,
  createTestDatabase,
  DaemonProcess,
  startDaemonProcess,
  TestDatabase,
  withClient,
  waitFor,
} from '@app/testing';
import {
  createActor,
  freshClientIp,
  http,
  pollMachineAuthorization,
  startMachineAuthorization,
  TestActor,
} from '@app/testing/machine-auth';

import { SWEEP_LOCK_KEY } from '../apps/daemon/src/machine-authorization/limits';

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

// The value of one sample of the exposition text (labels in any order), or 0 when the series is not there yet.
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = new Map([...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => present.get(k) === v)) return Number(match[3]);
  }
  return 0;
}

const FAMILIES = [
  'svc_http_request_duration_seconds',
  'svc_frontier_compute_duration_seconds',
  'svc_frontier_graph_refresh_duration_seconds',
  'svc_frontier_graph_evictions_total',
  'svc_event_streams_open',
  'svc_device_code_requests_total',
  'svc_device_code_refusals_total',
  'svc_db_pool_connections',
  'svc_device_code_pool',
  'svc_sweeps_total',
  'svc_sweep_duration_seconds',
  'svc_build_info',
  'process_cpu_user_seconds_total',
  'nodejs_eventloop_lag_seconds',
];

describe('GET /metrics', () => {
  let db: TestDatabase;
  let daemon: DaemonProcess;
  let admin: string;
  let member: TestActor;
  let localPort: number;

  const scrape = async (): Promise<string> => {
    const res = await http(daemon.url, 'GET', '/metrics', { token: admin });
    expect(res.status).toBe(200);
    return res.text;
  };

  beforeAll(async () => {
    db = await createTestDatabase('server', 'metrics');
    localPort = await freePort();
    daemon = await startDaemonProcess({
      env: { SVC_DATABASE_URL: db.url, SVC_METRICS_PORT: String(localPort), SVC_API_TRUSTED_PROXIES: '127.0.0.1' },
    });
    admin = daemon.token!;
    member = await createActor(db.url, { name: 'metrics-member' });
    await withClient(db.url, (client) => createProject(client, { id: 'metered', prefix: 'MET' }));
  });

  afterAll(async () => {
    await daemon?.stop();
    await db?.drop();
  });

  it('should refuse an anonymous scrape on the public port with 401 and a member with 403', async () => {
    const anonymous = await http(daemon.url, 'GET', '/metrics');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ code: 'unauthorized' });
    expect(anonymous.text).not.toContain('svc_');
    const asMember = await http(daemon.url, 'GET', '/metrics', { token: member.token });
    expect(asMember.status).toBe(403);
    expect(asMember.body).toMatchObject({ code: 'forbidden' });
  });

  it('should give an admin every family in Prometheus text format', async () => {
    const res = await http(daemon.url, 'GET', '/metrics', { token: admin });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    for (const family of FAMILIES) expect(res.text).toContain(`# TYPE ${family} `);
    // the boot-time sweep and the pool are there from the start
    expect(sample(res.text, 'svc_sweeps_total', { sweep: 'machine_authorizations', outcome: 'ran' })).toBeGreaterThan(
      0,
    );
    expect(sample(res.text, 'svc_db_pool_connections', { state: 'max' })).toBe(10);
    expect(sample(res.text, 'svc_db_pool_connections', { state: 'total' })).toBeGreaterThan(0);
  });

  it('should label requests by route pattern and status, never by the raw URL', async () => {
    const before = await scrape();
    const missing = await http(daemon.url, 'GET', '/v1/items/MET-4242', { token: admin });
    expect(missing.status).toBe(404);
    expect((await http(daemon.url, 'GET', '/no/such/route/777')).status).toBe(404);
    const after = await scrape();
    const item = { method: 'GET', route: '/v1/items/:ref', status_code: '404' };
    expect(sample(after, 'svc_http_request_duration_seconds_count', item)).toBe(
      sample(before, 'svc_http_request_duration_seconds_count', item) + 1,
    );
    const unmatched = { method: 'GET', route: '(unmatched)', status_code: '404' };
    expect(sample(after, 'svc_http_request_duration_seconds_count', unmatched)).toBeGreaterThan(
      sample(before, 'svc_http_request_duration_seconds_count', unmatched),
    );
    expect(after).not.toContain('MET-4242');
    expect(after).not.toContain('/no/such/route');
  });

  it('should time frontier computes and graph refreshes', async () => {
    const before = await scrape();
    for (let i = 0; i < 2; i += 1) {
      const res = await http(daemon.url, 'GET', '/v1/charge/frontier?project=metered&wip_cap=' + (i + 1), {
        token: admin,
      });
      expect(res.status).toBe(200);
    }
    const after = await scrape();
    expect(sample(after, 'svc_frontier_compute_duration_seconds_count')).toBeGreaterThanOrEqual(
      sample(before, 'svc_frontier_compute_duration_seconds_count') + 2,
    );
    const refreshes = (text: string) =>
      ['load', 'changed', 'unchanged'].reduce(
        (sum, outcome) => sum + sample(text, 'svc_frontier_graph_refresh_duration_seconds_count', { outcome }),
        0,
      );
    expect(refreshes(after)).toBeGreaterThanOrEqual(refreshes(before) + 2);
    expect(sample(after, 'svc_frontier_graph_refresh_duration_seconds_count', { outcome: 'load' })).toBeGreaterThan(0);
  });

  it('should count device-code starts, polls and refusals by code', async () => {
    const before = await scrape();
    const ip = freshClientIp();
    const machine = { id: 'metrics-m1', name: 'metered box' };
    const started = await startMachineAuthorization(daemon.url, machine, ip);
    expect(started.status).toBe(201);
    const pending = await pollMachineAuthorization(daemon.url, started.body.device_code, machine, ip);
    expect(pending.status).toBe(202);
    const unknown = await pollMachineAuthorization(daemon.url, 'x'.repeat(43), machine, ip);
    expect(unknown.status).toBeGreaterThanOrEqual(400);
    const refusal = String((unknown.body as { code: string }).code);
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) =>
      sample(after, name, labels) - sample(before, name, labels);
    expect(delta('svc_device_code_requests_total', { operation: 'start', outcome: 'ok' })).toBe(1);
    expect(delta('svc_device_code_requests_total', { operation: 'poll', outcome: 'authorization_pending' })).toBe(1);
    expect(delta('svc_device_code_requests_total', { operation: 'poll', outcome: refusal })).toBe(1);
    expect(delta('svc_device_code_refusals_total', { operation: 'poll', code: refusal })).toBe(1);
    expect(delta('svc_device_code_refusals_total', { operation: 'poll', code: 'authorization_pending' })).toBe(0);
  });

  // issue 36: how full the device-code pool is, against its size
  it('should gauge the device-code pool: open codes against its capacity', async () => {
    const openNow = async () =>
      Number(
        (
          await withClient(db.url, (client) =>
            client.query<{ n: number }>(
              `SELECT count(*)::int AS n FROM machine_authorizations
                WHERE status IN ('pending', 'approved') AND expires_at > now()`,
            ),
          )
        ).rows[0].n,
      );
    const before = await scrape();
    expect(sample(before, 'svc_device_code_pool', { state: 'capacity' })).toBe(128);
    expect(sample(before, 'svc_device_code_pool', { state: 'open' })).toBe(await openNow());
    const ip = freshClientIp();
    for (const n of [1, 2]) {
      const started = await startMachineAuthorization(daemon.url, { id: `pool-m${n}`, name: 'pooled box' }, ip);
      expect(started.status).toBe(201);
    }
    const after = await scrape();
    expect(sample(after, 'svc_device_code_pool', { state: 'open' })).toBe(
      sample(before, 'svc_device_code_pool', { state: 'open' }) + 2,
    );
    expect(sample(after, 'svc_device_code_pool', { state: 'open' })).toBe(await openNow());
  });

  it('should count the event streams open on this replica', async () => {
    const controller = new AbortController();
    const stream = await fetch(`${daemon.url}/v1/events/stream`, {
      headers: { authorization: `Bearer ${admin}`, accept: 'text/event-stream' },
      signal: controller.signal,
    });
    expect(stream.status).toBe(200);
    const streamsOpen = (value: number) =>
      waitFor(async () => sample(await scrape(), 'svc_event_streams_open') === value, {
        what: `svc_event_streams_open = ${value}`,
        timeout: 5000,
        interval: 50,
      });
    await streamsOpen(1);
    controller.abort();
    await streamsOpen(0);
  });

  it('should expose every series the Grafana dashboard in docker/ queries', async () => {
    const dashboard = readFileSync(join(REPO_ROOT, 'docker', 'grafana-dashboard.json'), 'utf8');
    const queried = new Set([...dashboard.matchAll(/\b((?:svc|nodejs|process)_[a-z0-9_]+)/g)].map((m) => m[1]));
    expect(queried.size).toBeGreaterThan(5);
    const text = await scrape();
    for (const name of queried) {
      const family = name.replace(/_(bucket|count|sum)$/, '');
      expect(`${family}: ${text.includes(`# TYPE ${family} `)}`).toBe(`${family}: true`);
    }
  });

  it('should serve the same text without a token on the local metrics port, bound to 127.0.0.1 only', async () => {
    const res = await fetch(`http://127.0.0.1:${localPort}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    for (const family of FAMILIES) expect(text).toContain(`# TYPE ${family} `);
    expect((await fetch(`http://127.0.0.1:${localPort}/v1/whoami`)).status).toBe(404);
    expect(daemon.stderr()).toContain(`metrics on http://127.0.0.1:${localPort}/metrics`);
  });

  // issue 40: a credential a scraper keeps, that reads the metrics and nothing else
  it('should let a server admin mint a metrics-only token that reads /metrics and is refused everywhere else', async () => {
    const made = await http<{ token: string; scope: string; token_id: number }>(daemon.url, 'POST', '/v1/tokens', {
      token: admin,
      body: { name: 'prometheus', scope: 'metrics' },
    });
    expect(made.status).toBe(201);
    expect(made.body.scope).toBe('metrics');
    const metricsToken = made.body.token;
    const scraped = await http(daemon.url, 'GET', '/metrics', { token: metricsToken });
    expect(scraped.status).toBe(200);
    expect(scraped.text).toContain('# TYPE svc_sweeps_total ');
    for (const [method, path, body] of [
      ['GET', '/v1/whoami', undefined],
      ['GET', '/v1/projects', undefined],
      ['POST', '/v1/tokens', { name: 'escalate' }],
      ['GET', '/v1/doctor', undefined],
    ] as const) {
      const res = await http(daemon.url, method, path, { token: metricsToken, body });
      expect(`${method} ${path} ${res.status}`).toBe(`${method} ${path} 403`);
      expect(res.body).toMatchObject({ code: 'forbidden' });
    }
    // the approval page does not take it either (the admin's own token signs in there)
    const signIn = (token: string) =>
      http(daemon.url, 'POST', '/machine-approval/session', {
        raw: new URLSearchParams({ token }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: daemon.url },
      });
    expect((await signIn(admin)).status).toBe(303);
    const refused = await signIn(metricsToken);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('set-cookie')).toBeNull();
    const listed = await http<{ tokens: { token_id: number; scope: string }[] }>(daemon.url, 'GET', '/v1/tokens', {
      token: admin,
    });
    expect(listed.body.tokens.find((t) => t.token_id === made.body.token_id)?.scope).toBe('metrics');
    // only a server admin hands one out
    const byMember = await http(daemon.url, 'POST', '/v1/tokens', {
      token: member.token,
      body: { scope: 'metrics' },
    });
    expect(byMember.status).toBe(403);
    expect((await http(daemon.url, 'POST', '/v1/tokens', { token: admin, body: { scope: 'root' } })).status).toBe(400);
  });

  // issue 40: a round another replica ran is `skipped` here, so `ran` summed over replicas counts rounds; each
  // replica's own metrics port is reachable beyond loopback with SVC_METRICS_HOST
  it('should count a sweep round another replica holds as skipped, on a replica whose metrics port binds SVC_METRICS_HOST', async () => {
    const holder = new Client({ connectionString: db.url });
    await holder.connect();
    let second: DaemonProcess | undefined;
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock($1)', [SWEEP_LOCK_KEY]);
      const port = await freePort();
      second = await startDaemonProcess({
        env: { SVC_DATABASE_URL: db.url, SVC_METRICS_PORT: String(port), SVC_METRICS_HOST: '0.0.0.0' },
      });
      expect(second.stderr()).toContain(`metrics on http://0.0.0.0:${port}/metrics`);
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      const sweep = (outcome: string) => sample(text, 'svc_sweeps_total', { sweep: 'machine_authorizations', outcome });
      expect([sweep('ran'), sweep('skipped'), sweep('failed')]).toEqual([0, 1, 0]);
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await holder.end();
      await second?.stop();
    }
  });

  it('should mint a metrics token from the command line (svc tokens create --scope metrics)', async () => {
    const env = svcEnv(daemon);
    const created = await runSvc(['tokens', 'create', '--scope', 'metrics', '--name', 'scraper'], { env });
    expect(created.code).toBe(0);
    expect(created.stderr).toContain('reads /metrics only');
    const token = created.stdout.trim();
    expect((await http(daemon.url, 'GET', '/metrics', { token })).status).toBe(200);
    expect((await http(daemon.url, 'GET', '/v1/whoami', { token })).status).toBe(403);
    const bad = await runSvc(['tokens', 'create', '--scope', 'root'], { env });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--scope: full or metrics');
    const listed = await runSvc(['tokens', 'list'], { env });
    expect(listed.stdout).toMatch(/scraper\s+admin\s+metrics/);
  });
});
