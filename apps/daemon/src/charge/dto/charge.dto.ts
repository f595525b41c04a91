import { Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';

import { MAX_WIP_CAP } from '../../frontier/dto/frontier.dto';

const toInt = ({ value }: { value: unknown }) =>
  value === undefined || value === '' ? undefined : /^-?[0-9]+$/.test(String(value)) ? Number(value) : NaN;
const REF = /^[A-Za-z][A-Za-z0-9]{0,15}-[0-9]{1,9}$/;

export const CHARGE_REASONS = [
  'dispatched',
  'no_runnable_items',
  'dry_run',
  'requested_item_unavailable',
  'operator_cancelled',
  'wait_adapter_encountered',
  // documented extension: a runnable step whose pinned stage exposes no entrypoint
  'entrypoint_unavailable',
] as const;
export type ChargeReason = (typeof CHARGE_REASONS)[number];
export const TARGET_BUCKETS = ['blocked', 'frozen', 'not_found'] as const;

export class ScheduleQueryDto {
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) session_id?: number;
  @IsOptional() @IsString() @MaxLength(63) project?: string;
  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'wip_cap must be a whole number' })
  @Min(0)
  @Max(MAX_WIP_CAP)
  wip_cap?: number;
}

export class DispatchDto {
  @IsInt() @Min(1) session_id!: number;
  @Matches(REF, { message: 'item_id must be an item ref such as ABC-12' }) item_id!: string;
  @IsOptional() @IsString() @MaxLength(63) project?: string;
  @IsOptional() @IsInt() @Min(0) @Max(MAX_WIP_CAP) wip_cap?: number;
}

// A terminal exit of the charge command decided on the operator's side (everything but dispatched).
export class ChargeDecisionDto {
  @IsIn(CHARGE_REASONS.filter((r) => r !== 'dispatched'), {
    message:
      'reason must be one of no_runnable_items, dry_run, requested_item_unavailable, operator_cancelled, wait_adapter_encountered, entrypoint_unavailable',
  })
  reason!: ChargeReason;

  @ValidateIf((o: ChargeDecisionDto) => o.item_id !== undefined && o.item_id !== null)
  @Matches(REF, { message: 'item_id must be an item ref such as ABC-12' })
  item_id?: string | null;

  @IsOptional() @IsString() @MaxLength(16) adapter?: string | null;
  @IsOptional() @IsString() @MaxLength(63) project?: string | null;
  @IsOptional() @IsBoolean() dispatched?: boolean;

  @ValidateIf((o: ChargeDecisionDto) => o.reason === 'requested_item_unavailable' || o.target_bucket !== undefined)
  @IsIn(TARGET_BUCKETS, {
    message: 'target_bucket must be blocked, frozen or not_found (with requested_item_unavailable)',
  })
  target_bucket?: string;

  @IsOptional() @IsInt() @Min(1) session_id?: number;
}

export interface ChargeDecisionDetail {
  item_id: string | null;
  adapter: string | null;
  dispatched: boolean;
  reason: ChargeReason;
  project: string | null;
  target_bucket?: string;
}

export interface ChargeDecisionResponse {
  event_id: string;
  detail: ChargeDecisionDetail;
}

export interface StepError {
  code: 'entrypoint_unavailable';
  message: string;
  recovery: string;
}

export interface ScheduleStep {
  position: number;
  item_id: string;
  title: string;
  project: string;
  status: string;
  priority: string;
  adapter: string;
  lane: string;
  // the binding-derived next step of the pinned stage; null for a wait step
  next_step: { stage: string; adapter: string; entrypoint: string | null } | null;
  entrypoint: string | null;
  wait: boolean;
  wip_slot: boolean;
  claimed_by_session: boolean;
  unblocks_count: number;
  downstream_depth: number;
  error?: StepError;
}

export interface ScheduleProjectSummary {
  project: string;
  wip_cap: number;
  wip_active: number;
  wip_claimed: number;
  wip_remaining: number;
  runnable: number;
  blocked: number;
  frozen: number;
  claimed_elsewhere: number;
  wip_suppressed: number;
  other_lanes: number;
}

export interface ScheduleResponse {
  session_id: number | null;
  lane: string | null;
  scope: string[];
  steps: ScheduleStep[];
  projects: ScheduleProjectSummary[];
  runnable_elsewhere: { project: string; runnable: number }[] | null;
}

export interface DispatchResponse {
  dispatched: true;
  item_id: string;
  project: string;
  adapter: string;
  entrypoint: string;
  session_id: number;
  wip_slot: boolean;
  claim: { claimed_at: string; expires_at: string };
  decision: ChargeDecisionDetail;
  event_id: string;
}
