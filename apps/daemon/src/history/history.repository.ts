import { Injectable } from '@nestjs/common';
import type { DataSource } from 'typeorm';

import { InjectDataSource } from '../common/inject-data-source';
import { ChangeRecordRow } from './dto/history.dto';

const COLUMNS = `r.id::text AS id, r.at, r.actor_name, r.credential_kind, r.credential_id, r.session_id, r.harness,
                 r.path, r.forced, r.project, r.item_ref, r.object, r.object_ref, r.action, r.field, r.before, r.after`;

export interface HistoryFilter {
  // null = every project (a server admin not confined to one organization)
  projects: string[] | null;
  // organizations whose records with no project (credentials, memberships, machine approvals) the caller may read
  organizations: number[] | null;
  project?: string;
  itemId?: number;
  actor?: string;
  object?: string;
  before?: string;
  limit: number;
}

export interface SessionNoticeRow extends ChangeRecordRow {
  notice: 'claim_lost' | 'changed';
}

@Injectable()
export class HistoryRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  // Newest first, one page (limit + 1 rows tell whether an older page exists).
  page(filter: HistoryFilter): Promise<ChangeRecordRow[]> {
    return this.dataSource.query(
      `SELECT ${COLUMNS}
         FROM change_records r
        WHERE ($1::text[] IS NULL OR r.project = ANY ($1::text[])
               OR (r.project IS NULL AND r.organization_id = ANY (COALESCE($2::int[], '{}'::int[]))))
          AND ($3::text IS NULL OR r.project = $3)
          AND ($4::int IS NULL OR r.item_id = $4)
          AND ($5::text IS NULL OR r.actor_name = $5)
          AND ($6::text IS NULL OR r.object = $6)
          AND ($7::bigint IS NULL OR r.id < $7)
        ORDER BY r.id DESC
        LIMIT $8`,
      [
        filter.projects,
        filter.organizations,
        filter.project ?? null,
        filter.itemId ?? null,
        filter.actor ?? null,
        filter.object ?? null,
        filter.before ?? null,
        filter.limit + 1,
      ],
    );
  }

  async session(id: number): Promise<{ id: number; actor_id: number | null; created_at: Date } | null> {
    const rows: { id: number; actor_id: number | null; created_at: Date }[] = await this.dataSource.query(
      'SELECT id, actor_id, created_at FROM executor_sessions WHERE id = $1',
      [id],
    );
    return rows[0] ?? null;
  }

  // Claims it lost to someone or something else, and others' changes and comments on items it holds now; its own
  // writes are not news.
  notices(sessionId: number, since: Date, after: string): Promise<SessionNoticeRow[]> {
    return this.dataSource.query(
      `SELECT ${COLUMNS}, r.id AS seq, 'claim_lost' AS notice
         FROM change_records r
        WHERE r.object = 'claim' AND r.id > $3::bigint AND r.at >= $2
          AND (r.before ->> 'session_id')::int = $1
          AND (r.after IS NULL OR (r.after ->> 'session_id')::int IS DISTINCT FROM $1)
          AND r.session_id IS DISTINCT FROM $1
       UNION ALL
       SELECT ${COLUMNS}, r.id AS seq, 'changed' AS notice
         FROM change_records r
         JOIN item_claims c ON c.item_id = r.item_id AND c.session_id = $1 AND c.expires_at > now()
        WHERE r.object IN ('item', 'dependency', 'section', 'comment') AND r.id > $3::bigint AND r.at >= c.claimed_at
          AND r.session_id IS DISTINCT FROM $1
       ORDER BY seq
       LIMIT 200`,
      [sessionId, since, after],
    );
  }

  // Claims of the session whose lease ran out with nobody taking them over yet: lost too.
  lapsedClaims(sessionId: number): Promise<{ item_ref: string; expires_at: Date }[]> {
    return this.dataSource.query(
      `SELECT p.public_item_prefix || '-' || i.project_sequence AS item_ref, c.expires_at
         FROM item_claims c JOIN items i ON i.id = c.item_id JOIN projects p ON p.id = i.project
        WHERE c.session_id = $1 AND c.expires_at <= now()
        ORDER BY c.expires_at`,
      [sessionId],
    );
  }

  adminOrganizations(actorId: number): Promise<{ organization_id: number }[]> {
    return this.dataSource.query(
      `SELECT organization_id FROM memberships WHERE actor_id = $1 AND role = 'admin' AND status = 'active'`,
      [actorId],
    );
  }

  async prune(days: number, batch: number): Promise<number> {
    const result: unknown = await this.dataSource.query(
      `DELETE FROM change_records WHERE id IN (
         SELECT id FROM change_records WHERE at < now() - make_interval(days => $1) ORDER BY id LIMIT $2)`,
      [days, batch],
    );
    return Array.isArray(result) && typeof result[1] === 'number' ? result[1] : 0;
  }
}
