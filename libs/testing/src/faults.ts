import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';

import { waitFor } from './wait-for';

// Operations run in a child process on the built EmbeddedServer (private-cluster.cjs): jest cannot import the
// package's ES modules.
export interface PrivateCluster {
  home: string;
  url: string;
  adminUrl: string;
  pid: () => number | null;
  stop: () => Promise<void>;
  start: () => Promise<void>;
  // SIGKILL of the postmaster: a crash, recovered by WAL replay at the next start.
  crash: () => Promise<void>;
}

function control(home: string, operation: 'start' | 'stop'): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [join(__dirname, 'private-cluster.cjs'), home, operation],
      { timeout: 60000 },
      (error, stdout, stderr) => (error ? reject(new Error(`${operation} failed: ${stderr}`)) : resolve(stdout)),
    );
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function startPrivateCluster(label = 'faults'): Promise<PrivateCluster> {
  const home = mkdtempSync(join(tmpdir(), `svc-${label}-pg-`));
  chmodSync(home, 0o755);
  const { url, admin } = JSON.parse(await control(home, 'start')) as { url: string; admin: string };
  const pid = () => {
    try {
      const n = Number(readFileSync(join(home, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
      return Number.isInteger(n) && n > 0 && alive(n) ? n : null;
    } catch {
      return null;
    }
  };
  return {
    home,
    url,
    adminUrl: admin,
    pid,
    stop: async () => {
      await control(home, 'stop');
    },
    // After a crash the old backends may hold the shared memory for a moment: postgres then refuses to start.
    start: async () => {
      for (let attempt = 1; ; attempt++) {
        try {
          await control(home, 'start');
          return;
        } catch (err) {
          if (attempt >= 20) throw err;
          await new Promise((r) => setTimeout(r, 250));
        }
      }
    },
    crash: async () => {
      const current = pid();
      if (current === null) return;
      process.kill(current, 'SIGKILL');
      for (let i = 0; i < 300 && alive(current); i++) await new Promise((r) => setTimeout(r, 50));
    },
  };
}

export type LoadKind = 'poll' | 'frontier' | 'write';

export interface LoadSample {
  kind: LoadKind;
  sentAt: number;
  doneAt: number;
  status: number; // 0: no answer (connection refused or reset)
  code: string | null;
  retryAfter: string | null;
}

export interface LoadTarget {
  url: string;
  token: string;
  project: string;
  poll: { device_code: string; machine_id: string; machine_name: string };
}

export interface RunningLoad {
  samples: LoadSample[];
  acknowledgedTitles: string[];
  stop: () => Promise<void>;
}

let loadClient = 0;
const clientIp = () => {
  loadClient += 1;
  return `198.19.${(loadClient >> 8) & 0xff}.${loadClient & 0xff}`;
};

// One client address per poll worker, so no budget is met. A write answered 201 is acknowledged and must survive.
export function startLoad(target: LoadTarget, workersPerKind = 2): RunningLoad {
  const samples: LoadSample[] = [];
  const acknowledgedTitles: string[] = [];
  let running = true;
  let serial = 0;
  const run = `${process.pid}-${Date.now().toString(36)}`;
  const auth = { authorization: `Bearer ${target.token}` };
  const requestOf = (kind: LoadKind): { path: string; init: RequestInit; title?: string } => {
    switch (kind) {
      case 'poll':
        return {
          path: '/api/machine/authorizations/token',
          init: {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-forwarded-for': clientIp() },
            body: JSON.stringify(target.poll),
          },
        };
      case 'frontier':
        return { path: `/v1/charge/frontier?project=${target.project}`, init: { headers: auth } };
      case 'write': {
        serial += 1;
        const title = `fault load ${run}-${serial}`;
        return {
          path: '/v1/items',
          title,
          init: {
            method: 'POST',
            headers: { ...auth, 'content-type': 'application/json' },
            body: JSON.stringify({ project: target.project, title }),
          },
        };
      }
    }
  };
  const worker = async (kind: LoadKind) => {
    while (running) {
      const { path, init, title } = requestOf(kind);
      const sentAt = Date.now();
      let status = 0;
      let code: string | null = null;
      let retryAfter: string | null = null;
      try {
        const res = await fetch(`${target.url}${path}`, { ...init, signal: AbortSignal.timeout(30000) });
        status = res.status;
        retryAfter = res.headers.get('retry-after');
        const text = await res.text();
        try {
          const body = JSON.parse(text) as { code?: unknown };
          code = typeof body.code === 'string' ? body.code : null;
        } catch {
          code = null;
        }
      } catch {
        status = 0;
      }
      samples.push({ kind, sentAt, doneAt: Date.now(), status, code, retryAfter });
      if (title && status === 201) acknowledgedTitles.push(title);
      // A short pause keeps a loaded 2-core machine responsive; the load still spans the whole outage.
      await new Promise((r) => setTimeout(r, status === 503 ? 50 : 10));
    }
  };
  const kinds: LoadKind[] = ['poll', 'frontier', 'write'];
  const workers = kinds.flatMap((kind) => Array.from({ length: workersPerKind }, () => worker(kind)));
  return {
    samples,
    acknowledgedTitles,
    stop: async () => {
      running = false;
      await Promise.all(workers);
    },
  };
}

export const SUCCESS: Record<LoadKind, number> = { poll: 202, frontier: 200, write: 201 };

export interface OutageFigures {
  outage: 'stop' | 'crash';
  outage_ms: number;
  requests: number;
  during_outage: number;
  status_5xx: number;
  status_500: number;
  status_503: number;
  unexpected_during_outage: number;
  no_answer: number;
  writes_acknowledged: number;
  writes_lost: number;
  recovery_ms: Record<LoadKind, number | null>;
  recovery_max_ms: number | null;
  by_status: Record<string, number>;
  examples: LoadSample[];
}

export interface OutageWindow {
  down: number; // the database is gone (stop returned, or the killed postmaster exited)
  restarting: number; // the start was asked for: nothing can be served before this
  up: number; // the start returned: the database accepts connections
}

// A request sent after the database went down and answered before its restart was asked for must be a 503 with a
// code and Retry-After; recovery is, per kind, the time from `up` to the first success after the restart began.
export function outageFigures(
  outage: 'stop' | 'crash',
  window: OutageWindow,
  samples: LoadSample[],
  lost: number,
  acknowledged: number,
): OutageFigures {
  const byStatus: Record<string, number> = {};
  for (const s of samples) byStatus[String(s.status)] = (byStatus[String(s.status)] ?? 0) + 1;
  const during = samples.filter((s) => s.sentAt >= window.down && s.doneAt <= window.restarting);
  const expected = (s: LoadSample) =>
    s.status === 503 &&
    s.retryAfter !== null &&
    (s.kind === 'poll' ? s.code === 'machine_credential_unavailable' : s.code === 'database_unavailable');
  const recovery = {} as Record<LoadKind, number | null>;
  for (const kind of ['poll', 'frontier', 'write'] as LoadKind[]) {
    const first = samples.find((s) => s.kind === kind && s.doneAt >= window.restarting && s.status === SUCCESS[kind]);
    recovery[kind] = first ? Math.max(0, first.doneAt - window.up) : null;
  }
  const recoveries = Object.values(recovery);
  return {
    outage,
    outage_ms: window.restarting - window.down,
    requests: samples.length,
    during_outage: during.length,
    status_5xx: samples.filter((s) => s.status >= 500).length,
    status_500: samples.filter((s) => s.status === 500).length,
    status_503: samples.filter((s) => s.status === 503).length,
    unexpected_during_outage: during.filter((s) => !expected(s)).length,
    no_answer: samples.filter((s) => s.status === 0).length,
    writes_acknowledged: acknowledged,
    writes_lost: lost,
    recovery_ms: recovery,
    recovery_max_ms: recoveries.includes(null) ? null : Math.max(...(recoveries as number[])),
    by_status: byStatus,
    examples: [...samples.filter((s) => s.status === 500), ...during.filter((s) => !expected(s))].slice(0, 10),
  };
}

export async function lostWrites(databaseUrl: string, titles: string[]): Promise<number> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const found = await client.query<{ n: string }>(
      'SELECT count(DISTINCT title) AS n FROM items WHERE title = ANY($1::text[])',
      [titles],
    );
    return titles.length - Number(found.rows[0].n);
  } finally {
    await client.end();
  }
}

export async function runOutage(
  cluster: PrivateCluster,
  target: LoadTarget,
  databaseUrl: string,
  options: { outage: 'stop' | 'crash'; outageMs: number; warmupMs?: number; workersPerKind?: number },
): Promise<{ figures: OutageFigures; samples: LoadSample[] }> {
  const load = startLoad(target, options.workersPerKind ?? 2);
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  let window: OutageWindow;
  try {
    await sleep(options.warmupMs ?? 1500);
    if (options.outage === 'stop') await cluster.stop();
    else await cluster.crash();
    const down = Date.now();
    await sleep(options.outageMs);
    const restarting = Date.now();
    await cluster.start();
    window = { down, restarting, up: Date.now() };
    await waitFor(
      () =>
        (['poll', 'frontier', 'write'] as LoadKind[]).every((kind) =>
          load.samples.some((s) => s.kind === kind && s.sentAt >= window.up && s.status === SUCCESS[kind]),
        ),
      { what: 'recovery of every kind of request' },
    );
    await sleep(500);
  } finally {
    await load.stop();
  }
  const lost = await lostWrites(databaseUrl, load.acknowledgedTitles);
  return {
    figures: outageFigures(options.outage, window, load.samples, lost, load.acknowledgedTitles.length),
    samples: load.samples,
  };
}
