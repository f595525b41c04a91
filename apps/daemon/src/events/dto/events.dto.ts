import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';

import type { EventWire } from '@app/contracts';

import { toUnsignedInt } from '../../common/transforms';
import { EventRow } from '../events.repository';
import { FRONTIER_PARAM_PATTERN, MAX_FRONTIER_PROJECTS } from '../stream-follow';

export const DEFAULT_EVENTS_LIMIT = 100;
export const MAX_EVENTS_LIMIT = 1000;
// An ISO 8601 timestamp, or a duration back from now: 30s, 15m, 2h, 7d.
export const SINCE_PATTERN = /^([0-9]+[smhd]|\d{4}-\d{2}-\d{2}([T ][0-9:.]+)?(Z|[+-]\d{2}:?\d{2})?)$/;

export class EventsQueryDto {
  @IsOptional() @IsString() @MaxLength(100) event_name?: string;
  @IsOptional() @IsString() @MaxLength(63) project?: string;
  @IsOptional() @Matches(/^[A-Za-z][A-Za-z0-9]{0,15}-[0-9]{1,9}$/) item?: string;

  @IsOptional()
  @Matches(SINCE_PATTERN, { message: 'since must be an ISO 8601 timestamp or a duration such as 15m, 2h, 7d' })
  since?: string;

  @IsOptional() @Transform(toUnsignedInt) @IsInt() @Min(1) @Max(MAX_EVENTS_LIMIT) limit?: number;
}

export const EVENT_ID_PATTERN = /^[0-9]{1,18}$/;

export class EventsStreamQueryDto {
  @IsOptional() @IsString() @MaxLength(63) project?: string;
  @IsOptional() @IsString() @MaxLength(100) event_name?: string;
  @IsOptional()
  @Matches(EVENT_ID_PATTERN, { message: 'last_event_id must be an event id (a whole number)' })
  last_event_id?: string;
  // Comma-separated project ids (stream-follow.ts); empty for none.
  @IsOptional()
  @Matches(FRONTIER_PARAM_PATTERN, {
    message: `frontier must be a comma-separated list of at most ${MAX_FRONTIER_PROJECTS} project ids`,
  })
  frontier?: string;
}

export type EventResponse = EventWire;
export type { EventsListResponse } from '@app/contracts';

export function toEventResponse(row: EventRow): EventResponse {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    project: row.project,
    item_id: row.item_ref,
    actor_id: row.actor_id,
    session_id: row.session_id,
    payload: row.payload,
    created_at: row.created_at.toISOString(),
  };
}

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseSince(since: string, now = Date.now()): Date | null {
  const duration = /^([0-9]+)([smhd])$/.exec(since);
  if (duration) return new Date(now - Number(duration[1]) * UNIT_MS[duration[2]]);
  const text = /(Z|[+-]\d{2}:?\d{2})$/.test(since) || since.length <= 10 ? since : `${since}Z`;
  const ms = Date.parse(text.replace(' ', 'T'));
  return Number.isNaN(ms) ? null : new Date(ms);
}
