import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';

import { ClaimResponse, MAX_SESSIONS_LIMIT, SESSION_STATES, SessionResponse, SessionState } from '@app/contracts';

import { toUnsignedInt } from '../../common/transforms';

const TOKEN = /^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,99}$/;

export class RegisterSessionDto {
  @IsString() @Matches(TOKEN, { message: 'harness must be a short token such as claude-code' }) harness!: string;
  @IsString() @Matches(TOKEN, { message: 'model must be a short token such as opus-4' }) model!: string;
  @IsOptional() @IsString() @MaxLength(63) project?: string;
  @IsOptional() @IsString() @MaxLength(200) label?: string;
}

export class ReleaseClaimDto {
  @IsString()
  @Matches(/^[A-Za-z][A-Za-z0-9]*-[0-9]{1,9}$/, { message: 'item_id must be a public ref such as ATL-6' })
  item_id!: string;
}

export class ListSessionsQueryDto {
  @IsOptional() @IsString() @MaxLength(63) project?: string;
  @IsOptional()
  @IsString()
  @Matches(TOKEN, { message: 'harness must be a short token such as claude-code' })
  harness?: string;
  @IsOptional()
  @IsIn(SESSION_STATES, { message: `state must be one of ${SESSION_STATES.join(', ')}` })
  state?: SessionState;
  @IsOptional() @Transform(toUnsignedInt) @IsInt() @Min(1) @Max(MAX_SESSIONS_LIMIT) limit?: number;
}

export interface SessionRow {
  id: number;
  actor_id: number | null;
  project: string | null;
  harness: string;
  model: string;
  lane: string;
  label: string | null;
  created_at: Date;
  last_seen_at: Date;
  ended_at: Date | null;
}

export interface ClaimRow {
  session_id?: number;
  item_ref: string;
  project: string;
  entrypoint: string | null;
  adapter: string | null;
  wip_slot: boolean;
  claimed_at: Date;
  renewed_at: Date;
  expires_at: Date;
}

export function toClaimResponse(row: ClaimRow): ClaimResponse {
  return {
    item_id: row.item_ref,
    project: row.project,
    entrypoint: row.entrypoint,
    adapter: row.adapter,
    wip_slot: row.wip_slot,
    claimed_at: row.claimed_at.toISOString(),
    renewed_at: row.renewed_at.toISOString(),
    expires_at: row.expires_at.toISOString(),
  };
}

export function toSessionResponse(row: SessionRow, claims: ClaimRow[]): SessionResponse {
  return {
    session_id: row.id,
    harness: row.harness,
    model: row.model,
    project: row.project,
    lane: row.lane,
    label: row.label,
    created_at: row.created_at.toISOString(),
    last_seen_at: row.last_seen_at.toISOString(),
    ended_at: row.ended_at ? row.ended_at.toISOString() : null,
    claims: claims.map(toClaimResponse),
  };
}
