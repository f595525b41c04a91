import { Injectable } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';

import { DependencyEdge, DependencyPair } from '@app/core';

import { InjectDataSource } from '../common/inject-data-source';
import { affected, isoUtc } from '../database/backlog-sql';
import { namedWriter, writerSetting } from '../database/writer.subscriber';
import type { RefParts } from '../refs/refs.service';
import { EdgeRow } from './dto/dependencies.dto';
import { DeliveryRunRow, EnvironmentFactRow } from './dependency-facts.rows';

const EDGE_COLUMNS = `
         d.dependent_item_id, d.blocking_item_id,
         dp.public_item_prefix || '-' || di.project_sequence AS dependent_ref,
         bp.public_item_prefix || '-' || bi.project_sequence AS blocker_ref,
         d.gate_point, d.satisfaction, d.source, d.session_id, d.rationale, d.evidence_json,
         ${isoUtc('d.created_at')} AS created_at`;
const EDGE_JOINS = `
    JOIN items di ON di.id = d.dependent_item_id
    JOIN projects dp ON dp.id = di.project
    LEFT JOIN items bi ON bi.id = d.blocking_item_id
    LEFT JOIN projects bp ON bp.id = bi.project`;
// An edge's two ends ($1 the dependent, $2 the blocker): the dependent's organization, whether the blocker's is another,
// and the blocker's pinned workflow stages in order. No row when either item is gone.
const EDGE_ENDS = `
  SELECT dp.organization_id AS organization, dp.organization_id IS DISTINCT FROM bp.organization_id AS crosses,
         ARRAY(SELECT s.value ->> 'id' FROM jsonb_array_elements(v.definition -> 'stages') WITH ORDINALITY s
                ORDER BY s.ordinality) AS blocker_stages
    FROM items di JOIN projects dp ON dp.id = di.project,
         items bi JOIN projects bp ON bp.id = bi.project JOIN workflow_versions v ON v.id = bi.workflow_version_id
   WHERE di.id = $1::integer AND bi.id = $2::integer`;
export const EDGE_SELECT = `SELECT ${EDGE_COLUMNS} FROM item_dependencies d ${EDGE_JOINS}`;

export interface NewEdge {
  dependent: number;
  blocker: number;
  gatePoint: string;
  satisfaction: string;
  source: string;
  sessionId: number | null;
  rationale: string;
  evidenceJson: string;
  createdAt?: string | null;
}

export interface EdgeEnds {
  organization: number | null;
  crosses: boolean;
  blockerStages: string[];
}

export interface BlockerItemRow {
  id: number;
  ref: string;
  project: string;
  status: string;
  title: string;
  merged_at: string | null;
  workflow_version_id: number;
  stages: string[];
  // in another organization than a dependent asked about: shown without title or status
  sealed: boolean;
}

// Serialises activation-edge additions within one organization (edges never cross one), across replicas, so two
// racing adds cannot both close a cycle: the first key of a two-key advisory lock, the organization the second.
const ACTIVATION_GRAPH_LOCK = 7_301_101;

// An edge not written by the reading transaction (a row stamped by none, from before change tracking, is in): the
// kept activation graph holds committed edges only (ADR 0096). svc_activation_changes (ADR 0097) tests the same.
const NOT_OWN_EDGE = `d.change_xid IS DISTINCT FROM COALESCE(pg_current_xact_id_if_assigned(), '0'::xid8)`;

@Injectable()
export class DependenciesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  get manager(): EntityManager {
    return this.dataSource.manager;
  }

  // The organizations (null: projects without one) with the most activation edges, most first.
  async busiestActivationOrganizations(limit: number): Promise<(number | null)[]> {
    const rows: { organization: number | null }[] = await this.dataSource.query(
      `SELECT p.organization_id AS organization
         FROM item_dependencies d JOIN items i ON i.id = d.dependent_item_id JOIN projects p ON p.id = i.project
        WHERE d.gate_point = 'activation'
        GROUP BY p.organization_id ORDER BY count(*) DESC LIMIT $1`,
      [limit],
    );
    return rows.map((r) => r.organization);
  }

  // Held only by transactions that add activation edges, for their cycle check and commit; other writes go by. An
  // addition takes it with its read of the changes (activationChangesSince); import and a first load take it here.
  // Projects without an organization share key 0 (edges between them are allowed).
  async lockActivationGraph(manager: EntityManager, of: { project: string } | { organization: number | null }) {
    const organization =
      'organization' in of ? `SELECT $2::integer` : `SELECT organization_id FROM projects WHERE id = $2`;
    await manager.query(
      `SELECT pg_advisory_xact_lock($1, COALESCE(o.organization, 0))::text
         FROM (SELECT (${organization}) AS organization) o`,
      [ACTIVATION_GRAPH_LOCK, 'organization' in of ? of.organization : of.project],
    );
  }

  // The watermark is read before the edges (rows stamped at or after it are read again). Both reads leave out the
  // edges the calling transaction wrote itself: a kept graph holds committed edges only, and a transaction's own are
  // read by the next check after it commits (their stamp is its id, at or above the watermark).
  async activationEdgesOf(
    manager: EntityManager,
    organization: number | null,
  ): Promise<{ watermark: string; edges: [number, number, number][] }> {
    const [{ w: watermark }]: { w: string }[] = await manager.query(
      'SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS w',
    );
    const rows: { id: number; b: number; d: number }[] = await manager.query(
      `SELECT d.id, d.blocking_item_id AS b, d.dependent_item_id AS d
         FROM item_dependencies d JOIN items i ON i.id = d.dependent_item_id JOIN projects p ON p.id = i.project
        WHERE d.gate_point = 'activation' AND p.organization_id IS NOT DISTINCT FROM $1
          AND ${NOT_OWN_EDGE}`,
      [organization],
    );
    return { watermark, edges: rows.map((r) => [r.id, r.b, r.d]) };
  }

  // Deleted ids are any organization's (one the caller does not hold is nothing to it); `reload` after a TRUNCATE or
  // pruned tombstones: load again. `locking`: take the organization's lock first, in the same round trip; the changes
  // are then read after it was granted (svc_activation_changes, a fresh snapshot), which a statement's own snapshot
  // would not be.
  async activationChangesSince(
    manager: EntityManager,
    organization: number | null,
    since: string,
    locking = false,
  ): Promise<{ watermark: string; edges: [number, number, number, boolean][]; deleted: string[]; reload: boolean }> {
    const [row]: {
      watermark: string;
      edges: [number, number, number, boolean][];
      deleted: string[];
      pruned: boolean;
    }[] = await manager.query(
      `SELECT watermark, edges, deleted, pruned FROM svc_activation_changes($1::xid8, $2::integer, $3::integer)`,
      [since, organization, locking ? ACTIVATION_GRAPH_LOCK : null],
    );
    return {
      watermark: row.watermark,
      edges: row.edges,
      deleted: row.deleted,
      reload: row.pruned || row.deleted.includes('*'),
    };
  }

  activationPairs(manager: EntityManager): Promise<DependencyPair[]> {
    return manager.query(
      `SELECT blocking_item_id AS blocker, dependent_item_id AS dependent
         FROM item_dependencies WHERE gate_point = 'activation'`,
    );
  }

  // addIn's first round trip (ADR 0106): what an addition checks, in one read (EDGE_ENDS: the dependent's organization,
  // whose activation lock it takes, whether the blocker is in another, and the blocker's stages), and the edge inserted
  // in the same statement when both are in one organization and `storable` (edgeStorable: the table's CHECK would
  // refuse it otherwise). The caller checks the stage form against `blockerStages` after it and throws to refuse,
  // which rolls the insert back with its transaction. `ends` null: an item is gone; `added` null: nothing inserted
  // (an item gone, two organizations, not storable, or the edge already there); else the row as a read answers it.
  async insertAtEnds(
    edge: NewEdge,
    storable: boolean,
    manager: EntityManager,
  ): Promise<{ ends: EdgeEnds | null; added: EdgeRow | null }> {
    const rows: (EdgeRow & { organization: number | null; crosses: boolean; blocker_stages: string[] })[] =
      await manager.query(
        `WITH e AS (${EDGE_ENDS}),
         d AS (
           INSERT INTO item_dependencies (dependent_item_id, blocking_item_id, gate_point, satisfaction, source,
                                          session_id, rationale, evidence_json, created_at)
           SELECT $1::integer, $2::integer, $3::text, $4::text, $5::text, $6::integer, $7::text, $8::text,
                  COALESCE($9::timestamptz, now())
             FROM e WHERE NOT e.crosses AND $10::boolean
           ON CONFLICT (dependent_item_id, blocking_item_id, gate_point) DO NOTHING RETURNING *)
         SELECT e.organization, e.crosses, e.blocker_stages, x.*
           FROM e LEFT JOIN (SELECT ${EDGE_COLUMNS} FROM d ${EDGE_JOINS}) x ON true`,
        [
          edge.dependent,
          edge.blocker,
          edge.gatePoint,
          edge.satisfaction,
          edge.source,
          edge.sessionId,
          edge.rationale,
          edge.evidenceJson,
          edge.createdAt ?? null,
          storable,
        ],
      );
    const row = rows[0];
    if (!row) return { ends: null, added: null };
    const { organization, crosses, blocker_stages: blockerStages, ...added } = row;
    return {
      ends: { organization, crosses, blockerStages },
      added: added.dependent_item_id === null ? null : (added as EdgeRow),
    };
  }

  async insertMany(edges: readonly NewEdge[], manager: EntityManager): Promise<number> {
    let created = 0;
    const chunk = 5_000;
    for (let start = 0; start < edges.length; start += chunk) {
      const part = edges.slice(start, start + chunk);
      const rows: unknown[] = await manager.query(
        `INSERT INTO item_dependencies (dependent_item_id, blocking_item_id, gate_point, satisfaction, source,
                                        session_id, rationale, evidence_json, created_at)
         SELECT dependent, blocker, gate_point, satisfaction, source, session_id, rationale, evidence_json,
                COALESCE(created_at, now())
           FROM unnest($1::int[], $2::int[], $3::text[], $4::text[], $5::text[], $6::int[], $7::text[], $8::text[],
                       $9::timestamptz[])
             AS e(dependent, blocker, gate_point, satisfaction, source, session_id, rationale, evidence_json,
                  created_at)
         ON CONFLICT (dependent_item_id, blocking_item_id, gate_point) DO NOTHING RETURNING id`,
        [
          part.map((e) => e.dependent),
          part.map((e) => e.blocker),
          part.map((e) => e.gatePoint),
          part.map((e) => e.satisfaction),
          part.map((e) => e.source),
          part.map((e) => e.sessionId),
          part.map((e) => e.rationale),
          part.map((e) => e.evidenceJson),
          part.map((e) => e.createdAt ?? null),
        ],
      );
      created += rows.length;
    }
    return created;
  }

  async find(dependent: number, blocker: number, gatePoint: string, manager = this.dataSource.manager) {
    const rows: EdgeRow[] = await manager.query(
      `${EDGE_SELECT} WHERE d.dependent_item_id = $1 AND d.blocking_item_id = $2 AND d.gate_point = $3`,
      [dependent, blocker, gatePoint],
    );
    return rows[0] ?? null;
  }

  // sealed: the counterpart is in another organization; its title and status are not shown.
  edgesOf(id: number, gatePoint: string | null): Promise<(EdgeRow & { direction: 'depends_on' | 'blocks' })[]> {
    return this.dataSource.query(
      `SELECT e.*, CASE WHEN e.dependent_item_id = $1 THEN 'depends_on' ELSE 'blocks' END AS direction,
              o.title AS other_title, o.status AS other_status,
              (o.id IS NOT NULL AND op.organization_id IS DISTINCT FROM mp.organization_id) AS other_sealed
         FROM (${EDGE_SELECT} WHERE (d.dependent_item_id = $1 OR d.blocking_item_id = $1)
                                AND ($2::text IS NULL OR d.gate_point = $2)) e
         LEFT JOIN items o ON o.id = CASE WHEN e.dependent_item_id = $1 THEN e.blocking_item_id ELSE e.dependent_item_id END
         LEFT JOIN projects op ON op.id = o.project
         JOIN items m ON m.id = $1
         JOIN projects mp ON mp.id = m.project
        ORDER BY direction DESC, e.gate_point, e.created_at, e.blocking_item_id, e.dependent_item_id`,
      [id, gatePoint],
    );
  }

  edgesForDependents(ids: readonly number[], gatePoint: string | null, manager = this.dataSource.manager) {
    if (ids.length === 0) return Promise.resolve([] as DependencyEdge[]);
    return manager.query(
      `SELECT blocking_item_id AS blocker, dependent_item_id AS dependent, gate_point AS "gatePoint", satisfaction,
              rationale
         FROM item_dependencies
        WHERE dependent_item_id = ANY($1::int[]) AND ($2::text IS NULL OR gate_point = $2)
        ORDER BY dependent_item_id, id`,
      [ids, gatePoint],
    ) as Promise<DependencyEdge[]>;
  }

  edgesOfProject(project: string, manager = this.dataSource.manager): Promise<EdgeRow[]> {
    return manager.query(
      `${EDGE_SELECT} WHERE di.project = $1
        ORDER BY di.project_sequence, bp.public_item_prefix, bi.project_sequence, d.gate_point`,
      [project],
    );
  }

  // One statement outside any transaction that names its writer (namedWriter, ADR 0097): a removal takes no lock.
  // The edge between two items named by their refs (each split by parseRef), removed if both are in projects the
  // caller sees (`projects`, null: every one), in the statement that finds them (ADR 0106): the two canonical refs,
  // or null when nothing was removed (no such edge, an item unknown or unseen: the caller tells which apart).
  async removeByRefs(
    dependent: RefParts,
    blocker: RefParts,
    gatePoint: string,
    projects: readonly string[] | null,
  ): Promise<{ dependent: string; blocker: string } | null> {
    const parameters: unknown[] = [
      writerSetting(),
      dependent.prefix,
      dependent.sequence,
      blocker.prefix,
      blocker.sequence,
      gatePoint,
    ];
    const seen = projects === null ? null : `$${parameters.push(projects)}::text[]`;
    const visible = seen === null ? '' : `AND di.project = ANY(${seen}) AND bi.project = ANY(${seen})`;
    const { rows } = affected(
      await this.dataSource.query(
        `WITH ${namedWriter('$1')}
       DELETE FROM item_dependencies d
        USING writer, items di, projects dp, items bi, projects bp
        WHERE dp.public_item_prefix = $2 AND di.project = dp.id AND di.project_sequence = $3
          AND bp.public_item_prefix = $4 AND bi.project = bp.id AND bi.project_sequence = $5
          AND d.dependent_item_id = di.id AND d.blocking_item_id = bi.id AND d.gate_point = $6 ${visible}
       RETURNING dp.public_item_prefix || '-' || di.project_sequence AS dependent,
                 bp.public_item_prefix || '-' || bi.project_sequence AS blocker`,
        parameters,
      ),
    );
    return (rows[0] as { dependent: string; blocker: string } | undefined) ?? null;
  }

  blockerItems(
    ids: readonly number[],
    dependents: readonly number[],
    manager = this.dataSource.manager,
  ): Promise<BlockerItemRow[]> {
    return manager.query(
      `SELECT i.id, p.public_item_prefix || '-' || i.project_sequence AS ref, i.project, i.status, i.title,
              ${isoUtc('i.merged_at')} AS merged_at, i.workflow_version_id,
              ARRAY(SELECT s.value ->> 'id' FROM jsonb_array_elements(v.definition -> 'stages') WITH ORDINALITY s
                     ORDER BY s.ordinality) AS stages,
              EXISTS (SELECT 1 FROM items di JOIN projects dp ON dp.id = di.project
                       WHERE di.id = ANY($2::int[]) AND dp.organization_id IS DISTINCT FROM p.organization_id) AS sealed
         FROM items i
         JOIN projects p ON p.id = i.project
         JOIN workflow_versions v ON v.id = i.workflow_version_id
        WHERE i.id = ANY($1::int[])`,
      [ids, dependents],
    );
  }

  async firstCrossingOrganization(
    pairs: readonly { dependent: number; blocker: number }[],
    manager: EntityManager,
  ): Promise<number | null> {
    if (pairs.length === 0) return null;
    const rows: { n: number }[] = await manager.query(
      `SELECT p.n::int AS n
         FROM unnest($1::int[], $2::int[]) WITH ORDINALITY AS p(dependent, blocker, n)
         JOIN items di ON di.id = p.dependent JOIN projects dp ON dp.id = di.project
         JOIN items bi ON bi.id = p.blocker JOIN projects bp ON bp.id = bi.project
        WHERE dp.organization_id IS DISTINCT FROM bp.organization_id
        ORDER BY p.n LIMIT 1`,
      [pairs.map((p) => p.dependent), pairs.map((p) => p.blocker)],
    );
    return rows.length === 0 ? null : rows[0].n - 1;
  }

  // The one loader of delivery facts: runs owned by the carried item's own project; a succeeded run that needed an
  // approval counts only with one recorded (an admin's for 'admin').
  runsCarrying(
    itemIds: readonly number[],
    statuses: readonly string[],
    manager: EntityManager = this.dataSource.manager,
  ): Promise<DeliveryRunRow[]> {
    if (itemIds.length === 0) return Promise.resolve([]);
    return manager.query(
      `SELECT DISTINCT i.id AS item_id, r.environment, r.status
         FROM deployment_runs r
        CROSS JOIN LATERAL jsonb_array_elements_text(r.carried_work -> 'items') AS x(value)
         JOIN items i ON i.id = CASE WHEN x.value ~ '^[0-9]{1,9}$' THEN (x.value)::int END AND i.project = r.project
        WHERE r.status = ANY ($2::text[]) AND i.id = ANY ($1::int[])
          AND (r.status <> 'succeeded' OR r.required_approval IS NULL
               OR EXISTS (SELECT 1 FROM deployment_approvals a
                           WHERE a.run_id = r.id AND (r.required_approval = 'member' OR a.approver_role = 'admin')))`,
      [itemIds, statuses],
    );
  }

  environmentsOf(
    projects: readonly string[],
    manager: EntityManager = this.dataSource.manager,
  ): Promise<EnvironmentFactRow[]> {
    if (projects.length === 0) return Promise.resolve([]);
    return manager.query(
      `SELECT e.project, e.name,
              (f.id IS NOT NULL AND (f.active OR f.closing)) OR EXISTS (
                SELECT 1 FROM deployment_flows g
                 WHERE g.project = e.project AND (g.active OR g.closing)
                   AND (g.target_tier = e.name OR g.target_tier = e.tier
                        OR g.stages @> jsonb_build_array(e.name)
                        OR g.stages @> jsonb_build_array(jsonb_build_object('environment', e.name)))
              ) AS in_flow
         FROM environments e
         LEFT JOIN deployment_flows f ON f.id = e.flow_id
        WHERE e.project = ANY ($1::text[]) AND e.retired_at IS NULL`,
      [projects],
    );
  }
}
