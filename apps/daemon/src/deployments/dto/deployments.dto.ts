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

import type {
  CreateEnvironmentRequest,
  CreateFlowRequest,
  CreateRunRequest,
  DeploymentHaltWire,
  ResumeRunRequest,
  RunWire,
  UpdateRunRequest,
} from '@app/contracts';

export const RUN_STATUSES = ['pending', 'running', 'halted', 'succeeded', 'failed', 'cancelled'] as const;
export const FINISHED_RUN_STATUSES = ['succeeded', 'failed', 'cancelled'];
const PROJECT = /^[a-z0-9][a-z0-9_-]{0,62}$/;
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

export class CreateFlowDto implements CreateFlowRequest {
  @Matches(NAME, { message: 'id must be letters, digits, . _ -' }) id!: string;
  @Matches(PROJECT) project!: string;
  @IsString() @Length(1, 200) name!: string;
  // names, or objects with approval and capabilities (see flow-stages.ts; checked by flowStagesProblem)
  @IsArray() @ArrayMaxSize(100) stages!: unknown[];
  @IsOptional() @IsString() @MaxLength(100) target_tier?: string;
  @IsOptional() @IsString() @MaxLength(2000) done_description?: string;
  @IsOptional() @IsBoolean() active?: boolean;
  @IsOptional() @IsBoolean() closing?: boolean;
  // false: the flow's items may reach done before their run completes (default true)
  @IsOptional() @IsBoolean() complete_before_done?: boolean;
}

export class ApproveDto {
  @Matches(/^[A-Za-z][A-Za-z0-9]{0,15}-[0-9]{1,9}$/, { message: 'item must be an item ref such as ABC-12' })
  item!: string;
}

export class ProjectQueryDto {
  @Matches(PROJECT) project!: string;
}

export class CreateEnvironmentDto implements CreateEnvironmentRequest {
  @Matches(PROJECT) project!: string;
  @Matches(NAME, { message: 'name must be letters, digits, . _ - (it is used in fact:deployed:<name>)' }) name!: string;
  @IsOptional() @IsString() @MaxLength(100) tier?: string;
  @IsOptional() @IsString() @MaxLength(100) flow_id?: string;
}

export class CreateRunDto implements CreateRunRequest {
  @Matches(PROJECT) project!: string;
  @IsOptional() @IsString() @MaxLength(100) flow_id?: string;
  @Matches(NAME) environment!: string;
  @IsOptional() @IsIn(RUN_STATUSES) status?: string;
  @IsOptional() @IsString() @MaxLength(100) current_stage?: string;
  @IsOptional() @IsInt() @Min(0) @Max(1000) stage_index?: number;
  @IsOptional() @IsInt() @Min(0) @Max(1000) stage_count?: number;
  @IsArray() @ArrayMaxSize(5000) @IsString({ each: true }) @MaxLength(40, { each: true }) items!: string[];
  @IsOptional() @IsString() @MaxLength(10_000) qa_summary?: string;
  @IsOptional() @IsString() @MaxLength(2000) blocked_reason?: string;
  // capabilities the usher step has here (a stage needing others halts with needs-capability)
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MaxLength(100, { each: true })
  capabilities?: string[];
}

export class UpdateRunDto implements UpdateRunRequest {
  @IsOptional() @IsIn(RUN_STATUSES) status?: string;
  @IsOptional() @IsString() @MaxLength(100) current_stage?: string;
  @IsOptional() @IsInt() @Min(0) @Max(1000) stage_index?: number;
  @IsOptional() @IsInt() @Min(0) @Max(1000) stage_count?: number;
  @IsOptional() @IsString() @MaxLength(10_000) qa_summary?: string;
  @IsOptional() @IsString() @MaxLength(2000) blocked_reason?: string;
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MaxLength(100, { each: true })
  capabilities?: string[];
}

export class ResumeRunDto implements ResumeRunRequest {
  // what the environment/runner has now (replaces what the run last declared); omitted: the run's declared set
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MaxLength(100, { each: true })
  capabilities?: string[];
}

// An approval recorded on a run, as the backlog file (svc-backlog/v1, deployments.runs[].approvals) carries it.
export interface RecordedApproval {
  run_id: string;
  stage_index: number;
  stage: string;
  item: string | null;
  approved_by: string | null;
  approver_role: 'member' | 'admin';
  approved_at: string;
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
  halt_kind: HaltKind | null;
  halt_stage: string | null;
  halt_missing: string[] | null;
  halted_at: string | null;
  capabilities: string[] | null;
  // recorded by the database on every write, never weakened; null: none
  required_approval: 'member' | 'admin' | null;
}

export type HaltKind = DeploymentHaltWire['kind'];

export type RunHaltWire = DeploymentHaltWire;

export function ageText(since: string, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(since)) / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}

export function haltOf(
  row: Pick<RunRow, 'halt_kind' | 'halt_stage' | 'halt_missing' | 'halted_at'>,
): RunHaltWire | null {
  if (!row.halt_kind || !row.halt_stage || !row.halted_at) return null;
  const missing = row.halt_missing ?? [];
  const what =
    row.halt_kind === 'awaiting-approval'
      ? `awaiting approval for ${row.halt_stage}`
      : `needs capability ${missing.join(', ')} for ${row.halt_stage}`;
  return {
    kind: row.halt_kind,
    stage: row.halt_stage,
    missing,
    since: row.halted_at,
    summary: `${what} since ${ageText(row.halted_at)}`,
  };
}

export function toRunResponse(row: RunRow, refs: ReadonlyMap<number, string>): RunWire {
  const { carried_items, halt_kind: _kind, halt_stage: _stage, halt_missing: _missing, halted_at: _at, ...rest } = row;
  return {
    ...rest,
    carried_work: { items: carried_items.map((id) => refs.get(id) ?? `#${id}`) },
    halt: haltOf(row),
  };
}
