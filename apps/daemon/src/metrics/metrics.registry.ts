import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

// Seconds, from a millisecond-fast cached read to a slow request.
const HTTP_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
// compute_frontier and a graph refresh: sub-millisecond on a small backlog, seconds on a 100k-item one.
const FRONTIER_BUCKETS = [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const SWEEP_BUCKETS = [0.001, 0.01, 0.1, 0.5, 1, 5, 30];

export interface GaugeSources {
  openStreams(): number;
  pool(): { total: number; idle: number; waiting: number; max: number } | null;
  codePool(): Promise<{ open: number; capacity: number } | null>;
}

// The daemon's metric families, in one registry per application (tests start several in one process).
export class DaemonMetrics {
  readonly registry = new Registry();

  readonly httpDuration = new Histogram({
    name: 'svc_http_request_duration_seconds',
    help: 'HTTP request duration by method, route pattern and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: HTTP_BUCKETS,
    registers: [this.registry],
  });

  readonly frontierCompute = new Histogram({
    name: 'svc_frontier_compute_duration_seconds',
    help: 'compute_frontier over a cached project graph',
    buckets: FRONTIER_BUCKETS,
    registers: [this.registry],
  });

  readonly frontierRefresh = new Histogram({
    name: 'svc_frontier_graph_refresh_duration_seconds',
    help: 'Bringing a project graph up to date before a frontier read, by outcome (load, changed, unchanged, failed)',
    labelNames: ['outcome'] as const,
    buckets: FRONTIER_BUCKETS,
    registers: [this.registry],
  });

  readonly frontierEvictions = new Counter({
    name: 'svc_frontier_graph_evictions_total',
    help: 'Project graphs let go by the frontier graph cache to stay within SVC_FRONTIER_CACHE_BUDGET (least recently used first)',
    registers: [this.registry],
  });

  readonly deviceCodeRequests = new Counter({
    name: 'svc_device_code_requests_total',
    help: 'Device-code starts and polls by outcome (ok, or the answer code: authorization_pending, slow_down, ...)',
    labelNames: ['operation', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly deviceCodeRefusals = new Counter({
    name: 'svc_device_code_refusals_total',
    help: 'Device-code starts and polls refused (HTTP 4xx/5xx), by error code',
    labelNames: ['operation', 'code'] as const,
    registers: [this.registry],
  });

  readonly sweeps = new Counter({
    name: 'svc_sweeps_total',
    help: 'Sweep rounds by sweep and outcome: ran (this replica did the work), skipped (another replica ran the round, or the previous run still goes), failed',
    labelNames: ['sweep', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly sweepDuration = new Histogram({
    name: 'svc_sweep_duration_seconds',
    help: 'Sweep run duration',
    labelNames: ['sweep'] as const,
    buckets: SWEEP_BUCKETS,
    registers: [this.registry],
  });

  constructor(sources: GaugeSources, version: string) {
    collectDefaultMetrics({ register: this.registry });
    new Gauge({
      name: 'svc_build_info',
      help: 'The running svc version (always 1)',
      labelNames: ['version'] as const,
      registers: [this.registry],
    }).set({ version }, 1);
    new Gauge({
      name: 'svc_event_streams_open',
      help: 'Event streams (SSE) open on this replica',
      registers: [this.registry],
      collect() {
        this.set(sources.openStreams());
      },
    });
    new Gauge({
      name: 'svc_db_pool_connections',
      help: 'Database pool connections by state (total, idle, waiting clients) and the pool maximum (max)',
      labelNames: ['state'] as const,
      registers: [this.registry],
      collect() {
        const pool = sources.pool();
        if (!pool) return;
        for (const state of ['total', 'idle', 'waiting', 'max'] as const) this.set({ state }, pool[state]);
      },
    });
    new Gauge({
      name: 'svc_device_code_pool',
      help: 'The server-wide pool of device codes: codes holding a place (pending or approved, unconsumed, live) and its size (capacity), across replicas',
      labelNames: ['state'] as const,
      registers: [this.registry],
      async collect() {
        const use = await sources.codePool();
        if (!use) return;
        this.set({ state: 'open' }, use.open);
        this.set({ state: 'capacity' }, use.capacity);
      },
    });
  }
}

// Error codes are a closed snake_case vocabulary; anything else (a proxy's page, garbage) is one label value.
export function codeLabel(code: unknown): string {
  return typeof code === 'string' && /^[a-z][a-z0-9_]{0,63}$/.test(code) ? code : 'other';
}
