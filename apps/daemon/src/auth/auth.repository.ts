import { Injectable } from '@nestjs/common';
import type { DataSource } from 'typeorm';

import { InjectDataSource } from '../common/inject-data-source';
import { AuthenticatedActor, organizationScope } from './actor';
import { accessibleProjectWhere, ProjectAccessRow } from './project-visibility';

const BOOTSTRAP_LOCK_KEY = 7_301_002;

const TOUCH_INTERVAL_MS = 60_000;
const TOUCH_CACHE_LIMIT = 10_000;

interface CredentialRow {
  id: number;
  name: string;
  is_admin: boolean;
  status: 'active' | 'disabled';
  via: 'api_token' | 'machine_credential';
  credential_id: number;
  machine_id: string | null;
  organization_id: number | null;
  expires_at: Date | null;
  scope: string;
}

@Injectable()
export class AuthRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  // Revoked or expired credentials never authenticate; the caller refuses disabled actors.
  async findActorByCredentialHash(hash: Buffer): Promise<AuthenticatedActor | null> {
    const rows: CredentialRow[] = await this.dataSource.query(
      `SELECT a.id, a.name, a.is_admin, a.status, c.via, c.credential_id, c.machine_id, c.organization_id,
              c.expires_at, c.scope
         FROM (
               SELECT 'api_token' AS via, t.id AS credential_id, t.actor_id, NULL::text AS machine_id,
                      t.organization_id, t.expires_at, t.scope
                 FROM api_tokens t
                WHERE t.token_hash = $1 AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > now())
               UNION ALL
               SELECT 'machine_credential', m.id, m.actor_id, m.machine_id, m.organization_id, m.expires_at, 'full'
                 FROM machine_credentials m
                WHERE m.token_hash = $1 AND m.revoked_at IS NULL AND (m.expires_at IS NULL OR m.expires_at > now())
              ) c
         JOIN actors a ON a.id = c.actor_id
        LIMIT 1`,
      [hash],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      id: row.id,
      name: row.name,
      isAdmin: row.is_admin,
      status: row.status,
      via: row.via,
      credentialId: row.credential_id,
      machineId: row.machine_id,
      organizationId: row.organization_id,
      expiresAt: row.expires_at,
      scope: row.scope === 'metrics' ? 'metrics' : 'full',
    };
  }

  // Replicas booting on an empty database take turns: the first creates the admin, the others nothing (false).
  createFirstAdmin(tokenHash: Buffer, tokenPrefix: string, orgSlug: string): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock($1)', [BOOTSTRAP_LOCK_KEY]);
      const [{ count }]: { count: string }[] = await manager.query('SELECT count(*) AS count FROM actors');
      if (Number(count) > 0) return false;
      const [org]: { id: number }[] = await manager.query(
        `INSERT INTO organizations (slug, name) VALUES ($1, $1)
         ON CONFLICT (slug) DO UPDATE SET slug = EXCLUDED.slug RETURNING id`,
        [orgSlug],
      );
      const [actor]: { id: number }[] = await manager.query(
        `INSERT INTO actors (name, kind, status, is_admin) VALUES ('admin', 'person', 'active', true) RETURNING id`,
      );
      await manager.query(
        `INSERT INTO memberships (organization_id, actor_id, role, status) VALUES ($1, $2, 'admin', 'active')`,
        [org.id, actor.id],
      );
      await manager.query(
        `INSERT INTO api_tokens (actor_id, name, token_hash, token_prefix) VALUES ($1, 'first-boot admin', $2, $3)`,
        [actor.id, tokenHash, tokenPrefix],
      );
      return true;
    });
  }

  // Visible to active members of the project's organization (a removed member's machine sees nothing), within the
  // request's confinement; server admins see all in scope. A project with no organization: server admins only.
  async accessibleProjects(actor: AuthenticatedActor): Promise<ProjectAccessRow[]> {
    return this.dataSource.query(
      `SELECT p.id, p.name, p.public_item_prefix
         FROM projects p
        WHERE ${accessibleProjectWhere('p', '$1', '$2', '$3')}
        ORDER BY p.id`,
      [actor.id, actor.isAdmin, organizationScope(actor)],
    );
  }

  // The project's policy as PostgreSQL writes it (jsonb's text is canonical: the same value, the same text), if the
  // caller sees the project. null: no such project, or one the caller cannot see.
  async projectPolicy(actor: AuthenticatedActor, projectId: string): Promise<string | null> {
    const rows: { policy: string }[] = await this.dataSource.query(
      `SELECT p.policy::text AS policy
         FROM projects p
        WHERE p.id = $4 AND ${accessibleProjectWhere('p', '$1', '$2', '$3')}`,
      [actor.id, actor.isAdmin, organizationScope(actor), projectId],
    );
    return rows[0]?.policy ?? null;
  }

  // A confined credential administers nothing outside its organization. null: no such project.
  async projectAdministration(
    actor: AuthenticatedActor,
    projectId: string,
  ): Promise<{ organization: string | null; admin: boolean } | null> {
    const rows: { organization: string | null; admin: boolean }[] = await this.dataSource.query(
      `SELECT o.slug AS organization,
              ($3::integer IS NULL OR p.organization_id = $3::integer)
              AND EXISTS (SELECT 1 FROM memberships m
                           WHERE m.organization_id = p.organization_id AND m.actor_id = $2
                             AND m.role = 'admin' AND m.status = 'active') AS admin
         FROM projects p
         LEFT JOIN organizations o ON o.id = p.organization_id
        WHERE p.id = $1`,
      [projectId, actor.id, organizationScope(actor)],
    );
    return rows[0] ?? null;
  }

  // Last use recorded at most once a minute per credential: skipped here within it, conditional across replicas.
  private readonly touched = new Map<string, number>();

  touchCredential(actor: AuthenticatedActor): Promise<unknown> {
    const key = `${actor.via}:${actor.credentialId}`;
    const now = Date.now();
    if (now - (this.touched.get(key) ?? 0) < TOUCH_INTERVAL_MS) return Promise.resolve();
    if (this.touched.size >= TOUCH_CACHE_LIMIT) this.touched.clear();
    this.touched.set(key, now);
    const table = actor.via === 'api_token' ? 'api_tokens' : 'machine_credentials';
    return this.dataSource.query(
      `UPDATE ${table} SET last_used_at = now()
        WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
      [actor.credentialId],
    );
  }
}
