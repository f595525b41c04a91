import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

export interface SessionActorRow {
  id: number;
  name: string;
  is_admin: boolean;
}

@Injectable()
export class ApprovalPageRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async createSession(hash: Buffer, actorId: number, ttlSeconds: number): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO approval_sessions (session_hash, actor_id, expires_at) VALUES ($1, $2, now() + make_interval(secs => $3))`,
      [hash, actorId, ttlSeconds],
    );
  }

  // A disabled actor's sessions stop working at once, like its tokens.
  async findSessionActor(hash: Buffer): Promise<SessionActorRow | null> {
    const rows: SessionActorRow[] = await this.dataSource.query(
      `SELECT a.id, a.name, a.is_admin FROM approval_sessions s JOIN actors a ON a.id = s.actor_id
        WHERE s.session_hash = $1 AND s.expires_at > now() AND a.status = 'active'`,
      [hash],
    );
    return rows[0] ?? null;
  }

  async deleteSession(hash: Buffer): Promise<void> {
    await this.dataSource.query('DELETE FROM approval_sessions WHERE session_hash = $1', [hash]);
  }
}
