import { Injectable } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';

import { ClaimHolder } from '@app/core';

import { InjectDataSource } from '../common/inject-data-source';

export interface WriterSessionRow {
  id: number;
  actor_id: number | null;
  harness: string;
  ended_at: Date | null;
}

@Injectable()
export class RulebookRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async session(id: number): Promise<WriterSessionRow | null> {
    const rows: WriterSessionRow[] = await this.dataSource.query(
      'SELECT id, actor_id, harness, ended_at FROM executor_sessions WHERE id = $1',
      [id],
    );
    return rows[0] ?? null;
  }

  // The live claim on the item, read under the write's lock of the claim row.
  async holder(manager: EntityManager, itemId: number): Promise<ClaimHolder | null> {
    const rows: {
      session_id: number;
      actor_id: number | null;
      actor: string | null;
      harness: string;
      expires_at: Date;
    }[] = await manager.query(
      `SELECT c.session_id, s.actor_id, a.name AS actor, s.harness, c.expires_at
           FROM item_claims c
           JOIN executor_sessions s ON s.id = c.session_id
           LEFT JOIN actors a ON a.id = s.actor_id
          WHERE c.item_id = $1 AND c.expires_at > now()
          FOR UPDATE OF c`,
      [itemId],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      sessionId: row.session_id,
      actorId: row.actor_id,
      actor: row.actor,
      harness: row.harness,
      expiresAt: row.expires_at,
    };
  }

  async isOrganizationAdmin(manager: EntityManager, actorId: number, project: string): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      `SELECT 1 FROM projects p JOIN memberships m ON m.organization_id = p.organization_id
        WHERE p.id = $1 AND m.actor_id = $2 AND m.role = 'admin' AND m.status = 'active'`,
      [project, actorId],
    );
    return rows.length > 0;
  }

  releaseClaim(manager: EntityManager, itemId: number): Promise<unknown> {
    return manager.query('DELETE FROM item_claims WHERE item_id = $1', [itemId]);
  }

  nameWriter(manager: EntityManager, writer: unknown): Promise<unknown> {
    return manager.query(`SELECT set_config('svc.writer', $1, true)`, [JSON.stringify(writer)]);
  }
}
