import { Injectable } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';

import { WorkflowDefinition } from '@app/contracts/backlog';

import { InjectDataSource } from '../common/inject-data-source';
import { isoUtc } from '../database/backlog-sql';
import { WorkflowSummaryRow, WorkflowVersionRow } from './dto/workflows.dto';

// The checksum is the SHA-256 of PostgreSQL's canonical jsonb text: key order and spacing never matter.
export const CHECKSUM_SQL = (param: string) => `encode(sha256(convert_to(${param}::jsonb::text, 'UTF8')), 'hex')`;

const VERSION_SELECT = `
  SELECT v.workflow_id, v.version, v.id, v.checksum, (w.current_version_id = v.id) AS current, v.created_by,
         ${isoUtc('v.created_at')} AS created_at, v.definition
    FROM workflow_versions v JOIN workflows w ON w.id = v.workflow_id`;

@Injectable()
export class WorkflowsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  list(): Promise<WorkflowSummaryRow[]> {
    return this.dataSource.query(
      `SELECT w.id, w.name, cv.version AS current_version, count(v.id) AS versions, ${isoUtc('w.created_at')} AS created_at
         FROM workflows w
         LEFT JOIN workflow_versions cv ON cv.id = w.current_version_id
         LEFT JOIN workflow_versions v ON v.workflow_id = w.id
        GROUP BY w.id, cv.version ORDER BY w.id`,
    );
  }

  async findCurrent(workflowId: string, manager = this.dataSource.manager): Promise<WorkflowVersionRow | null> {
    const rows: WorkflowVersionRow[] = await manager.query(
      `${VERSION_SELECT} WHERE w.id = $1 AND v.id = w.current_version_id`,
      [workflowId],
    );
    return rows[0] ?? null;
  }

  async findVersion(workflowId: string, version: number, manager = this.dataSource.manager) {
    const rows: WorkflowVersionRow[] = await manager.query(
      `${VERSION_SELECT} WHERE v.workflow_id = $1 AND v.version = $2`,
      [workflowId, version],
    );
    return rows[0] ?? null;
  }

  async findVersionById(id: number, manager = this.dataSource.manager): Promise<WorkflowVersionRow | null> {
    const rows: WorkflowVersionRow[] = await manager.query(`${VERSION_SELECT} WHERE v.id = $1`, [id]);
    return rows[0] ?? null;
  }

  findVersionsByIds(ids: readonly number[], manager = this.dataSource.manager): Promise<WorkflowVersionRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return manager.query(`${VERSION_SELECT} WHERE v.id = ANY($1::int[])`, [ids]);
  }

  async exists(workflowId: string, manager = this.dataSource.manager): Promise<boolean> {
    const rows: unknown[] = await manager.query(`SELECT 1 FROM workflows WHERE id = $1`, [workflowId]);
    return rows.length > 0;
  }

  async lockWorkflow(workflowId: string, name: string, manager: EntityManager): Promise<void> {
    await manager.query(`INSERT INTO workflows (id, name) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING`, [
      workflowId,
      name,
    ]);
    await manager.query(`SELECT id FROM workflows WHERE id = $1 FOR UPDATE`, [workflowId]);
  }

  async findByChecksum(workflowId: string, definition: WorkflowDefinition, manager: EntityManager) {
    const rows: WorkflowVersionRow[] = await manager.query(
      `${VERSION_SELECT} WHERE v.workflow_id = $1 AND v.checksum = ${CHECKSUM_SQL('$2')} ORDER BY v.version LIMIT 1`,
      [workflowId, JSON.stringify(definition)],
    );
    return rows[0] ?? null;
  }

  async insertVersion(definition: WorkflowDefinition, createdBy: string, manager: EntityManager): Promise<number> {
    const rows: { id: number }[] = await manager.query(
      `INSERT INTO workflow_versions (workflow_id, version, definition, checksum, created_by)
       SELECT $1, COALESCE(max(version), 0) + 1, $2::jsonb, ${CHECKSUM_SQL('$2')}, $3
         FROM workflow_versions WHERE workflow_id = $1
       RETURNING id`,
      [definition.id, JSON.stringify(definition), createdBy],
    );
    return rows[0].id;
  }

  async makeCurrent(workflowId: string, versionId: number, name: string, manager: EntityManager): Promise<void> {
    await manager.query(`UPDATE workflows SET current_version_id = $2, name = $3 WHERE id = $1`, [
      workflowId,
      versionId,
      name,
    ]);
  }

  async setCurrentIfUnset(workflowId: string, versionId: number, manager: EntityManager): Promise<void> {
    await manager.query(`UPDATE workflows SET current_version_id = $2 WHERE id = $1 AND current_version_id IS NULL`, [
      workflowId,
      versionId,
    ]);
  }
}
