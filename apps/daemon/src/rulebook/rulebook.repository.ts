import { Injectable } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';

import { ClaimHolder } from '@app/core';

import { InjectDataSource } from '../common/inject-data-source';
import { ClaimHolderJson, claimHolderColumn } from '../database/backlog-sql';

export function holderOf(json: ClaimHolderJson | null): ClaimHolder | null {
  if (!json) return null;
  return {
    sessionId: json.session_id,
    actorId: json.actor_id,
    actor: json.actor,
    harness: json.harness,
    expiresAt: new Date(json.expires_at),
  };
}

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
    const rows: { holder: ClaimHolderJson | null }[] = await manager.query(
      `SELECT ${claimHolderColumn('$1::integer')} AS holder`,
      [itemId],
    );
    return holderOf(rows[0]?.holder ?? null);
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
