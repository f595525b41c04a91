import { Injectable } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';

import { ITEM_RECENT_COMMENTS } from '@app/contracts';
import { STRUCTURED_FIELDS } from '@app/contracts/backlog';

import { InjectDataSource } from '../common/inject-data-source';
import { RunRow } from '../deployments/dto/deployments.dto';
import { affected, ClaimHolderJson, claimHolderColumn, isoUtc, recentCommentsColumns } from '../database/backlog-sql';
import { lastStatement } from '../database/pipelined-transactions';
import { namedWriter, writerSetting } from '../database/writer.subscriber';
import type { RefParts } from '../refs/refs.service';
import { ItemDetailRow, ItemRow, ProgressRow, SectionRow } from './dto/items.dto';
import { INSERTABLE_COLUMNS, NewItem } from './item-fields';

const ITEM_COLUMNS = `
         i.id, p.public_item_prefix || '-' || i.project_sequence AS ref, i.project, i.project_sequence, i.title,
         i.workflow_id, i.workflow_version_id, v.version AS workflow_version, i.workflow_posture, i.status,
         i.priority, i.frozen, i.blocked, i.blocked_reason, i.github_issue, i.deployed_to, i.body,
         ${isoUtc('i.merged_at')} AS merged_at, ${isoUtc('i.created_at')} AS created_at,
         ${isoUtc('i.updated_at')} AS updated_at, i.source, i.owner, i.deployment_flow, i.deploy_stage,
         ${STRUCTURED_FIELDS.map((f) => `i.${f}`).join(', ')},
         i.db_mutation_profile, i.db_compatibility_attestation, ${isoUtc('i.spec_updated_at')} AS spec_updated_at,
         i.spec_updated_by, i.resolution, i.resolution_ref, i.resolution_comment, i.depends_on`;
const ITEM_JOINS = `
    JOIN projects p ON p.id = i.project
    JOIN workflow_versions v ON v.id = i.workflow_version_id`;
const ITEM_FROM = `FROM items i ${ITEM_JOINS}`;
const SECTIONS_OF_ITEM = `
         (SELECT COALESCE(json_agg(json_build_object(
                   'item_id', s.item_id, 'section_name', s.section_name, 'content', s.content, 'ordering', s.ordering,
                   'created_at', ${isoUtc('s.created_at')}, 'updated_at', ${isoUtc('s.updated_at')})
                   ORDER BY s.ordering, s.section_name), '[]')
            FROM item_sections s WHERE s.item_id = i.id) AS sections`;

const RECENT_COMMENTS_OF_ITEM = recentCommentsColumns('i.id', ITEM_RECENT_COMMENTS);

export const ITEM_SELECT = `SELECT ${ITEM_COLUMNS} ${ITEM_FROM}`;
const DETAIL_SELECT = `SELECT ${ITEM_COLUMNS}, ${SECTIONS_OF_ITEM}, ${RECENT_COMMENTS_OF_ITEM}`;

// An UPDATE of one item that answers with the item as written, its sections and its newest comments (findDetail's
// columns over the updated row): a write's answer costs no statement of its own. No trigger changes an item's row after
// its update (the BEFORE stamp is in RETURNING), and the sections and comments are the snapshot's.
function updatedDetail(update: string): string {
  return `WITH i AS (${update} RETURNING *) ${DETAIL_SELECT} FROM i ${ITEM_JOINS}`;
}

export interface LockedItem extends ItemRow {
  claim_holder: ClaimHolderJson | null;
  project_policy: Record<string, unknown> | null;
}

// A new item as its insert answered: the item (findDetail's columns) and the policy of its project, read by the
// statement that took its sequence.
export interface InsertedItem extends ItemDetailRow {
  project_policy: Record<string, unknown> | null;
}

export interface ItemFilters {
  projects: readonly string[] | null;
  project?: string;
  text?: string;
  claimed?: boolean;
  statuses?: string[];
  priority?: string;
  blocked?: number;
  frozen?: number;
  workflow?: string;
  limit: number;
  offset: number;
}

const TIMESTAMP_COLUMNS = new Set(['merged_at', 'spec_updated_at', 'created_at', 'updated_at']);

@Injectable()
export class ItemsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  get manager(): EntityManager {
    return this.dataSource.manager;
  }

  async findById(id: number, manager = this.dataSource.manager): Promise<ItemRow | null> {
    const rows: ItemRow[] = await manager.query(`${ITEM_SELECT} WHERE i.id = $1`, [id]);
    return rows[0] ?? null;
  }

  // The row, its sections and its newest comments in one statement: a write answers with the item it wrote, and each
  // statement is a round trip to the database.
  async findDetail(id: number, manager = this.dataSource.manager): Promise<ItemDetailRow | null> {
    const rows: ItemDetailRow[] = await manager.query(`${DETAIL_SELECT} ${ITEM_FROM} WHERE i.id = $1`, [id]);
    return rows[0] ?? null;
  }

  async lock(id: number, manager: EntityManager): Promise<ItemRow | null> {
    const rows: ItemRow[] = await manager.query(`${ITEM_SELECT} WHERE i.id = $1 FOR UPDATE OF i`, [id]);
    return rows[0] ?? null;
  }

  // The item a write names, by its ref, locked, then the live claim on it locked (the claim rule's input), with its
  // project's policy (a title's limit): one round trip, where resolving the ref and reading the policy took two more
  // (ADR 0097).
  async lockWithClaim(target: RefParts, manager: EntityManager): Promise<LockedItem | null> {
    const rows: LockedItem[] = await manager.query(
      `WITH i AS MATERIALIZED (SELECT ${ITEM_COLUMNS}, p.policy AS project_policy ${ITEM_FROM}
                                WHERE p.public_item_prefix = $1 AND i.project_sequence = $2 FOR UPDATE OF i)
       SELECT i.*, ${claimHolderColumn('i.id')} AS claim_holder FROM i`,
      [target.prefix, target.sequence],
    );
    return rows[0] ?? null;
  }

  findByIds(ids: readonly number[], manager = this.dataSource.manager): Promise<ItemRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return manager.query(`${ITEM_SELECT} WHERE i.id = ANY($1::int[]) ORDER BY i.project, i.project_sequence`, [ids]);
  }

  findByProject(project: string, manager = this.dataSource.manager): Promise<ItemRow[]> {
    return manager.query(`${ITEM_SELECT} WHERE i.project = $1 ORDER BY i.project_sequence`, [project]);
  }

  // One statement: page and total together.
  list(f: ItemFilters): Promise<ItemRow[]> {
    return this.dataSource.query(
      `SELECT count(*) OVER () AS total, ${ITEM_COLUMNS} ${ITEM_FROM}
        WHERE ($1::text[] IS NULL OR i.project = ANY($1))
          AND ($2::text IS NULL OR i.project = $2)
          AND ($3::text[] IS NULL OR i.status = ANY($3))
          AND ($4::text IS NULL OR i.priority = $4)
          AND ($5::int IS NULL OR i.blocked = $5)
          AND ($6::int IS NULL OR i.frozen = $6)
          AND ($7::text IS NULL OR i.workflow_id = $7)
          AND ($10::text IS NULL OR strpos(lower(i.title), $10) > 0 OR strpos(lower(coalesce(i.body, '')), $10) > 0
               OR (p.public_item_prefix || '-' || i.project_sequence) = upper($10))
          AND ($11::boolean IS NULL OR $11 = EXISTS (
                SELECT 1 FROM item_claims c WHERE c.item_id = i.id AND c.expires_at > now()))
        ORDER BY i.project, i.project_sequence
        LIMIT $8 OFFSET $9`,
      [
        f.projects,
        f.project ?? null,
        f.statuses ?? null,
        f.priority ?? null,
        f.blocked ?? null,
        f.frozen ?? null,
        f.workflow ?? null,
        f.limit,
        f.offset,
        f.text?.toLowerCase() ?? null,
        f.claimed ?? null,
      ],
    );
  }

  sectionsFor(ids: readonly number[], manager = this.dataSource.manager): Promise<SectionRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return manager.query(
      `SELECT item_id, section_name, content, ordering, ${isoUtc('created_at')} AS created_at,
              ${isoUtc('updated_at')} AS updated_at
         FROM item_sections WHERE item_id = ANY($1::int[])
        ORDER BY item_id, ordering, section_name`,
      [ids],
    );
  }

  // Chunks stay under PostgreSQL's 65,535 parameters; ids come back keyed by (project, sequence), never by the
  // order of RETURNING.
  async insertMany(items: readonly NewItem[], manager: EntityManager): Promise<number[]> {
    const fixed = ['project', 'project_sequence', 'title', 'workflow_id', 'workflow_version_id', 'status', 'source'];
    const optional = INSERTABLE_COLUMNS.filter((c) => items.some((item) => item.values[c] !== undefined));
    const columns = [...fixed, ...optional];
    const perChunk = Math.max(1, Math.floor(60_000 / columns.length));
    const idOf = new Map<string, number>();
    for (let start = 0; start < items.length; start += perChunk) {
      const params: unknown[] = [];
      const tuples = items.slice(start, start + perChunk).map((item) => {
        const cells = [
          item.project,
          item.sequence,
          item.title,
          item.workflowId,
          item.workflowVersionId,
          item.status,
          item.source,
          ...optional.map((c) => item.values[c]),
        ].map((value, i) => {
          if (value === undefined) return 'DEFAULT';
          params.push(value);
          return TIMESTAMP_COLUMNS.has(columns[i]) ? `$${params.length}::timestamptz` : `$${params.length}`;
        });
        return `(${cells.join(', ')})`;
      });
      const rows: { id: number; project: string; project_sequence: number }[] = await manager.query(
        `INSERT INTO items (${columns.join(', ')}) VALUES ${tuples.join(', ')} RETURNING id, project, project_sequence`,
        params,
      );
      for (const row of rows) idOf.set(`${row.project}\u0000${row.project_sequence}`, row.id);
    }
    return items.map((item) => idOf.get(`${item.project}\u0000${item.sequence}`)!);
  }

  // Gap-free: the item takes the project's next sequence in the statement that inserts it. The project's row stays
  // locked until the commit, which serialises concurrent creates, and a rolled-back create rolls its sequence back
  // with it. It answers with the item as inserted and the project's policy (ADR 0097); a create that goes on (a spec
  // stamp, a later start) reads the item again. Null when the project is gone.
  //
  // With `seen` (the policy the create checked its title against, as text) the statement inserts only while the
  // project's policy is still that one, null otherwise; and `last` sends it with the COMMIT (ADR 0101), so that the
  // project's row is locked for this statement and the commit alone, not for a round trip to the daemon and back.
  async insertNext(
    item: Omit<NewItem, 'sequence'>,
    manager: EntityManager,
    seen: { policy: string; last: boolean } | null = null,
  ): Promise<InsertedItem | null> {
    const columns = ['title', 'workflow_id', 'workflow_version_id', 'status', 'source'];
    const params: unknown[] = [
      item.project,
      item.title,
      item.workflowId,
      item.workflowVersionId,
      item.status,
      item.source,
    ];
    for (const column of INSERTABLE_COLUMNS) {
      if (item.values[column] === undefined) continue;
      columns.push(column);
      params.push(item.values[column]);
    }
    const values = columns.map((c, i) => (TIMESTAMP_COLUMNS.has(c) ? `$${i + 2}::timestamptz` : `$${i + 2}`));
    const unchanged = seen === null ? '' : `AND policy::text = $${params.push(seen.policy)}`;
    const send = (): Promise<InsertedItem[]> =>
      manager.query(
        `WITH taken AS (
           UPDATE projects SET next_sequence = next_sequence + 1 WHERE id = $1 ${unchanged}
           RETURNING next_sequence - 1 AS sequence, policy
         ), i AS (
           INSERT INTO items (project, project_sequence, ${columns.join(', ')})
           SELECT $1, taken.sequence, ${values.join(', ')} FROM taken
           RETURNING *
         )
         ${DETAIL_SELECT}, (SELECT t.policy FROM taken t) AS project_policy FROM i ${ITEM_JOINS}`,
        params,
      );
    const rows = await (seen?.last ? lastStatement(manager, send) : send());
    return rows[0] ?? null;
  }

  async stampSpecUpdated(id: number, manager: EntityManager): Promise<void> {
    await manager.query(`UPDATE items SET spec_updated_at = now() WHERE id = $1`, [id]);
  }

  async updateStatus(id: number, status: string, manager: EntityManager): Promise<void> {
    await manager.query(`UPDATE items SET status = $2, updated_at = now() WHERE id = $1`, [id, status]);
  }

  async resolve(
    id: number,
    values: { status: string; resolution: string; ref: string | null; comment: string | null },
    manager: EntityManager,
  ): Promise<void> {
    await manager.query(
      `UPDATE items SET status = $2, resolution = $3, resolution_ref = $4, resolution_comment = $5, updated_at = now()
        WHERE id = $1`,
      [id, values.status, values.resolution, values.ref, values.comment],
    );
  }

  async setBlocked(item: RefParts, projects: readonly string[] | null, reason: string | null) {
    return this.setFlags(item, projects, 'blocked = $4, blocked_reason = $5', [reason === null ? 0 : 1, reason]);
  }

  async setFrozen(item: RefParts, projects: readonly string[] | null, frozen: boolean) {
    return this.setFlags(item, projects, 'frozen = $4', [frozen ? 1 : 0]);
  }

  // A write no rule guards (block, freeze), by ref, in one statement outside any transaction: it names its writer,
  // changes the item if the caller sees its project (`projects`, null: every one) and answers with the item as
  // written; null: no such item. One round trip where resolve, START, UPDATE, COMMIT and the answer took five.
  private async setFlags(
    item: RefParts,
    projects: readonly string[] | null,
    assignments: string,
    values: readonly unknown[],
  ): Promise<ItemDetailRow | null> {
    const parameters = [writerSetting(), item.prefix, item.sequence, ...values];
    const visible = projects === null ? '' : `AND u.project = ANY($${parameters.push(projects)}::text[])`;
    const rows: ItemDetailRow[] = await this.dataSource.query(
      `WITH ${namedWriter('$1')}, i AS (
         UPDATE items u SET ${assignments}, updated_at = now()
           FROM writer, projects p
          WHERE p.id = u.project AND p.public_item_prefix = $2 AND u.project_sequence = $3 ${visible}
         RETURNING u.*)
       ${DETAIL_SELECT} FROM i ${ITEM_JOINS}`,
      parameters,
    );
    return rows[0] ?? null;
  }

  // `column` comes from the fixed field catalog, never from input.
  async updateField(
    id: number,
    column: string,
    value: string | null,
    specStampBy: string | null,
    manager: EntityManager,
  ): Promise<ItemDetailRow> {
    const cast = TIMESTAMP_COLUMNS.has(column) ? '::timestamptz' : '';
    const stamp = specStampBy === null ? '' : ', spec_updated_at = now(), spec_updated_by = $3';
    // the field edit's last statement: its COMMIT goes with it (ADR 0101), so the service refuses nothing after it
    const rows: ItemDetailRow[] = await lastStatement(manager, () =>
      manager.query(
        updatedDetail(`UPDATE items SET ${column} = $2${cast}, updated_at = now()${stamp} WHERE id = $1`),
        specStampBy === null ? [id, value] : [id, value, specStampBy],
      ),
    );
    return rows[0];
  }

  async upsertSection(
    id: number,
    name: string,
    content: string | null,
    ordering: number | undefined,
    manager: EntityManager,
  ): Promise<void> {
    await manager.query(
      `INSERT INTO item_sections (item_id, section_name, content, ordering) VALUES ($1, $2, $3, COALESCE($4, 0))
       ON CONFLICT (item_id, section_name)
       DO UPDATE SET content = EXCLUDED.content, ordering = COALESCE($4, item_sections.ordering), updated_at = now()`,
      [id, name, content, ordering ?? null],
    );
    await manager.query(`UPDATE items SET updated_at = now() WHERE id = $1`, [id]);
  }

  async deleteSection(id: number, name: string, manager: EntityManager): Promise<boolean> {
    const { count } = affected(
      await manager.query(`DELETE FROM item_sections WHERE item_id = $1 AND section_name = $2`, [id, name]),
    );
    if (count > 0) await manager.query(`UPDATE items SET updated_at = now() WHERE id = $1`, [id]);
    return count > 0;
  }

  async progress(id: number): Promise<ProgressRow | null> {
    const rows: ProgressRow[] = await this.dataSource.query(
      `SELECT status, flow_name, run_id, current_stage, target_environment, stage_progress, done_description,
              qa_summary, blocked_reason
         FROM item_progress_view WHERE item_id = $1`,
      [id],
    );
    return rows[0] ?? null;
  }

  async runHalt(
    runId: string,
  ): Promise<Pick<RunRow, 'halt_kind' | 'halt_stage' | 'halt_missing' | 'halted_at'> | null> {
    const rows: Pick<RunRow, 'halt_kind' | 'halt_stage' | 'halt_missing' | 'halted_at'>[] = await this.dataSource.query(
      `SELECT halt_kind, halt_stage, halt_missing, ${isoUtc('halted_at')} AS halted_at FROM deployment_runs WHERE id = $1`,
      [runId],
    );
    return rows[0] ?? null;
  }

  async flowExists(project: string, flow: string, manager = this.dataSource.manager): Promise<boolean> {
    const rows: unknown[] = await manager.query(`SELECT 1 FROM deployment_flows WHERE id = $1 AND project = $2`, [
      flow,
      project,
    ]);
    return rows.length > 0;
  }
}
