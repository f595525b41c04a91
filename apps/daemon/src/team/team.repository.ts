import { Injectable } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';

import type { ActorStatus, MembershipRole } from '@app/contracts';

import { InjectDataSource } from '../common/inject-data-source';

export interface ActorRow {
  id: number;
  name: string;
  email: string | null;
  kind: 'person' | 'agent' | 'system';
  status: ActorStatus;
  is_admin: boolean;
  oidc_subject: string | null;
  created_at: Date;
  memberships: { org: string; role: MembershipRole; status: ActorStatus }[];
}

export interface OrganizationRow {
  id: number;
  slug: string;
  name: string;
}

export interface OrganizationSummaryRow extends OrganizationRow {
  created_at: Date;
  member_count: number;
  admin_count: number;
  // the caller's role in it (null: not an active member)
  role: MembershipRole | null;
}

export interface MembershipRow {
  org: string;
  actor: string;
  role: MembershipRole;
  status: ActorStatus;
  created_at: Date;
}

export interface TokenRow {
  id: number;
  name: string;
  actor: string;
  actor_id: number;
  token_prefix: string;
  created_at: Date;
  last_used_at: Date | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  parent_token_id: number | null;
  parent_machine_id: string | null;
  scope: string;
}

export interface ParentCredential {
  via: 'api_token' | 'machine_credential';
  id: number;
}

const ACTOR_COLUMNS = `a.id, a.name, a.email, a.kind, a.status, a.is_admin, a.oidc_subject, a.created_at,
  COALESCE((SELECT json_agg(json_build_object('org', o.slug, 'role', m.role, 'status', m.status) ORDER BY o.slug)
              FROM memberships m JOIN organizations o ON o.id = m.organization_id
             WHERE m.actor_id = a.id), '[]'::json) AS memberships`;

const TOKEN_COLUMNS = `t.id, t.name, a.name AS actor, t.actor_id, t.token_prefix, t.created_at, t.last_used_at,
  t.expires_at, t.revoked_at, t.parent_token_id, t.scope,
  (SELECT mc.machine_id FROM machine_credentials mc WHERE mc.id = t.parent_machine_credential_id) AS parent_machine_id`;

export interface TeamViewer {
  id: number;
  isAdmin: boolean;
  scope: number | null;
}

const viewerParams = (viewer: TeamViewer) => [viewer.id, viewer.isAdmin, viewer.scope];

// The walls between organizations: everyone sees themselves, an unconfined server admin everyone, an organization
// admin the non-admin actors all of whose memberships are in organizations they administer (within the request's
// confinement). Anyone else is outside the view, exactly like a name that does not exist.
const IN_VIEW = `(a.id = $1 OR ($2::boolean AND $3::integer IS NULL) OR (
  NOT a.is_admin
  AND EXISTS (SELECT 1 FROM memberships vm WHERE vm.actor_id = a.id)
  AND NOT EXISTS (
    SELECT 1 FROM memberships vm
     WHERE vm.actor_id = a.id
       AND NOT (($3::integer IS NULL OR vm.organization_id = $3::integer)
                AND ($2::boolean
                     OR EXISTS (SELECT 1 FROM memberships cm
                                 WHERE cm.actor_id = $1 AND cm.organization_id = vm.organization_id
                                   AND cm.role = 'admin' AND cm.status = 'active'))))))`;

@Injectable()
export class TeamRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  async adminOrganizations(actorId: number): Promise<OrganizationRow[]> {
    return this.dataSource.query(
      `SELECT o.id, o.slug, o.name FROM memberships m JOIN organizations o ON o.id = m.organization_id
        WHERE m.actor_id = $1 AND m.role = 'admin' AND m.status = 'active' ORDER BY o.id`,
      [actorId],
    );
  }

  async organizations(): Promise<OrganizationRow[]> {
    return this.dataSource.query('SELECT id, slug, name FROM organizations ORDER BY id');
  }

  async organizationById(id: number): Promise<OrganizationRow | null> {
    const rows: OrganizationRow[] = await this.dataSource.query(
      'SELECT id, slug, name FROM organizations WHERE id = $1',
      [id],
    );
    return rows[0] ?? null;
  }

  async organizationBySlug(slug: string): Promise<OrganizationRow | null> {
    const rows: OrganizationRow[] = await this.dataSource.query(
      'SELECT id, slug, name FROM organizations WHERE slug = $1',
      [slug],
    );
    return rows[0] ?? null;
  }

  async organizationSummaries(
    callerId: number,
    all: boolean,
    slug: string | null,
    scope: number | null,
  ): Promise<OrganizationSummaryRow[]> {
    return this.dataSource.query(
      `SELECT o.id, o.slug, o.name, o.created_at, mine.role,
              (SELECT count(*)::int FROM memberships m WHERE m.organization_id = o.id) AS member_count,
              (SELECT count(*)::int FROM memberships m
                WHERE m.organization_id = o.id AND m.role = 'admin' AND m.status = 'active') AS admin_count
         FROM organizations o
         LEFT JOIN memberships mine ON mine.organization_id = o.id AND mine.actor_id = $1 AND mine.status = 'active'
        WHERE ($2::boolean OR mine.actor_id IS NOT NULL) AND ($3::text IS NULL OR o.slug = $3)
          AND ($4::integer IS NULL OR o.id = $4)
        ORDER BY o.slug`,
      [callerId, all, slug, scope],
    );
  }

  // null: the slug is taken.
  async insertOrganization(slug: string, name: string): Promise<number | null> {
    const rows: { id: number }[] = await this.dataSource.query(
      'INSERT INTO organizations (slug, name) VALUES ($1, $2) ON CONFLICT (slug) DO NOTHING RETURNING id',
      [slug, name],
    );
    return rows[0]?.id ?? null;
  }

  async actorById(id: number): Promise<ActorRow | null> {
    const rows: ActorRow[] = await this.dataSource.query(`SELECT ${ACTOR_COLUMNS} FROM actors a WHERE a.id = $1`, [id]);
    return rows[0] ?? null;
  }

  async listActors(viewer: TeamViewer): Promise<ActorRow[]> {
    return this.dataSource.query(
      `SELECT ${ACTOR_COLUMNS} FROM actors a WHERE ${IN_VIEW} ORDER BY a.name`,
      viewerParams(viewer),
    );
  }

  // null alike whether the name is outside the caller's view or does not exist.
  async visibleActorByName(viewer: TeamViewer, name: string): Promise<ActorRow | null> {
    const rows: ActorRow[] = await this.dataSource.query(
      `SELECT ${ACTOR_COLUMNS} FROM actors a WHERE a.name = $4 AND ${IN_VIEW}`,
      [...viewerParams(viewer), name],
    );
    return rows[0] ?? null;
  }

  async isInView(viewer: TeamViewer, actorId: number): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(`SELECT 1 FROM actors a WHERE a.id = $4 AND ${IN_VIEW}`, [
      ...viewerParams(viewer),
      actorId,
    ]);
    return rows.length > 0;
  }

  async memberByName(organizationId: number, name: string): Promise<ActorRow | null> {
    const rows: ActorRow[] = await this.dataSource.query(
      `SELECT ${ACTOR_COLUMNS} FROM actors a
        WHERE a.name = $2 AND EXISTS (SELECT 1 FROM memberships m WHERE m.actor_id = a.id AND m.organization_id = $1)`,
      [organizationId, name],
    );
    return rows[0] ?? null;
  }

  async insertActor(
    manager: EntityManager,
    actor: { name: string; email: string | null; kind: string; isAdmin: boolean },
  ): Promise<number | 'name_taken' | 'email_taken'> {
    const rows: { id: number }[] = await manager.query(
      `INSERT INTO actors (name, email, kind, status, is_admin) VALUES ($1, $2, $3, 'active', $4)
       ON CONFLICT DO NOTHING RETURNING id`,
      [actor.name, actor.email, actor.kind, actor.isAdmin],
    );
    if (rows[0]) return rows[0].id;
    const byName: unknown[] = await manager.query('SELECT 1 FROM actors WHERE name = $1', [actor.name]);
    return byName.length > 0 ? 'name_taken' : 'email_taken';
  }

  async upsertMembership(
    manager: EntityManager,
    organizationId: number,
    actorId: number,
    role: MembershipRole,
  ): Promise<void> {
    await manager.query(
      `INSERT INTO memberships (organization_id, actor_id, role, status) VALUES ($1, $2, $3, 'active')
       ON CONFLICT (organization_id, actor_id) DO UPDATE SET role = EXCLUDED.role, status = 'active'`,
      [organizationId, actorId, role],
    );
  }

  async setActorStatus(actorId: number, status: ActorStatus): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await manager.query('UPDATE actors SET status = $2 WHERE id = $1', [actorId, status]);
      // Browser sessions go at once too (they are also checked against the status on every request).
      if (status === 'disabled') await manager.query('DELETE FROM approval_sessions WHERE actor_id = $1', [actorId]);
    });
  }

  async listMembers(organizationId: number): Promise<MembershipRow[]> {
    return this.dataSource.query(
      `SELECT o.slug AS org, a.name AS actor, m.role, m.status, m.created_at
         FROM memberships m JOIN organizations o ON o.id = m.organization_id JOIN actors a ON a.id = m.actor_id
        WHERE m.organization_id = $1 ORDER BY a.name`,
      [organizationId],
    );
  }

  async membership(organizationId: number, actorId: number): Promise<MembershipRow | null> {
    const rows: MembershipRow[] = await this.dataSource.query(
      `SELECT o.slug AS org, a.name AS actor, m.role, m.status, m.created_at
         FROM memberships m JOIN organizations o ON o.id = m.organization_id JOIN actors a ON a.id = m.actor_id
        WHERE m.organization_id = $1 AND m.actor_id = $2`,
      [organizationId, actorId],
    );
    return rows[0] ?? null;
  }

  // Locks the organization's rows so two concurrent removals cannot both pass the last-admin check.
  async removeMembership(organizationId: number, actorId: number): Promise<'removed' | 'absent' | 'last_admin'> {
    return this.dataSource.transaction(async (manager) => {
      const rows: { actor_id: number; role: string; status: string }[] = await manager.query(
        'SELECT actor_id, role, status FROM memberships WHERE organization_id = $1 FOR UPDATE',
        [organizationId],
      );
      const target = rows.find((r) => r.actor_id === actorId);
      if (!target) return 'absent';
      const admins = rows.filter((r) => r.role === 'admin' && r.status === 'active');
      if (target.role === 'admin' && target.status === 'active' && admins.length <= 1) return 'last_admin';
      await manager.query('DELETE FROM memberships WHERE organization_id = $1 AND actor_id = $2', [
        organizationId,
        actorId,
      ]);
      return 'removed';
    });
  }

  // A child of the caller's credential: confined to the parent's organization (or the hosted path's), expiring no
  // later (LEAST ignores NULL). The parent is locked FOR SHARE and must be live, so a concurrent revocation either
  // waits for this insert (its cascade then reaches the token) or committed first. null: the parent is not live.
  async insertToken(
    actorId: number,
    name: string,
    hash: Buffer,
    prefix: string,
    expiresInSeconds: number | null,
    parent: ParentCredential,
    scope: number | null,
    credentialScope: 'full' | 'metrics' = 'full',
  ): Promise<TokenRow | null> {
    const id = await this.dataSource.transaction(async (manager) => {
      const live: { expires_at: Date | null; organization_id: number | null }[] =
        parent.via === 'api_token'
          ? await manager.query(
              `SELECT expires_at, organization_id FROM api_tokens
                WHERE id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now()) FOR SHARE`,
              [parent.id],
            )
          : await manager.query(
              `SELECT expires_at, organization_id FROM machine_credentials
                WHERE id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now()) FOR SHARE`,
              [parent.id],
            );
      if (live.length === 0) return null;
      const rows: { id: number }[] = await manager.query(
        `INSERT INTO api_tokens (actor_id, name, token_hash, token_prefix, expires_at, parent_token_id,
                                 parent_machine_credential_id, organization_id, scope)
         VALUES ($1, $2, $3, $4,
                 LEAST(CASE WHEN $5::integer IS NULL THEN NULL ELSE now() + make_interval(secs => $5) END,
                       $6::timestamptz),
                 $7, $8, $9, $10)
         RETURNING id`,
        [
          actorId,
          name,
          hash,
          prefix,
          expiresInSeconds,
          live[0].expires_at,
          parent.via === 'api_token' ? parent.id : null,
          parent.via === 'machine_credential' ? parent.id : null,
          live[0].organization_id ?? scope,
          credentialScope,
        ],
      );
      return rows[0].id;
    });
    return id === null ? null : this.tokenById(id);
  }

  async tokenById(id: number): Promise<TokenRow | null> {
    const rows: TokenRow[] = await this.dataSource.query(
      `SELECT ${TOKEN_COLUMNS} FROM api_tokens t JOIN actors a ON a.id = t.actor_id WHERE t.id = $1`,
      [id],
    );
    return rows[0] ?? null;
  }

  async listTokens(viewer: TeamViewer, actorId: number | null, includeRevoked: boolean): Promise<TokenRow[]> {
    return this.dataSource.query(
      `SELECT ${TOKEN_COLUMNS} FROM api_tokens t JOIN actors a ON a.id = t.actor_id
        WHERE ($4::integer IS NULL OR t.actor_id = $4) AND ${IN_VIEW}
          AND ($5::boolean OR (t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > now())))
        ORDER BY a.name, t.id`,
      [...viewerParams(viewer), actorId, includeRevoked],
    );
  }

  // Minted tokens are revoked with it, transitively, by the trigger tr_api_tokens_revoke_minted.
  async revokeToken(id: number): Promise<boolean> {
    // TypeORM answers an UPDATE with [rows, affected].
    const [, affected]: [unknown[], number] = await this.dataSource.query(
      'UPDATE api_tokens SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL',
      [id],
    );
    return affected > 0;
  }
}
