import { Type } from 'class-transformer';
import { IsIn, IsInt, IsISO8601, IsOptional, IsString, Length, Max, MaxLength, Min } from 'class-validator';

import type {
  AddDispositionRequest,
  AddVerdictRequest,
  OuroborosEntryRequest,
  OuroborosListQuery,
} from '@app/contracts';

export const DISPOSITIONS = ['RESOLVED', 'DEFERRED'] as const;
const TEXT = 256 * 1024;

export class AddVerdictDto implements AddVerdictRequest {
  @IsString() @MaxLength(40) item!: string;
  @IsString() @Length(1, 200) transition!: string;
  @IsString() @Length(1, 200) worker!: string;
  @IsString() @Length(1, 100) verdict!: string;
  @IsOptional() @IsString() @MaxLength(TEXT) caveats?: string;
  @IsOptional() @IsInt() @Min(1) @Max(1000) attempt?: number;
}

export class AddDispositionDto implements AddDispositionRequest {
  @IsString() @MaxLength(40) item!: string;
  @IsString() @Length(1, 200) transition!: string;
  @IsOptional() @IsInt() @Min(1) @Max(1000) attempt?: number;
  @IsInt() @Min(1) @Max(10_000) caveat_num!: number;
  @IsString() @Length(1, TEXT) caveat_text!: string;
  @IsIn(DISPOSITIONS) disposition!: string;
  @IsOptional() @IsString() @MaxLength(TEXT) resolution_details?: string;
  @IsOptional() @IsInt() @Min(1) verdict_id?: number;
}

export class RecordsQueryDto {
  @IsOptional() @IsString() @MaxLength(40) item?: string;
}

export class AddOuroborosDto implements OuroborosEntryRequest {
  // when the observation was made; default now
  @IsOptional() @IsISO8601({ strict: true }) timestamp?: string;
  @IsString() @Length(1, 200) agent!: string;
  @IsOptional() @IsString() @MaxLength(TEXT) context?: string;
  @IsString() @Length(1, 100) category!: string;
  @IsString() @Length(1, TEXT) body!: string;
}

export class OuroborosQueryDto implements OuroborosListQuery {
  @IsOptional() @IsString() @MaxLength(200) agent?: string;
  @IsOptional() @IsString() @MaxLength(100) category?: string;
  @IsOptional() @IsIn(['0', '1']) reviewed?: '0' | '1';
  @IsOptional() @IsIn(['0', '1']) archived?: '0' | '1';
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(1000) limit?: number;
}
