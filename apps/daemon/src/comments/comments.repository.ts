import { Injectable } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';

import { InjectDataSource } from '../common/inject-data-source';
import { WriterRecord } from '../database/write-context';
import { CommentRow } from './dto/comments.dto';

const COLUMNS = `c.id::text AS id, c.item_id, c.actor_name, c.session_id, c.harness, c.path, c.body, c.created_at`;

@Injectable()
export class CommentsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  // The author is the write's writer, as the change record of this insert names it.
  async insert(manager: EntityManager, itemId: number, writer: WriterRecord, body: string): Promise<CommentRow> {
    const rows: CommentRow[] = await manager.query(
      `INSERT INTO item_comments AS c (item_id, actor_id, actor_name, credential_kind, credential_id, session_id,
                                       harness, path, body)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       RETURNING ${COLUMNS}`,
      [
        itemId,
        writer.actor_id,
        writer.actor_name,
        writer.credential_kind,
        writer.credential_id,
        writer.session_id,
        writer.harness,
        writer.path,
        body,
      ],
    );
    return rows[0];
  }

  // Newest first, one page (limit + 1 rows tell whether an older page exists).
  page(itemId: number, before: string | null, limit: number): Promise<CommentRow[]> {
    return this.dataSource.query(
      `SELECT ${COLUMNS} FROM item_comments c
        WHERE c.item_id = $1 AND ($2::bigint IS NULL OR c.id < $2::bigint)
        ORDER BY c.id DESC
        LIMIT $3`,
      [itemId, before, limit + 1],
    );
  }
}
