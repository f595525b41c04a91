import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';

import { GATE_POINTS } from '@app/contracts/backlog';

export const MAX_GATE_ITEMS = 5000;

export class EvaluateGateQueryDto {
  @IsString()
  @MaxLength(40)
  item!: string;

  @IsIn(GATE_POINTS)
  gate_point!: string;
}

export class PlanCandidatesDto {
  @IsIn(GATE_POINTS)
  gate_point!: string;

  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_GATE_ITEMS)
  @IsString({ each: true })
  @MaxLength(40, { each: true })
  items!: string[];
}

export class EvaluateBatchDto {
  @IsIn(GATE_POINTS)
  gate_point!: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_GATE_ITEMS)
  @IsString({ each: true })
  @MaxLength(40, { each: true })
  items?: string[];

  @IsOptional()
  @Matches(/^[a-z0-9][a-z0-9_-]{0,62}$/)
  project?: string;
}
