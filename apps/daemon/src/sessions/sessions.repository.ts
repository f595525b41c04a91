import { Injectable } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';

import { InjectDataSource } from '../common/inject-data-source';
import { ClaimRow, SessionRow } from './dto/sessions.dto';

const SESSION_COLUMNS = 'id, actor_id, project, harness, model, lane, label, created_at, last_seen_at, ended_at';
const CLAIM_COLUMNS = `p.public_item_prefix || '-' || i.project_sequence AS item_ref, c.project, c.entrypoint,
                       c.adapter, c.wip_slot, c.claimed_at, c.renewed_at, c.expires_at`;

@Injectable()
export class SessionsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async create(session: {
    actorId: number;
    project: string | null;
    harness: string;
    model: string;
    lane: string;
    label: string | null;
  }): Promise<SessionRow> {
    const rows: SessionRow[] = await this.dataSource.query(
      `INSERT INTO executor_sessions (actor_id, project, harness, model, lane, label)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${SESSION_COLUMNS}`,
      [session.actorId, session.project, session.harness, session.model, session.lane, session.label],
    );
    return rows[0];
  }

  async find(id: number, manager: EntityManager = this.dataSource.manager): Promise<SessionRow | null> {
    const rows: SessionRow[] = await manager.query(`SELECT ${SESSION_COLUMNS} FROM executor_sessions WHERE id = $1`, [
      id,
    ]);
    return rows[0] ?? null;
  }

  list(filter: {
    actorId: number | null;
    project: string | null;
    harness: string | null;
    state: 'live' | 'ended' | 'all';
    limit: number;
  }): Promise<SessionRow[]> {
    return this.dataSource.query(
      `SELECT ${SESSION_COLUMNS} FROM executor_sessions
        WHERE ($1::int IS NULL OR actor_id = $1)
          AND ($2::text IS NULL OR project = $2)
          AND ($3::text IS NULL OR harness = $3)
          AND ($4 = 'all' OR ($4 = 'live') = (ended_at IS NULL))
        ORDER BY id DESC
        LIMIT $5`,
      [filter.actorId, filter.project, filter.harness, filter.state, filter.limit],
    );
  }

  liveClaimsOf(sessionIds: number[]): Promise<(ClaimRow & { session_id: number })[]> {
    if (sessionIds.length === 0) return Promise.resolve([]);
    return this.dataSource.query(
      `SELECT c.session_id, ${CLAIM_COLUMNS}
         FROM item_claims c JOIN items i ON i.id = c.item_id JOIN projects p ON p.id = i.project
        WHERE c.session_id = ANY($1::int[]) AND c.expires_at > now()
        ORDER BY c.claimed_at`,
      [sessionIds],
    );
  }

  liveClaims(sessionId: number): Promise<ClaimRow[]> {
    return this.dataSource.query(
      `SELECT ${CLAIM_COLUMNS}
         FROM item_claims c JOIN items i ON i.id = c.item_id JOIN projects p ON p.id = i.project
        WHERE c.session_id = $1 AND c.expires_at > now()
        ORDER BY c.claimed_at`,
      [sessionId],
    );
  }

  // A heartbeat renews every live claim of the session; an expired claim is not revived.
  heartbeat(sessionId: number, ttlSeconds: number): Promise<ClaimRow[]> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query('UPDATE executor_sessions SET last_seen_at = now() WHERE id = $1', [sessionId]);
      return manager.query(
        `WITH renewed AS (
           UPDATE item_claims SET renewed_at = now(), expires_at = now() + make_interval(secs => $2)
            WHERE session_id = $1 AND expires_at > now()
           RETURNING *
         )
         SELECT ${CLAIM_COLUMNS} FROM renewed c JOIN items i ON i.id = c.item_id JOIN projects p ON p.id = i.project
          ORDER BY c.claimed_at`,
        [sessionId, ttlSeconds],
      );
    });
  }

  // Only the session's own live claim is deleted; false when it held none.
  async release(sessionId: number, itemId: number): Promise<boolean> {
    // DELETE ... RETURNING answers [rows, rowCount] through TypeORM's query().
    const [, count]: [unknown[], number] = await this.dataSource.query(
      `DELETE FROM item_claims WHERE session_id = $1 AND item_id = $2 AND expires_at > now() RETURNING item_id`,
      [sessionId, itemId],
    );
    return count > 0;
  }

  end(sessionId: number): Promise<SessionRow> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query('DELETE FROM item_claims WHERE session_id = $1', [sessionId]);
      const [rows]: [SessionRow[], number] = await manager.query(
        `UPDATE executor_sessions SET ended_at = coalesce(ended_at, now()), last_seen_at = now()
          WHERE id = $1 RETURNING ${SESSION_COLUMNS}`,
        [sessionId],
      );
      return rows[0];
    });
  }
}
