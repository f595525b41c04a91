import { Injectable } from '@nestjs/common';
import type { DataSource } from 'typeorm';

import { InjectDataSource } from '../common/inject-data-source';

export interface SessionActorRow {
  id: number;
  name: string;
  is_admin: boolean;
  api_token_id: number | null;
  // the organization the sign-in token is confined to (a token minted from a machine credential), else null
  organization_id: number | null;
}

export interface CodeContextRow {
  client_key: string;
  created_at: Date;
  organization: string | null;
}

@Injectable()
export class ApprovalPageRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  // apiTokenId: the token the person signed in with (null for company sign-in); the session ends with it.
  async createSession(hash: Buffer, actorId: number, apiTokenId: number | null, ttlSeconds: number): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO approval_sessions (session_hash, actor_id, api_token_id, expires_at)
       VALUES ($1, $2, $3, now() + make_interval(secs => $4))`,
      [hash, actorId, apiTokenId, ttlSeconds],
    );
  }

  // One statement on every view and post, so a session stops at once when its actor, token or membership does.
  async findSessionActor(hash: Buffer): Promise<SessionActorRow | null> {
    const rows: SessionActorRow[] = await this.dataSource.query(
      `SELECT a.id, a.name, a.is_admin, s.api_token_id,
              (SELECT t.organization_id FROM api_tokens t WHERE t.id = s.api_token_id) AS organization_id
         FROM approval_sessions s JOIN actors a ON a.id = s.actor_id
        WHERE s.session_hash = $1 AND s.expires_at > now() AND a.status = 'active'
          AND (s.api_token_id IS NULL
               OR EXISTS (SELECT 1 FROM api_tokens t
                           WHERE t.id = s.api_token_id AND t.actor_id = s.actor_id AND t.revoked_at IS NULL
                             AND (t.expires_at IS NULL OR t.expires_at > now())))
          AND (a.is_admin
               OR EXISTS (SELECT 1 FROM memberships m WHERE m.actor_id = a.id AND m.status = 'active'))`,
      [hash],
    );
    return rows[0] ?? null;
  }

  async deleteSession(hash: Buffer): Promise<void> {
    await this.dataSource.query('DELETE FROM approval_sessions WHERE session_hash = $1', [hash]);
  }

  async serverOrganization(): Promise<string | null> {
    const rows: { name: string }[] = await this.dataSource.query(
      `SELECT name FROM organizations ORDER BY (slug = 'default') DESC, id LIMIT 1`,
    );
    return rows[0]?.name ?? null;
  }

  async codeContext(userCodeHash: Buffer): Promise<CodeContextRow | null> {
    const rows: CodeContextRow[] = await this.dataSource.query(
      `SELECT c.client_key, c.created_at, o.name AS organization
         FROM machine_authorizations c LEFT JOIN organizations o ON o.id = c.organization_id
        WHERE c.user_code_hash = $1`,
      [userCodeHash],
    );
    return rows[0] ?? null;
  }
}
