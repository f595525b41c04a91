import { createHash } from 'node:crypto';

import { Injectable } from '@nestjs/common';
import type { DataSource } from 'typeorm';

import { InjectDataSource } from '../common/inject-data-source';

export interface McpSessionRow {
  actor_id: number;
  project: string | null;
  harness: string | null;
  model: string | null;
  executor_session_id: number | null;
  notices_after: string;
  subscriptions: string[];
}

export interface McpSessionOpen {
  actorId: number;
  project: string | null;
  harness: string | null;
  model: string | null;
  executorSessionId: number | null;
}

const COLUMNS = 'actor_id, project, harness, model, executor_session_id, notices_after, subscriptions';

// TypeORM answers an UPDATE … RETURNING as [rows, count], a SELECT as rows.
function returned<T>(result: unknown): T[] {
  const list = result as unknown[];
  return (Array.isArray(list[0]) ? list[0] : list) as T[];
}

// The session id as kept: its SHA-256 (the id is sent on every request; no table holds it as sent).
export function sessionHash(id: string): Buffer {
  return createHash('sha256').update(id).digest();
}

@Injectable()
export class McpSessionsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async open(id: string, idleMs: number, s: McpSessionOpen): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO mcp_http_sessions (session_hash, actor_id, project, harness, model, executor_session_id, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, now() + $7 * interval '1 millisecond')`,
      [sessionHash(id), s.actorId, s.project, s.harness, s.model, s.executorSessionId, idleMs],
    );
  }

  async touch(id: string, actorId: number, idleMs: number): Promise<McpSessionRow | null> {
    const rows = returned<McpSessionRow>(
      await this.dataSource.query(
        `UPDATE mcp_http_sessions SET last_seen_at = now(), expires_at = now() + $3 * interval '1 millisecond'
        WHERE session_hash = $1 AND actor_id = $2 AND expires_at > now()
        RETURNING ${COLUMNS}`,
        [sessionHash(id), actorId, idleMs],
      ),
    );
    return rows[0] ?? null;
  }

  async touchMany(ids: string[], idleMs: number): Promise<Map<string, string[]>> {
    if (ids.length === 0) return new Map();
    const byHash = new Map(ids.map((id) => [sessionHash(id).toString('hex'), id]));
    const rows = returned<{ hash: string; subscriptions: string[] }>(
      await this.dataSource.query(
        `UPDATE mcp_http_sessions SET last_seen_at = now(), expires_at = now() + $2 * interval '1 millisecond'
        WHERE session_hash = ANY($1::bytea[]) AND expires_at > now()
        RETURNING encode(session_hash, 'hex') AS hash, subscriptions`,
        [ids.map(sessionHash), idleMs],
      ),
    );
    return new Map(rows.map((r) => [byHash.get(r.hash)!, r.subscriptions]));
  }

  async alive(id: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      'SELECT 1 FROM mcp_http_sessions WHERE session_hash = $1 AND expires_at > now()',
      [sessionHash(id)],
    );
    return rows.length > 0;
  }

  async setExecutorSession(id: string, executorSessionId: number): Promise<void> {
    await this.dataSource.query(
      'UPDATE mcp_http_sessions SET executor_session_id = $2, notices_after = $3 WHERE session_hash = $1',
      [sessionHash(id), executorSessionId, '0'],
    );
  }

  async setNoticesAfter(id: string, after: string): Promise<void> {
    await this.dataSource.query('UPDATE mcp_http_sessions SET notices_after = $2 WHERE session_hash = $1', [
      sessionHash(id),
      after,
    ]);
  }

  async subscribe(id: string, uri: string, on: boolean): Promise<void> {
    await this.dataSource.query(
      on
        ? `UPDATE mcp_http_sessions SET subscriptions = array_append(subscriptions, $2)
            WHERE session_hash = $1 AND NOT ($2 = ANY(subscriptions))`
        : 'UPDATE mcp_http_sessions SET subscriptions = array_remove(subscriptions, $2) WHERE session_hash = $1',
      [sessionHash(id), uri],
    );
  }

  async end(id: string): Promise<void> {
    await this.dataSource.query('DELETE FROM mcp_http_sessions WHERE session_hash = $1', [sessionHash(id)]);
  }

  // The grace lets a replica holding one end its executor session first.
  async sweep(graceMs: number): Promise<number> {
    const result: [unknown[], number] = await this.dataSource.query(
      `DELETE FROM mcp_http_sessions WHERE expires_at < now() - $1 * interval '1 millisecond'`,
      [graceMs],
    );
    return result[1];
  }
}
