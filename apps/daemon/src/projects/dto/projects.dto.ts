import { IsObject, IsOptional, IsString, Length, Matches } from 'class-validator';

import { ProjectWire } from '@app/contracts/backlog';

import { titleMaxLength } from '../project-policy';

export const PROJECT_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;
export const PREFIX_PATTERN = /^[A-Z][A-Z0-9]{0,15}$/;

export class CreateProjectDto {
  @Matches(PROJECT_ID_PATTERN, { message: 'id must be a lowercase slug (a-z, 0-9, _ and -)' })
  id!: string;

  @IsString()
  @Length(1, 200)
  name!: string;

  @Matches(PREFIX_PATTERN, {
    message: 'public_item_prefix must be uppercase letters and digits, starting with a letter',
  })
  public_item_prefix!: string;

  @IsOptional()
  @IsObject()
  policy?: Record<string, unknown>;
}

export class UpdateProjectDto {
  @IsOptional()
  @IsString()
  @Length(1, 200)
  name?: string;

  // merged into the stored policy; a key set to null is removed
  @IsOptional()
  @IsObject()
  policy?: Record<string, unknown>;
}

export interface ProjectRow {
  id: string;
  name: string;
  public_item_prefix: string;
  next_sequence: number;
  policy: Record<string, unknown>;
  organization: string | null;
  created_at: string;
  updated_at: string;
}

export function toProjectResponse(row: ProjectRow): ProjectWire {
  return {
    id: row.id,
    name: row.name,
    public_item_prefix: row.public_item_prefix,
    next_sequence: row.next_sequence,
    policy: row.policy,
    title_max_length: titleMaxLength(row.policy),
    organization: row.organization,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
