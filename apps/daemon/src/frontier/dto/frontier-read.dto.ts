import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';

import { FRONTIER_WINDOW_LISTS, FRONTIER_WINDOW_MAX_ROWS, SORT_KEYS } from '@app/contracts';

import { toBool, toInt } from '../../common/transforms';
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

// GET /v1/charge/frontier/window: a window of one list, filtered and sorted by the TUI's list query.
export class FrontierWindowQueryDto extends FrontierQueryDto {
  @IsOptional() @IsIn(FRONTIER_WINDOW_LISTS) list?: (typeof FRONTIER_WINDOW_LISTS)[number];

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'offset must be a whole number' })
  @Min(0)
  offset?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'limit must be a whole number' })
  @Min(1)
  @Max(FRONTIER_WINDOW_MAX_ROWS)
  limit?: number;

  // the TUI's filter line: words, pri:, status:, @me
  @IsOptional() @IsString() @MaxLength(200) filter?: string;

  @IsOptional() @IsIn(SORT_KEYS) sort?: (typeof SORT_KEYS)[number];

  @IsOptional() @Transform(toBool) desc?: boolean;
}
