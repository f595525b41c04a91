import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Length,
  Max,
  MaxLength,
  Min,
} from 'class-validator';

import {
  ChainWire,
  CONTEXT_ESTIMATES,
  EPIC_TASK_STATUSES,
  EpicTaskWire,
  FILE_ACTIONS,
  NoteWire,
  TaskFileWire,
} from '@app/contracts';

const TEXT = 256 * 1024;

export class CreateEpicTaskDto {
  @IsOptional() @IsInt() @Min(1) @Max(1_000_000) task_num?: number;
  @IsString() @Length(1, 10_000) title!: string;
  @IsOptional() @IsString() @MaxLength(500) worktree?: string;
  @IsOptional() @IsIn(CONTEXT_ESTIMATES) context_estimate?: string;
  @IsOptional() @IsArray() @ArrayMaxSize(500) @IsInt({ each: true }) @Min(1, { each: true }) dependencies?: number[];
  @IsOptional() @IsIn(EPIC_TASK_STATUSES) status?: string;
  @IsOptional() @IsString() @MaxLength(TEXT) body?: string;
  @IsOptional() @IsString() @MaxLength(500) github_issue?: string;
  @IsOptional() @IsString() @MaxLength(500) branch?: string;
  @IsOptional() @IsString() @MaxLength(1000) worktree_path?: string;
  @IsOptional() @IsInt() @Min(1) @Max(100) max_attempts?: number;
  @IsOptional() @IsString() @MaxLength(200) agent_id?: string;
}

export class UpdateEpicTaskDto {
  @IsOptional() @IsString() @Length(1, 10_000) title?: string;
  @IsOptional() @IsString() @MaxLength(500) worktree?: string;
  @IsOptional() @IsIn(CONTEXT_ESTIMATES) context_estimate?: string;
  @IsOptional() @IsArray() @ArrayMaxSize(500) @IsInt({ each: true }) @Min(1, { each: true }) dependencies?: number[];
  @IsOptional() @IsIn(EPIC_TASK_STATUSES) status?: string;
  @IsOptional() @IsString() @MaxLength(TEXT) body?: string;
  @IsOptional() @IsString() @MaxLength(500) github_issue?: string;
  @IsOptional() @IsString() @MaxLength(500) branch?: string;
  @IsOptional() @IsString() @MaxLength(1000) worktree_path?: string;
  @IsOptional() @IsInt() @Min(0) @Max(1000) dispatch_attempts?: number;
  @IsOptional() @IsInt() @Min(1) @Max(100) max_attempts?: number;
  @IsOptional() @IsString() @MaxLength(200) agent_id?: string;
  // stamps last_heartbeat with the database clock
  @IsOptional() @IsBoolean() heartbeat?: boolean;
}

export class AddTaskFileDto {
  @IsString() @Length(1, 1000) file_path!: string;
  @IsOptional() @IsIn(FILE_ACTIONS) action?: string;
}

export class UpsertChainDto {
  @IsOptional() @IsString() @MaxLength(1000) worktree_path?: string;
  @IsOptional() @IsArray() @ArrayMaxSize(500) @IsInt({ each: true }) @Min(1, { each: true }) queue?: number[];
  @IsOptional() @IsInt() @Min(0) @Max(1_000_000) current_index?: number;
  @IsOptional() @IsString() @MaxLength(100) current_task?: string;
  @IsOptional() @IsInt() @Min(1) @Max(1000) current_attempt?: number;
  @IsOptional() @IsInt() @Min(1) @Max(100) max_attempts?: number;
  @IsOptional() @IsIn([0, 1]) no_chain?: number;
}

export class AddNoteDto {
  @IsString() @Length(1, TEXT) body!: string;
  @IsOptional() @IsString() @MaxLength(200) author?: string;
}

export class NotesQueryDto {
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) task?: number;
}

export interface EpicTaskRow extends Omit<EpicTaskWire, 'epic' | 'dependencies'> {
  dependencies: string | null;
}

export interface ChainRow extends Omit<ChainWire, 'epic' | 'queue'> {
  queue: string | null;
}

export type { ChainWire, NoteWire, TaskFileWire };

export function parseTaskNumbers(text: string | null): number[] {
  if (!text) return [];
  return text
    .split(',')
    .filter((s) => s.length > 0)
    .map(Number);
}

export function parseQueue(text: string | null): number[] {
  if (!text) return [];
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((v): v is number => typeof v === 'number') : [];
  } catch {
    return [];
  }
}

export function toTaskResponse(epic: string, row: EpicTaskRow): EpicTaskWire {
  return {
    epic,
    task_num: row.task_num,
    title: row.title,
    worktree: row.worktree,
    context_estimate: row.context_estimate,
    dependencies: parseTaskNumbers(row.dependencies),
    status: row.status,
    dispatch_attempts: row.dispatch_attempts,
    max_attempts: row.max_attempts,
    body: row.body,
    github_issue: row.github_issue,
    branch: row.branch,
    worktree_path: row.worktree_path,
    agent_id: row.agent_id,
    last_heartbeat: row.last_heartbeat,
  };
}

export function toChainResponse(epic: string, row: ChainRow): ChainWire {
  return { epic, ...row, queue: parseQueue(row.queue) };
}
