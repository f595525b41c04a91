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

import { CHARGE_REASONS, ChargeReason } from '@app/contracts';

import { toInt } from '../../common/transforms';
import { MAX_WIP_CAP } from '../../frontier/dto/frontier.dto';

const REF = /^[A-Za-z][A-Za-z0-9]{0,15}-[0-9]{1,9}$/;

export const TARGET_BUCKETS = ['blocked', 'frozen', 'not_found'] as const;

export class ClaimsQueryDto {
  @IsOptional() @IsString() @MaxLength(63) project?: string;
}

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
