import { MigrationInterface, QueryRunner } from 'typeorm';

// Issue 37 (sessions that survive the topology): an MCP-over-HTTP session (its Mcp-Session-Id) is a row here, so
// any replica behind the proxy can serve it: a replica that does not hold the session's transport in memory
// rebuilds it from this row (owner, project, harness, model, the executor session it runs in, the notices it was told, its
// subscriptions).
// The id is kept as its SHA-256 only (it is useless without the owner's bearer token, but no table holds a handle
// as sent). A row lives while requests come (expires_at moves on with each one) and goes when the session ends.
export class McpHttpSessions1764610000000 implements MigrationInterface {
  name = 'McpHttpSessions1764610000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE mcp_http_sessions (
        session_hash bytea PRIMARY KEY,
        actor_id integer NOT NULL REFERENCES actors (id) ON DELETE CASCADE,
        project text,
        harness text,
        model text,
        executor_session_id integer REFERENCES executor_sessions (id) ON DELETE SET NULL,
        notices_after text NOT NULL DEFAULT '0',
        subscriptions text[] NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        last_seen_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL
      );
      CREATE INDEX ix_mcp_http_sessions_expires ON mcp_http_sessions (expires_at);
    `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE IF EXISTS mcp_http_sessions;`);
  }
}
