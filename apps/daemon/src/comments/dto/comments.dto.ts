import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';

import { ItemCommentWire, MAX_COMMENT_LIMIT, WritePath } from '@app/contracts';

import { toUnsignedInt } from '../../common/transforms';
import { TEXT_LIMIT } from '../../common/text-fields';

export class AddCommentDto {
  // prose: newlines and tabs allowed (common/text-fields.ts), as long as an item's body may be
  @IsString() @MaxLength(TEXT_LIMIT) body!: string;
}

export class CommentsQueryDto {
  @IsOptional() @Transform(toUnsignedInt) @IsInt() @Min(1) @Max(MAX_COMMENT_LIMIT) limit?: number;
  @IsOptional()
  @IsString()
  @Matches(/^[1-9][0-9]{0,18}$/, { message: 'cursor must be a next_cursor of this list' })
  cursor?: string;
}

export interface CommentRow {
  id: string;
  item_id: number;
  actor_name: string | null;
  session_id: number | null;
  harness: string | null;
  path: WritePath;
  body: string;
  created_at: Date;
}

// A comment as a read of its item gives it (database/backlog-sql.ts, recentCommentsColumns): JSON, the time a string.
export type RecentCommentJson = Omit<CommentRow, 'created_at'> & { created_at: string };

export function recentCommentRows(rows: readonly RecentCommentJson[]): CommentRow[] {
  return rows.map((row) => ({ ...row, created_at: new Date(row.created_at) }));
}

export function toCommentResponse(ref: string, row: CommentRow): ItemCommentWire {
  return {
    id: row.id,
    item_id: ref,
    author: row.actor_name,
    session_id: row.session_id,
    harness: row.harness,
    path: row.path,
    body: row.body,
    created_at: row.created_at.toISOString(),
  };
}
