import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsISO8601,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';

import {
  ItemProgressWire,
  ItemSectionWire,
  ItemWire,
  PRIORITIES,
  renderBody,
  RESOLUTIONS,
  STRUCTURED_FIELDS,
  StructuredField,
} from '@app/contracts/backlog';

import { TEXT_LIMIT } from '../../common/text-fields';
import type { RecentCommentJson } from '../../comments/dto/comments.dto';

export const SECTION_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9 _.()-]{0,99}$/;
const STAGE = /^[a-z][a-z0-9-]{0,62}$/;
const SHORT = 500;

export class CreateItemDto {
  @Matches(/^[a-z0-9][a-z0-9_-]{0,62}$/)
  project!: string;

  @IsString()
  @Length(1, 10_000)
  title!: string;

  @IsOptional()
  @Matches(/^[a-z0-9][a-z0-9_-]{0,62}$/)
  workflow?: string;

  // default: the workflow's initial stage; another stage passes that stage's gates
  @IsOptional()
  @Matches(STAGE, { message: 'status must be a stage id' })
  status?: string;

  @IsOptional()
  @IsIn(PRIORITIES)
  priority?: string;

  @IsOptional()
  @IsIn([0, 1])
  frozen?: number;

  @IsOptional()
  @IsIn([0, 1])
  blocked?: number;

  @IsOptional()
  @IsString()
  @MaxLength(2000)
  blocked_reason?: string;

  @IsOptional() @IsString() @MaxLength(SHORT) github_issue?: string;
  @IsOptional() @IsString() @MaxLength(SHORT) deployed_to?: string;
  @IsOptional() @IsString() @MaxLength(TEXT_LIMIT) body?: string;
  @IsOptional() @IsISO8601({ strict: true }) merged_at?: string;
  @IsOptional() @Matches(/^[0-9]{1,12}$/, { message: 'owner must be an actor id' }) owner?: string;
  @IsOptional() @IsString() @MaxLength(200) deployment_flow?: string;
  @IsOptional() @IsString() @MaxLength(200) deploy_stage?: string;
  @IsOptional() @IsObject() workflow_posture?: Record<string, unknown>;

  @IsOptional() @IsString() @MaxLength(TEXT_LIMIT) spec?: string;
  @IsOptional() @IsString() @MaxLength(TEXT_LIMIT) design_spec?: string;
  @IsOptional() @IsString() @MaxLength(TEXT_LIMIT) technical_plan?: string;
  @IsOptional() @IsString() @MaxLength(TEXT_LIMIT) worktree_plan?: string;
  @IsOptional() @IsString() @MaxLength(TEXT_LIMIT) shepherd_log?: string;
  @IsOptional() @IsString() @MaxLength(TEXT_LIMIT) shepherd_caveats?: string;
  @IsOptional() @IsString() @MaxLength(TEXT_LIMIT) test_results?: string;
  @IsOptional() @IsString() @MaxLength(TEXT_LIMIT) deploy_log?: string;
}

export class ListItemsQueryDto {
  @IsOptional() @Matches(/^[a-z0-9][a-z0-9_-]{0,62}$/) project?: string;

  @IsOptional() @Matches(/^[a-z][a-z0-9-]{0,62}(,[a-z][a-z0-9-]{0,62}){0,30}$/) status?: string;

  @IsOptional() @IsIn(PRIORITIES) priority?: string;
  @IsOptional() @IsIn(['0', '1']) blocked?: string;
  @IsOptional() @IsIn(['0', '1']) frozen?: string;
  @IsOptional() @Matches(/^[a-z0-9][a-z0-9_-]{0,62}$/) workflow?: string;
  // a substring of the title or the body (case-insensitive), or a ref
  @IsOptional() @IsString() @Length(1, 200) q?: string;
  @IsOptional() @IsIn(['0', '1']) claimed?: string;

  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(1000) limit?: number;
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) @Max(10_000_000) offset?: number;
}

export class SetStatusDto {
  @Matches(STAGE, { message: 'status must be a stage id' })
  status!: string;

  // a project admin's override of another session's claim (recorded, and the claim is released)
  @IsOptional() @IsBoolean() force?: boolean;
}

export class ForceQueryDto {
  @IsOptional() @IsIn(['true', 'false']) force?: string;
}

export class BlockDto {
  @IsString()
  @Length(1, 2000)
  reason!: string;
}

export class ResolveDto {
  @IsIn(RESOLUTIONS)
  resolution!: string;

  @IsOptional() @IsString() @MaxLength(40) resolution_ref?: string;
  @IsOptional() @IsString() @MaxLength(10_000) resolution_comment?: string;

  // default: done for completed, cancelled for duplicate and wontfix
  @IsOptional() @Matches(STAGE) status?: string;

  @IsOptional() @IsBoolean() force?: boolean;
}

export class UpdateFieldDto {
  @ValidateIf((_o, v) => v !== null)
  @IsString()
  @MaxLength(TEXT_LIMIT)
  value!: string | null;

  @IsOptional() @IsBoolean() force?: boolean;
}

export class UpsertSectionDto {
  @ValidateIf((_o, v) => v !== null)
  @IsString()
  @MaxLength(TEXT_LIMIT)
  content!: string | null;

  @IsOptional() @IsBoolean() force?: boolean;

  @IsOptional()
  @IsInt()
  @Min(-1_000_000)
  @Max(1_000_000)
  ordering?: number;
}

export interface ItemRow extends Omit<ItemWire, 'item_id' | 'frozen' | 'blocked' | 'body'> {
  id: number;
  ref: string;
  project_sequence: number;
  frozen: number;
  blocked: number;
  body: string | null;
  total?: string;
}

export interface SectionRow extends ItemSectionWire {
  item_id: number;
}

export interface ItemDetailRow extends ItemRow {
  sections: SectionRow[];
  recent_comments: RecentCommentJson[];
  comment_count: number;
}

export function structuredFieldsOf(row: ItemRow): Record<StructuredField, string | null> {
  return Object.fromEntries(STRUCTURED_FIELDS.map((f) => [f, row[f]])) as Record<StructuredField, string | null>;
}

export function renderItemBody(row: ItemRow, sections: readonly ItemSectionWire[]): string {
  return renderBody(row.body, sections, structuredFieldsOf(row));
}

export function toItemResponse(row: ItemRow, sections: readonly ItemSectionWire[]): ItemWire {
  return {
    item_id: row.ref,
    title: row.title,
    project: row.project,
    workflow_id: row.workflow_id,
    workflow_version_id: row.workflow_version_id,
    workflow_version: row.workflow_version,
    workflow_posture: row.workflow_posture,
    status: row.status,
    priority: row.priority,
    frozen: row.frozen === 1 ? 1 : 0,
    blocked: row.blocked === 1 ? 1 : 0,
    blocked_reason: row.blocked_reason,
    github_issue: row.github_issue,
    deployed_to: row.deployed_to,
    body: renderItemBody(row, sections),
    merged_at: row.merged_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
    source: row.source,
    owner: row.owner,
    deployment_flow: row.deployment_flow,
    deploy_stage: row.deploy_stage,
    spec: row.spec,
    design_spec: row.design_spec,
    technical_plan: row.technical_plan,
    worktree_plan: row.worktree_plan,
    shepherd_log: row.shepherd_log,
    shepherd_caveats: row.shepherd_caveats,
    test_results: row.test_results,
    deploy_log: row.deploy_log,
    db_mutation_profile: row.db_mutation_profile,
    db_compatibility_attestation: row.db_compatibility_attestation,
    spec_updated_at: row.spec_updated_at,
    spec_updated_by: row.spec_updated_by,
    resolution: row.resolution,
    resolution_ref: row.resolution_ref,
    resolution_comment: row.resolution_comment,
    depends_on: row.depends_on,
  };
}

export function toSectionResponse(row: ItemSectionWire): ItemSectionWire {
  return {
    section_name: row.section_name,
    content: row.content,
    ordering: row.ordering,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export type ProgressRow = Omit<ItemProgressWire, 'item_id' | 'halt'>;

export function toProgressResponse(
  ref: string,
  row: ProgressRow,
  halt: ItemProgressWire['halt'] = null,
): ItemProgressWire {
  return { item_id: ref, ...row, halt };
}
