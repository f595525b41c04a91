import { Injectable } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';

import { FrontierEdge, TERMINAL_STATUSES } from '@app/core';

import { InjectDataSource } from '../../common/inject-data-source';
import { copyRows, escapeLiteral, textArrayLiteral } from '../../database/binary-copy';
import { DeliveryRunRow, EnvironmentFactRow } from '../../dependencies/dependency-facts.rows';
import { DEPLOYMENT_HALTS_SQL, DeploymentHaltRow } from './deployment-halts';

export interface ProjectRow {
  id: string;
  name: string;
  public_item_prefix: string;
  policy: Record<string, unknown>;
}

export interface CandidateRow {
  id: number;
  seq: number;
  title: string;
  status: string;
  priority: string;
  workflow_id: string;
  workflow_version_id: number;
  frozen: number;
  blocked: number;
  blocked_reason: string | null;
  created_at: string;
  merged_at: string | null;
}

// An edge row is also the core's activation edge, so a graph hands the row itself to computeFrontier.
export interface EdgeRow extends FrontierEdge {
  id?: number;
  g: string;
  r: string;
}

export interface BlockerRow {
  id: number;
  prefix: string;
  seq: number;
  title: string;
  status: string;
  merged_at: string | null;
  project: string;
  workflow_id: string;
  workflow_version_id: number;
}

export type RunRow = DeliveryRunRow;
export type EnvironmentRow = EnvironmentFactRow;

export interface ChangedItemRow extends CandidateRow {
  project: string;
  prefix: string;
}

export interface ChangeSet {
  watermark: string;
  items: ChangedItemRow[];
  edges: EdgeRow[];
  tombstones: TombstoneRow[];
  delivery: boolean;
  // tombstones at or after the watermark may have been pruned: the delta is incomplete, reload
  pruned: boolean;
}

export interface TombstoneRow {
  table_name: string;
  row_id: string;
}

export interface WorkflowVersionRow {
  id: number;
  workflow_id: string;
  definition: unknown;
}

export interface ItemLocationRow {
  id: number;
  ref: string;
  project: string;
  status: string;
}

const TERMINAL_LITERAL = textArrayLiteral([...TERMINAL_STATUSES]);
// Zoneless UTC ISO 8601 straight from the database: no Date objects on the hot path.
const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.MS'`;

// One shared string per repeated value keeps a large graph tens of MB smaller and lets the core compare by identity.
const VOCABULARY = new Map<string, string>();
const VOCABULARY_LIMIT = 4096;

function word(value: string): string;
function word(value: string | null): string | null;
function word(value: string | null): string | null {
  if (value === null) return null;
  const known = VOCABULARY.get(value);
  if (known !== undefined) return known;
  if (VOCABULARY.size < VOCABULARY_LIMIT) VOCABULARY.set(value, value);
  return value;
}

function shareCandidateWords<T extends CandidateRow>(rows: T[]): T[] {
  for (const row of rows) {
    row.status = word(row.status);
    row.priority = word(row.priority);
    row.workflow_id = word(row.workflow_id);
  }
  return rows;
}

function shareEdgeWords(rows: EdgeRow[]): EdgeRow[] {
  for (const row of rows) {
    row.satisfaction = word(row.satisfaction);
    row.g = word(row.g);
  }
  return rows;
}

// A column every row would repeat is read as NULL and filled in here: one field less to decode per row, same shape.
function edgeColumns(gates: readonly string[], withRationale: boolean): string {
  return `${gates.length === 1 ? 'NULL' : 'd.gate_point'} AS g, ${withRationale ? 'd.rationale' : 'NULL'} AS r`;
}

function completeEdges(rows: EdgeRow[], gates: readonly string[], withRationale: boolean): EdgeRow[] {
  const gate = gates.length === 1 ? word(gates[0]) : null;
  for (const row of rows) {
    row.satisfaction = word(row.satisfaction);
    row.g = gate ?? word(row.g);
    if (!withRationale) row.r = '';
  }
  return rows;
}

function shareBlockerWords(rows: BlockerRow[]): BlockerRow[] {
  for (const row of rows) {
    row.status = word(row.status);
    row.prefix = word(row.prefix);
    row.project = word(row.project);
    row.workflow_id = word(row.workflow_id);
  }
  return rows;
}

@Injectable()
export class FrontierRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async findProject(id: string, manager: EntityManager = this.dataSource.manager): Promise<ProjectRow | null> {
    const rows: ProjectRow[] = await manager.query(
      'SELECT id, name, public_item_prefix, policy FROM projects WHERE id = $1',
      [id],
    );
    return rows[0] ?? null;
  }

  // The refs of the project's items that a live session of the actor holds a claim on (a window's `@me`).
  async claimedRefsOf(project: string, actorId: number): Promise<string[]> {
    const rows: { ref: string }[] = await this.dataSource.query(
      `SELECT p.public_item_prefix || '-' || i.project_sequence AS ref
         FROM item_claims c
         JOIN items i ON i.id = c.item_id
         JOIN projects p ON p.id = i.project
         JOIN executor_sessions s ON s.id = c.session_id
        WHERE c.project = $1 AND c.expires_at > now() AND s.actor_id = $2`,
      [project, actorId],
    );
    return rows.map((r) => r.ref);
  }

  async projectsOutsideOrganizationOf(project: string, others: readonly string[]): Promise<string[]> {
    const rows: { id: string }[] = await this.dataSource.query(
      `SELECT o.id FROM projects o, projects p
        WHERE p.id = $1 AND o.id = ANY ($2::text[]) AND o.organization_id IS DISTINCT FROM p.organization_id`,
      [project, others],
    );
    return rows.map((r) => r.id);
  }

  findProjects(ids: readonly string[]): Promise<ProjectRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.dataSource.query(
      'SELECT id, name, public_item_prefix, policy FROM projects WHERE id = ANY ($1::text[]) ORDER BY id',
      [ids],
    );
  }

  // The three whole-project reads are binary COPYs (binary-copy.ts): they are most of a cold load.
  findCandidates(project: string): Promise<CandidateRow[]> {
    return copyRows(
      this.dataSource,
      `SELECT id, project_sequence, title, status, priority, workflow_id, workflow_version_id, frozen, blocked,
              blocked_reason, to_char(created_at AT TIME ZONE 'UTC', ${ISO}), to_char(merged_at AT TIME ZONE 'UTC', ${ISO})
         FROM items
        WHERE project = ${escapeLiteral(project)} AND status <> ALL (${TERMINAL_LITERAL})`,
      12,
      (row): CandidateRow => ({
        id: row.int4(0),
        seq: row.int4(1),
        title: row.text(2),
        status: word(row.text(3)),
        priority: word(row.text(4)),
        workflow_id: word(row.text(5)),
        workflow_version_id: row.int4(6),
        frozen: row.int4(7),
        blocked: row.int4(8),
        blocked_reason: row.textOrNull(9),
        created_at: row.text(10),
        merged_at: row.textOrNull(11),
      }),
    );
  }

  findEdges(project: string, gates: readonly string[], withRationale: boolean): Promise<EdgeRow[]> {
    const gate = gates.length === 1 ? word(gates[0]) : null;
    return copyRows(
      this.dataSource,
      `SELECT d.id, d.blocking_item_id, d.dependent_item_id, d.satisfaction, ${gate === null ? 'd.gate_point' : 'NULL'},
              ${withRationale ? 'd.rationale' : 'NULL'}
         FROM item_dependencies d
         JOIN items i ON i.id = d.dependent_item_id
        WHERE i.project = ${escapeLiteral(project)} AND i.status <> ALL (${TERMINAL_LITERAL})
          AND d.gate_point = ANY (${textArrayLiteral(gates)})`,
      6,
      (row): EdgeRow => ({
        id: row.int4(0),
        blocker: row.int4(1),
        dependent: row.int4(2),
        satisfaction: word(row.text(3)),
        g: gate ?? word(row.text(4)),
        r: withRationale ? row.text(5) : '',
      }),
    );
  }

  findOutsideBlockers(project: string, gates: readonly string[]): Promise<BlockerRow[]> {
    const projectLiteral = escapeLiteral(project);
    return copyRows(
      this.dataSource,
      `SELECT b.id, p.public_item_prefix, b.project_sequence, b.title, b.status,
              to_char(b.merged_at AT TIME ZONE 'UTC', ${ISO}), b.project, b.workflow_id, b.workflow_version_id
         FROM items b
         JOIN projects p ON p.id = b.project
        WHERE b.id IN (SELECT d.blocking_item_id
                         FROM item_dependencies d
                         JOIN items i ON i.id = d.dependent_item_id
                        WHERE i.project = ${projectLiteral} AND i.status <> ALL (${TERMINAL_LITERAL})
                          AND d.gate_point = ANY (${textArrayLiteral(gates)}))
          AND NOT (b.project = ${projectLiteral} AND b.status <> ALL (${TERMINAL_LITERAL}))`,
      9,
      (row): BlockerRow => ({
        id: row.int4(0),
        prefix: word(row.text(1)),
        seq: row.int4(2),
        title: row.text(3),
        status: word(row.text(4)),
        merged_at: row.textOrNull(5),
        project: word(row.text(6)),
        workflow_id: word(row.text(7)),
        workflow_version_id: row.int4(8),
      }),
    );
  }

  // Every transaction below the oldest still running has ended, so its writes are visible to any later read. Read
  // before the data it guards (see the ChangeTracking migration).
  async watermark(): Promise<string> {
    const rows: { w: string }[] = await this.dataSource.query(
      'SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS w',
    );
    return rows[0].w;
  }

  // One statement: one snapshot, one round trip. Edges whatever their gate (a gate change moves an edge in or out).
  async findChangesSince(since: string, withRationale: boolean): Promise<ChangeSet> {
    const rows: ChangeSet[] = await this.dataSource.query(
      `SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS watermark,
              COALESCE((SELECT json_agg(c) FROM (
                SELECT i.id, i.project_sequence AS seq, i.title, i.status, i.priority, i.workflow_id,
                       i.workflow_version_id, i.frozen, i.blocked, i.blocked_reason,
                       to_char(i.created_at AT TIME ZONE 'UTC', ${ISO}) AS created_at,
                       to_char(i.merged_at AT TIME ZONE 'UTC', ${ISO}) AS merged_at, i.project,
                       p.public_item_prefix AS prefix
                  FROM items i JOIN projects p ON p.id = i.project
                 WHERE i.change_xid >= $1::xid8) c), '[]') AS items,
              COALESCE((SELECT json_agg(c) FROM (
                SELECT d.id, d.blocking_item_id AS blocker, d.dependent_item_id AS dependent, d.satisfaction, d.gate_point AS g,
                       ${withRationale ? 'd.rationale' : "''"} AS r
                  FROM item_dependencies d
                 WHERE d.change_xid >= $1::xid8) c), '[]') AS edges,
              COALESCE((SELECT json_agg(c) FROM (
                SELECT table_name, row_id FROM change_tombstones WHERE change_xid >= $1::xid8) c), '[]') AS tombstones,
              EXISTS (SELECT 1 FROM deployment_runs WHERE change_xid >= $1::xid8)
                OR EXISTS (SELECT 1 FROM environments WHERE change_xid >= $1::xid8)
                OR EXISTS (SELECT 1 FROM deployment_flows WHERE change_xid >= $1::xid8)
                OR EXISTS (SELECT 1 FROM deployment_approvals WHERE change_xid >= $1::xid8)
                OR EXISTS (SELECT 1 FROM change_tombstones WHERE change_xid >= $1::xid8
                              AND table_name IN ('deployment_runs', 'environments', 'deployment_flows',
                                                 'deployment_approvals')) AS delivery,
              EXISTS (SELECT 1 FROM change_horizon WHERE pruned_through >= $1::xid8) AS pruned`,
      [since],
    );
    const changes = rows[0];
    shareCandidateWords(changes.items);
    shareBlockerWords(changes.items);
    shareEdgeWords(changes.edges);
    return changes;
  }

  async pruneTombstones(retentionSeconds: number): Promise<number> {
    const rows: { deleted: string }[] = await this.dataSource.query(
      `WITH gone AS (
         DELETE FROM change_tombstones WHERE created_at < clock_timestamp() - make_interval(secs => $1)
         RETURNING change_xid
       ), raised AS (
         UPDATE change_horizon SET pruned_through = GREATEST(pruned_through, (SELECT max(change_xid) FROM gone))
          WHERE id = 1 AND EXISTS (SELECT 1 FROM gone)
       )
       SELECT count(*)::text AS deleted FROM gone`,
      [retentionSeconds],
    );
    return Number(rows[0].deleted);
  }

  async findEdgesOfDependents(
    ids: readonly number[],
    gates: readonly string[],
    withRationale: boolean,
  ): Promise<EdgeRow[]> {
    if (ids.length === 0) return [];
    return completeEdges(
      await this.dataSource.query(
        `SELECT d.id, d.blocking_item_id AS blocker, d.dependent_item_id AS dependent, d.satisfaction,
              ${edgeColumns(gates, withRationale)}
         FROM item_dependencies d
        WHERE d.dependent_item_id = ANY ($1::int[]) AND d.gate_point = ANY ($2::text[])`,
        [ids, gates],
      ),
      gates,
      withRationale,
    );
  }

  async findItemsById(ids: readonly number[]): Promise<BlockerRow[]> {
    if (ids.length === 0) return [];
    return shareBlockerWords(
      await this.dataSource.query(
        `SELECT b.id, p.public_item_prefix AS prefix, b.project_sequence AS seq, b.title, b.status,
              to_char(b.merged_at AT TIME ZONE 'UTC', ${ISO}) AS merged_at, b.project, b.workflow_id,
              b.workflow_version_id
         FROM items b JOIN projects p ON p.id = b.project
        WHERE b.id = ANY ($1::int[])`,
        [ids],
      ),
    );
  }

  findWorkflowVersions(ids: readonly number[]): Promise<WorkflowVersionRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.dataSource.query(
      'SELECT id, workflow_id, definition FROM workflow_versions WHERE id = ANY ($1::int[])',
      [ids],
    );
  }

  findDeploymentHalts(project: string): Promise<DeploymentHaltRow[]> {
    return this.dataSource.query(DEPLOYMENT_HALTS_SQL, [project]);
  }

  async locateItem(id: number): Promise<ItemLocationRow | null> {
    const rows: ItemLocationRow[] = await this.dataSource.query(
      `SELECT i.id, p.public_item_prefix || '-' || i.project_sequence AS ref, i.project, i.status
         FROM items i JOIN projects p ON p.id = i.project WHERE i.id = $1`,
      [id],
    );
    return rows[0] ?? null;
  }
}
