// The configuration's shape and its injection token, apart from parseConfig: services and their specs import this
// file, so loading one does not load class-validator and class-transformer, which only the parse at boot needs.

export type ServerMode = 'self-host' | 'hosted';
export type LogFormatSetting = 'auto' | 'json' | 'pretty';

export interface AppConfig {
  home: string;
  databaseUrl: string | null;
  host: string;
  port: number;
  publicUrl: string | null;
  logLevel: string;
  logFormat: LogFormatSetting;
  configDir: string;
  trustedProxies: string[];
  serverSecret: string | null;
  mode: ServerMode;
  oidc: { issuer?: string; clientId?: string; clientSecret?: string; allowedDomains: string[] };
  eventRetentionDays: number;
  // days; 0 keeps them all
  historyRetentionDays: number;
  // counted per process
  eventStreamsPerActor: number;
  eventStreamsPerAddress: number;
  mcpSessionsPerActor: number;
  mcpSessionsPerAddress: number;
  mcpStreamsPerActor: number;
  mcpStreamsPerAddress: number;
  bodyLimit: number;
  // POST /v1/import's own limit: a migrated backlog of a few thousand items is several MiB
  importBodyLimit: number;
  claimTtlSeconds: number;
  // machine-level session routing (lane_rules, executor_default_lane_*): used only for sessions without a project
  sessionRouting: Record<string, unknown> | null;
  bootstrapAdmin: boolean;
  bootstrapToken: string | null;
  // false: the first-boot token goes to the credential file only (printed only if that file cannot be written)
  printBootstrapToken: boolean;
  dbPoolSize: number;
  // false: every statement unnamed, for a pooler that cannot keep a connection's prepared statements (ADR 0092)
  dbPreparedStatements: boolean;
  // null: /metrics only on the public port, with a token; else without one on SVC_METRICS_HOST (127.0.0.1 default).
  metricsPort: number | null;
  metricsHost: string;
  // 0: V8's own choice, which let a 100k project's live heap near triple between full GCs (docs/adr/0045)
  heapGrowthPercent: number;
  // candidates + edges + outside blockers summed over the frontier graphs a process keeps (frontier-graph-cache.ts)
  frontierCacheBudget: number;
  // SIGTERM: at most this long answering 503 on the probes before refusing new requests (common/drain.ts)
  drainSeconds: number;
}

// What a cached frontier graph retains (rows, built graph, memo, serialized answer) grows with its candidates, edges
// and outside blockers, about 500 bytes each at 1k, 10k and 100k items; the graph cache's budget is their sum over the
// graphs kept. 200 followed projects of 1,000 items take about 400,000, one of 100k items 200,000 (docs/adr/0090).
export const DEFAULT_FRONTIER_CACHE_BUDGET = 800_000;

export const APP_CONFIG = Symbol('APP_CONFIG');
