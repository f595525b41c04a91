import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';

import { ChangeRecordWire, MAX_HISTORY_LIMIT, WritePath } from '@app/contracts';

import { toUnsignedInt } from '../../common/transforms';

const RECORD_ID = /^[1-9][0-9]{0,18}$/;

export class HistoryPageQueryDto {
  @IsOptional() @Transform(toUnsignedInt) @IsInt() @Min(1) @Max(MAX_HISTORY_LIMIT) limit?: number;
  @IsOptional() @IsString() @Matches(RECORD_ID) before?: string;
}

export class HistoryQueryDto extends HistoryPageQueryDto {
  @IsOptional() @IsString() @MaxLength(63) project?: string;
  @IsOptional() @IsString() @MaxLength(40) item?: string;
  @IsOptional() @IsString() @MaxLength(200) actor?: string;
  @IsOptional() @IsString() @MaxLength(40) object?: string;
}

export class NoticesQueryDto {
  // Records after this id (the previous answer's last_id); 0 or absent: since the session began.
  @IsOptional() @IsString() @Matches(/^(0|[1-9][0-9]{0,18})$/) after?: string;
}

export interface ChangeRecordRow {
  id: string;
  at: Date;
  actor_name: string | null;
  credential_kind: 'api_token' | 'machine_credential' | null;
  credential_id: number | null;
  session_id: number | null;
  harness: string | null;
  path: WritePath;
  forced: boolean;
  project: string | null;
  item_ref: string | null;
  object: string;
  object_ref: string | null;
  action: string;
  field: string | null;
  before: unknown;
  after: unknown;
}

export function toChangeRecordResponse(row: ChangeRecordRow): ChangeRecordWire {
  return {
    id: row.id,
    at: row.at.toISOString(),
    actor: row.actor_name,
    credential:
      row.credential_kind && row.credential_id !== null ? { kind: row.credential_kind, id: row.credential_id } : null,
    session_id: row.session_id,
    harness: row.harness,
    path: row.path,
    forced: row.forced,
    project: row.project,
    item_id: row.item_ref,
    object: row.object,
    object_ref: row.object_ref,
    action: row.action,
    field: row.field,
    before: row.before ?? null,
    after: row.after ?? null,
  };
}
