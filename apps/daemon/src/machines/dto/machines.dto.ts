import { Transform } from 'class-transformer';
import { IsBoolean, IsOptional, IsString, Length } from 'class-validator';

import { MachineListResponse } from '@app/contracts';

import { toBool } from '../../common/transforms';

export class ListMachinesQueryDto {
  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  include_revoked?: boolean;
}

export class RevokeMachineDto {
  @IsString() @Length(1, 128) machine_id!: string;
}

export interface MachineCredentialRow {
  machine_id: string;
  machine_name: string;
  actor: string;
  org: string;
  token_prefix: string;
  created_at: Date;
  last_used_at: Date | null;
  expires_at: Date | null;
  revoked_at: Date | null;
}

export function toMachineListResponse(rows: MachineCredentialRow[]): MachineListResponse {
  return {
    machines: rows.map((r) => ({
      machine_id: r.machine_id,
      machine_name: r.machine_name,
      actor: r.actor,
      org: r.org,
      token_prefix: r.token_prefix,
      created_at: r.created_at.toISOString(),
      last_used_at: r.last_used_at?.toISOString() ?? null,
      expires_at: r.expires_at?.toISOString() ?? null,
      revoked_at: r.revoked_at?.toISOString() ?? null,
    })),
  };
}
