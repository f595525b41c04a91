import { Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsIP,
  IsJSON,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  MinLength,
} from 'class-validator';

import { toBool, toNumber } from '../common/transforms';

// Every variable the daemon reads; defaults live in config.ts. Nothing outside config/ reads process.env.
export class EnvDto {
  @IsOptional() @IsString() @MinLength(1) SVC_HOME?: string;

  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/.+/, { message: 'SVC_DATABASE_URL must be a postgres:// URL' })
  SVC_DATABASE_URL?: string;

  @IsOptional() @IsString() SVC_HOST?: string;

  @IsOptional() @Transform(toNumber) @IsInt() @Min(0) @Max(65535) SVC_PORT?: number;

  @IsOptional() @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']) SVC_LOG_LEVEL?: string;

  @IsOptional() @IsIn(['auto', 'json', 'pretty']) SVC_LOG_FORMAT?: string;

  @IsOptional()
  @Matches(/^https?:\/\/[^/]+$/, { message: 'SVC_PUBLIC_URL must be an origin such as https://svc.example.com' })
  SVC_PUBLIC_URL?: string;

  @IsOptional() @IsString() SVC_CONFIG_DIR?: string;

  @IsOptional() @IsString() SVC_API_TRUSTED_PROXIES?: string;

  @IsOptional()
  @IsString()
  @MinLength(32, { message: 'SVC_SERVER_SECRET must be at least 32 characters' })
  SVC_SERVER_SECRET?: string;

  @IsOptional() @IsIn(['self-host', 'hosted']) SVC_MODE?: string;

  @IsOptional() @IsString() SVC_OIDC_ISSUER?: string;
  @IsOptional() @IsString() SVC_OIDC_CLIENT_ID?: string;
  @IsOptional() @IsString() SVC_OIDC_CLIENT_SECRET?: string;
  @IsOptional() @IsString() SVC_OIDC_ALLOWED_DOMAINS?: string;

  @IsOptional() @Transform(toNumber) @IsInt() @Min(1) SVC_EVENT_RETENTION_DAYS?: number;
  @IsOptional() @Transform(toNumber) @IsInt() @Min(0) SVC_HISTORY_RETENTION_DAYS?: number;

  @IsOptional() @Transform(toNumber) @IsInt() @Min(1) @Max(10_000) SVC_EVENT_STREAMS_PER_ACTOR?: number;

  @IsOptional() @Transform(toNumber) @IsInt() @Min(1) @Max(10_000) SVC_EVENT_STREAMS_PER_ADDRESS?: number;

  @IsOptional() @Transform(toNumber) @IsInt() @Min(1) @Max(10_000) SVC_MCP_SESSIONS_PER_ACTOR?: number;

  @IsOptional() @Transform(toNumber) @IsInt() @Min(1) @Max(10_000) SVC_MCP_SESSIONS_PER_ADDRESS?: number;

  @IsOptional() @Transform(toNumber) @IsInt() @Min(1) @Max(10_000) SVC_MCP_STREAMS_PER_ACTOR?: number;

  @IsOptional() @Transform(toNumber) @IsInt() @Min(1) @Max(10_000) SVC_MCP_STREAMS_PER_ADDRESS?: number;

  @IsOptional() @Transform(toNumber) @IsInt() @Min(1024) @Max(64 * 1024 * 1024) SVC_BODY_LIMIT?: number;

  @IsOptional() @Transform(toNumber) @IsInt() @Min(1024) @Max(256 * 1024 * 1024) SVC_IMPORT_BODY_LIMIT?: number;

  @IsOptional() @Transform(toNumber) @IsInt() @Min(1) SVC_CLAIM_TTL_SECONDS?: number;

  @IsOptional() @IsJSON({ message: 'SVC_SESSION_ROUTING must be a JSON object' }) SVC_SESSION_ROUTING?: string;

  @IsOptional() @Transform(toBool) @IsBoolean() SVC_BOOTSTRAP_ADMIN?: boolean;

  // Shaped like a daemon-made token, so a guessable value never becomes the admin's credential; never echoed.
  @IsOptional()
  @Matches(/^svc_[A-Za-z0-9_-]{32,}$/, {
    message:
      'SVC_BOOTSTRAP_TOKEN must be svc_ followed by at least 32 of A-Z a-z 0-9 _ - (e.g. svc_$(openssl rand -hex 32))',
  })
  SVC_BOOTSTRAP_TOKEN?: string;

  @IsOptional() @Transform(toBool) @IsBoolean() SVC_PRINT_BOOTSTRAP_TOKEN?: boolean;

  @IsOptional() @Transform(toNumber) @IsInt() @Min(1) @Max(200) SVC_DB_POOL_SIZE?: number;
  @IsOptional() @Transform(toBool) @IsBoolean() SVC_DB_PREPARED_STATEMENTS?: boolean;

  @IsOptional() @Transform(toNumber) @IsInt() @Min(0) @Max(65535) SVC_METRICS_PORT?: number;
  @IsOptional() @IsIP() SVC_METRICS_HOST?: string;

  @IsOptional() @Transform(toNumber) @IsInt() @Min(0) @Max(400) SVC_HEAP_GROWTH_PERCENT?: number;

  @IsOptional() @Transform(toNumber) @IsInt() @Min(0) @Max(300) SVC_DRAIN_SECONDS?: number;

  @IsOptional() @Transform(toNumber) @IsInt() @Min(0) @Max(1_000_000_000) SVC_FRONTIER_CACHE_BUDGET?: number;
}
