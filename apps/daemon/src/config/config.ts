import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import proxyaddr from 'proxy-addr';

import { defaultConfigDir, defaultHome } from '@app/credentials';

import { AppConfig, DEFAULT_FRONTIER_CACHE_BUDGET, LogFormatSetting, ServerMode } from './app-config';
import { EnvDto } from './env.dto';

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
    dbPreparedStatements: dto.SVC_DB_PREPARED_STATEMENTS ?? true,
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
