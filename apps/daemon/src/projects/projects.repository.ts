import { Injectable } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';

import { AuthenticatedActor, organizationScope } from '../auth/actor';
import { InjectDataSource } from '../common/inject-data-source';
import { isoUtc } from '../database/backlog-sql';
import { ProjectRow } from './dto/projects.dto';

const PROJECT_SELECT = `
  SELECT p.id, p.name, p.public_item_prefix, p.next_sequence, p.policy, o.slug AS organization,
         ${isoUtc('p.created_at')} AS created_at, ${isoUtc('p.updated_at')} AS updated_at
    FROM projects p LEFT JOIN organizations o ON o.id = p.organization_id`;

export interface NewProject {
  id: string;
  name: string;
  prefix: string;
  policy: Record<string, unknown>;
  organizationId: number;
  nextSequence?: number;
}

@Injectable()
export class ProjectsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  // The request's confinement, else the caller's first active membership; the caller must be an active member. A
  // server admin with none gets the server's organization (first-boot `default`, else the oldest).
  async organizationFor(actor: AuthenticatedActor, manager = this.dataSource.manager): Promise<number | null> {
    const rows: { organization_id: number }[] = await manager.query(
      `SELECT organization_id FROM (
         SELECT m.organization_id, 0 AS rank, m.created_at, m.organization_id AS tie FROM memberships m
          WHERE m.actor_id = $1 AND m.status = 'active' AND ($2::integer IS NULL OR m.organization_id = $2)
         UNION ALL
         SELECT o.id, 1, o.created_at, CASE WHEN o.slug = 'default' THEN 0 ELSE o.id END FROM organizations o
          WHERE $3::boolean AND ($2::integer IS NULL OR o.id = $2)
       ) c ORDER BY rank, tie = 0 DESC, created_at, tie LIMIT 1`,
      [actor.id, organizationScope(actor), actor.isAdmin],
    );
    return rows[0]?.organization_id ?? null;
  }

  // ON CONFLICT DO NOTHING: a duplicate id or prefix answers with no row and the caller says which.
  async insert(project: NewProject, manager = this.dataSource.manager): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      `INSERT INTO projects (id, name, public_item_prefix, policy, organization_id, next_sequence)
       VALUES ($1, $2, $3, $4::jsonb, $5, $6)
       ON CONFLICT DO NOTHING RETURNING id`,
      [
        project.id,
        project.name,
        project.prefix,
        JSON.stringify(project.policy),
        project.organizationId,
        project.nextSequence ?? 1,
      ],
    );
    return rows.length === 1;
  }

  async conflictOf(id: string, prefix: string, manager = this.dataSource.manager): Promise<'id' | 'prefix' | null> {
    const rows: { id: string }[] = await manager.query(
      `SELECT id FROM projects WHERE id = $1 OR public_item_prefix = $2`,
      [id, prefix],
    );
    if (rows.some((r) => r.id === id)) return 'id';
    return rows.length > 0 ? 'prefix' : null;
  }

  async find(id: string, manager = this.dataSource.manager): Promise<ProjectRow | null> {
    const rows: ProjectRow[] = await manager.query(`${PROJECT_SELECT} WHERE p.id = $1`, [id]);
    return rows[0] ?? null;
  }

  async findForUpdate(id: string, manager: EntityManager): Promise<ProjectRow | null> {
    const rows: ProjectRow[] = await manager.query(`${PROJECT_SELECT} WHERE p.id = $1 FOR UPDATE OF p`, [id]);
    return rows[0] ?? null;
  }

  list(ids: readonly string[] | null): Promise<ProjectRow[]> {
    return this.dataSource.query(`${PROJECT_SELECT} WHERE ($1::text[] IS NULL OR p.id = ANY($1)) ORDER BY p.id`, [ids]);
  }

  async update(id: string, name: string | undefined, policy: Record<string, unknown>, manager: EntityManager) {
    await manager.query(
      `UPDATE projects SET name = COALESCE($2, name), policy = $3::jsonb, updated_at = now() WHERE id = $1`,
      [id, name ?? null, JSON.stringify(policy)],
    );
  }
}
