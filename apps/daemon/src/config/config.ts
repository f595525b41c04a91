import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import proxyaddr from 'proxy-addr';

import { defaultConfigDir, defaultHome } from '@app/credentials';

import { EnvDto } from './env.dto';

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

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

// The default SVC_HOME lives in libs/client: `svc up` finds the daemon's log and pid file with the same rule.
export { defaultHome };

export function parseConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const svcOnly = Object.fromEntries(Object.entries(env).filter(([key]) => key.startsWith('SVC_')));
  const dto = plainToInstance(EnvDto, svcOnly);
  const errors = validateSync(dto, { whitelist: false });
  if (errors.length > 0) {
    throw new ConfigError(
      errors.map((e) => `${e.property}: ${Object.values(e.constraints ?? {}).join('; ') || 'invalid value'}`),
    );
  }
  const trustedProxies = (dto.SVC_API_TRUSTED_PROXIES ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  try {
    proxyaddr.compile(trustedProxies);
  } catch (err) {
    // proxy-addr refuses what it cannot match (0.0.0.0/0 among them): a clear refusal at boot, not a stack trace.
    throw new ConfigError([`SVC_API_TRUSTED_PROXIES: ${(err as Error).message}`]);
  }
  return {
    home: dto.SVC_HOME ?? defaultHome(env),
    databaseUrl: dto.SVC_DATABASE_URL ?? null,
    host: dto.SVC_HOST ?? '127.0.0.1',
    port: dto.SVC_PORT ?? 7700,
    publicUrl: dto.SVC_PUBLIC_URL ?? null,
    logLevel: dto.SVC_LOG_LEVEL ?? 'info',
    logFormat: (dto.SVC_LOG_FORMAT as LogFormatSetting | undefined) ?? 'auto',
    configDir: dto.SVC_CONFIG_DIR ?? defaultConfigDir(env),
    trustedProxies,
    serverSecret: dto.SVC_SERVER_SECRET ?? null,
    mode: (dto.SVC_MODE as ServerMode | undefined) ?? 'self-host',
    oidc: {
      issuer: dto.SVC_OIDC_ISSUER || undefined,
      clientId: dto.SVC_OIDC_CLIENT_ID || undefined,
      clientSecret: dto.SVC_OIDC_CLIENT_SECRET || undefined,
      allowedDomains: (dto.SVC_OIDC_ALLOWED_DOMAINS ?? '')
        .split(',')
        .map((s) => s.trim().toLowerCase().replace(/^@/, ''))
        .filter((s) => s.length > 0),
    },
    eventRetentionDays: dto.SVC_EVENT_RETENTION_DAYS ?? 30,
    historyRetentionDays: dto.SVC_HISTORY_RETENTION_DAYS ?? 0,
    eventStreamsPerActor: dto.SVC_EVENT_STREAMS_PER_ACTOR ?? 16,
    eventStreamsPerAddress: dto.SVC_EVENT_STREAMS_PER_ADDRESS ?? 32,
    mcpSessionsPerActor: dto.SVC_MCP_SESSIONS_PER_ACTOR ?? 16,
    mcpSessionsPerAddress: dto.SVC_MCP_SESSIONS_PER_ADDRESS ?? 32,
    mcpStreamsPerActor: dto.SVC_MCP_STREAMS_PER_ACTOR ?? 16,
    mcpStreamsPerAddress: dto.SVC_MCP_STREAMS_PER_ADDRESS ?? 32,
    bodyLimit: dto.SVC_BODY_LIMIT ?? 1024 * 1024,
    importBodyLimit: Math.max(dto.SVC_IMPORT_BODY_LIMIT ?? 32 * 1024 * 1024, dto.SVC_BODY_LIMIT ?? 0),
    claimTtlSeconds: dto.SVC_CLAIM_TTL_SECONDS ?? 1800,
    sessionRouting: parseJsonObject(dto.SVC_SESSION_ROUTING),
    bootstrapAdmin: dto.SVC_BOOTSTRAP_ADMIN ?? true,
    bootstrapToken: dto.SVC_BOOTSTRAP_TOKEN ?? null,
    printBootstrapToken: dto.SVC_PRINT_BOOTSTRAP_TOKEN ?? true,
    dbPoolSize: dto.SVC_DB_POOL_SIZE ?? 10,
    metricsPort: dto.SVC_METRICS_PORT ?? null,
    metricsHost: dto.SVC_METRICS_HOST ?? '127.0.0.1',
    heapGrowthPercent: dto.SVC_HEAP_GROWTH_PERCENT ?? 30,
    drainSeconds: dto.SVC_DRAIN_SECONDS ?? 10,
    frontierCacheBudget: dto.SVC_FRONTIER_CACHE_BUDGET ?? DEFAULT_FRONTIER_CACHE_BUDGET,
  };
}

function parseJsonObject(text: string | undefined): Record<string, unknown> | null {
  if (!text) return null;
  const value: unknown = JSON.parse(text);
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

export const APP_CONFIG = Symbol('APP_CONFIG');
