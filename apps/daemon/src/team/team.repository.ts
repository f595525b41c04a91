import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';

import type { ActorStatus, MembershipRole } from '@app/contracts';

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
}

const ACTOR_COLUMNS = `a.id, a.name, a.email, a.kind, a.status, a.is_admin, a.oidc_subject, a.created_at,
  COALESCE((SELECT json_agg(json_build_object('org', o.slug, 'role', m.role, 'status', m.status) ORDER BY o.slug)
              FROM memberships m JOIN organizations o ON o.id = m.organization_id
             WHERE m.actor_id = a.id), '[]'::json) AS memberships`;

const TOKEN_COLUMNS = `t.id, t.name, a.name AS actor, t.actor_id, t.token_prefix, t.created_at, t.last_used_at,
  t.expires_at, t.revoked_at`;

@Injectable()
export class TeamRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  // Organizations the actor is an active admin of.
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

  async organizationBySlug(slug: string): Promise<OrganizationRow | null> {
    const rows: OrganizationRow[] = await this.dataSource.query(
      'SELECT id, slug, name FROM organizations WHERE slug = $1',
      [slug],
    );
    return rows[0] ?? null;
  }

  async actorByName(name: string, manager: EntityManager = this.dataSource.manager): Promise<ActorRow | null> {
    const rows: ActorRow[] = await manager.query(`SELECT ${ACTOR_COLUMNS} FROM actors a WHERE a.name = $1`, [name]);
    return rows[0] ?? null;
  }

  async actorById(id: number): Promise<ActorRow | null> {
    const rows: ActorRow[] = await this.dataSource.query(`SELECT ${ACTOR_COLUMNS} FROM actors a WHERE a.id = $1`, [id]);
    return rows[0] ?? null;
  }

  // Every actor (organizationIds null) or the actors with a membership in one of the organizations.
  async listActors(organizationIds: number[] | null, selfId: number): Promise<ActorRow[]> {
    return this.dataSource.query(
      `SELECT ${ACTOR_COLUMNS} FROM actors a
        WHERE $1::integer[] IS NULL OR a.id = $2
           OR EXISTS (SELECT 1 FROM memberships m WHERE m.actor_id = a.id AND m.organization_id = ANY($1::integer[]))
        ORDER BY a.name`,
      [organizationIds, selfId],
    );
  }

  // Whether any of the target's memberships is in one of these organizations.
  async isMemberOfAny(actorId: number, organizationIds: number[]): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      'SELECT 1 FROM memberships WHERE actor_id = $1 AND organization_id = ANY($2::integer[]) LIMIT 1',
      [actorId, organizationIds],
    );
    return rows.length > 0;
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

  // Removes a membership unless it is the organization's last active admin; locks the organization's rows so two
  // concurrent removals cannot both pass the check.
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

  async insertToken(
    actorId: number,
    name: string,
    hash: Buffer,
    prefix: string,
    expiresInSeconds: number | null,
  ): Promise<TokenRow> {
    const rows: { id: number }[] = await this.dataSource.query(
      `INSERT INTO api_tokens (actor_id, name, token_hash, token_prefix, expires_at)
       VALUES ($1, $2, $3, $4, CASE WHEN $5::integer IS NULL THEN NULL ELSE now() + make_interval(secs => $5) END)
       RETURNING id`,
      [actorId, name, hash, prefix, expiresInSeconds],
    );
    return (await this.tokenById(rows[0].id))!;
  }

  async tokenById(id: number): Promise<TokenRow | null> {
    const rows: TokenRow[] = await this.dataSource.query(
      `SELECT ${TOKEN_COLUMNS} FROM api_tokens t JOIN actors a ON a.id = t.actor_id WHERE t.id = $1`,
      [id],
    );
    return rows[0] ?? null;
  }

  // actorIds null: every actor's tokens.
  async listTokens(actorIds: number[] | null, includeRevoked: boolean): Promise<TokenRow[]> {
    return this.dataSource.query(
      `SELECT ${TOKEN_COLUMNS} FROM api_tokens t JOIN actors a ON a.id = t.actor_id
        WHERE ($1::integer[] IS NULL OR t.actor_id = ANY($1::integer[]))
          AND ($2::boolean OR (t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > now())))
        ORDER BY a.name, t.id`,
      [actorIds, includeRevoked],
    );
  }

  async actorIdsInOrganizations(organizationIds: number[]): Promise<number[]> {
    const rows: { actor_id: number }[] = await this.dataSource.query(
      'SELECT DISTINCT actor_id FROM memberships WHERE organization_id = ANY($1::integer[])',
      [organizationIds],
    );
    return rows.map((r) => r.actor_id);
  }

  async revokeToken(id: number): Promise<boolean> {
    // TypeORM answers an UPDATE with [rows, affected].
    const [, affected]: [unknown[], number] = await this.dataSource.query(
      'UPDATE api_tokens SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL',
      [id],
    );
    return affected > 0;
  }
}
