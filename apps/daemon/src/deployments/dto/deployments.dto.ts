import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';

export const RUN_STATUSES = ['pending', 'running', 'halted', 'succeeded', 'failed', 'cancelled'] as const;
export const FINISHED_RUN_STATUSES = ['succeeded', 'failed', 'cancelled'];
const PROJECT = /^[a-z0-9][a-z0-9_-]{0,62}$/;
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

export class CreateFlowDto {
  @Matches(NAME, { message: 'id must be letters, digits, . _ -' }) id!: string;
  @Matches(PROJECT) project!: string;
  @IsString() @Length(1, 200) name!: string;
  @IsArray() @ArrayMaxSize(100) @IsString({ each: true }) @Length(1, 100, { each: true }) stages!: string[];
  @IsOptional() @IsString() @MaxLength(100) target_tier?: string;
  @IsOptional() @IsString() @MaxLength(2000) done_description?: string;
  @IsOptional() @IsBoolean() active?: boolean;
  @IsOptional() @IsBoolean() closing?: boolean;
}

export class ProjectQueryDto {
  @Matches(PROJECT) project!: string;
}

export class CreateEnvironmentDto {
  @Matches(PROJECT) project!: string;
  @Matches(NAME, { message: 'name must be letters, digits, . _ - (it is used in fact:deployed:<name>)' }) name!: string;
  @IsOptional() @IsString() @MaxLength(100) tier?: string;
  @IsOptional() @IsString() @MaxLength(100) flow_id?: string;
}

export class CreateRunDto {
  @Matches(PROJECT) project!: string;
  @IsOptional() @IsString() @MaxLength(100) flow_id?: string;
  @Matches(NAME) environment!: string;
  @IsOptional() @IsIn(RUN_STATUSES) status?: string;
  @IsOptional() @IsString() @MaxLength(100) current_stage?: string;
  @IsOptional() @IsInt() @Min(0) @Max(1000) stage_index?: number;
  @IsOptional() @IsInt() @Min(0) @Max(1000) stage_count?: number;
  // public refs of the carried items
  @IsArray() @ArrayMaxSize(5000) @IsString({ each: true }) @MaxLength(40, { each: true }) items!: string[];
  @IsOptional() @IsString() @MaxLength(10_000) qa_summary?: string;
  @IsOptional() @IsString() @MaxLength(2000) blocked_reason?: string;
}

export class UpdateRunDto {
  @IsOptional() @IsIn(RUN_STATUSES) status?: string;
  @IsOptional() @IsString() @MaxLength(100) current_stage?: string;
  @IsOptional() @IsInt() @Min(0) @Max(1000) stage_index?: number;
  @IsOptional() @IsInt() @Min(0) @Max(1000) stage_count?: number;
  @IsOptional() @IsString() @MaxLength(10_000) qa_summary?: string;
  @IsOptional() @IsString() @MaxLength(2000) blocked_reason?: string;
}

export interface FlowWire {
  id: string;
  project: string;
  name: string;
  stages: string[];
  target_tier: string | null;
  done_description: string | null;
  active: boolean;
  closing: boolean;
  created_at: string;
}

export interface EnvironmentWire {
  project: string;
  name: string;
  tier: string | null;
  flow_id: string | null;
  created_at: string;
  retired_at: string | null;
}

export interface RunRow {
  id: string;
  project: string;
  flow_id: string | null;
  environment: string;
  status: string;
  current_stage: string | null;
  stage_index: number;
  stage_count: number;
  carried_items: number[];
  qa_summary: string | null;
  blocked_reason: string | null;
  started_at: string;
  finished_at: string | null;
}

export interface RunWire extends Omit<RunRow, 'carried_items'> {
  carried_work: { items: string[] };
}

export function toRunResponse(row: RunRow, refs: ReadonlyMap<number, string>): RunWire {
  const { carried_items, ...rest } = row;
  return { ...rest, carried_work: { items: carried_items.map((id) => refs.get(id) ?? `#${id}`) } };
}
