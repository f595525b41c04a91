import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';

import { toInt } from '../../common/transforms';
import { FrontierQueryDto } from './frontier.dto';

export class FrontierReadQueryDto extends FrontierQueryDto {
  // quoted or not
  @IsOptional()
  @IsString()
  @MaxLength(80)
  @Matches(/^(W\/)?"?[A-Za-z0-9_-]+"?$/, { message: 'since must be an ETag of an earlier answer' })
  since?: string;

  // a first screen before the whole answer
  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'limit must be a whole number' })
  @Min(1)
  @Max(10_000)
  limit?: number;
}
