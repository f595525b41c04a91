import { Injectable } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';

import { HeldComment, ImportNotCarried, ProjectSnapshot, ProjectSnapshotSummary } from '@app/contracts';

import { InjectDataSource } from '../common/inject-data-source';
import { isoUtc } from '../database/backlog-sql';
import {
  DocApproval,
  DocDisposition,
  DocEnvironment,
  DocFlow,
  DocRun,
  DocSection,
  DocVerdict,
} from './dto/transfer.dto';

const SNAPSHOT_SELECT = (more: string) =>
  `SELECT s.id::text AS id, s.project, ${isoUtc('s.taken_at')} AS taken_at, a.name AS taken_by, s.reason,
          COALESCE(jsonb_array_length(s.document -> 'items'), 0) AS items${more}
     FROM project_snapshots s LEFT JOIN actors a ON a.id = s.taken_by`;

const RECORD_ITEM = (param: string) => `item ~ ('^' || ${param} || '-[0-9]+$')`;

export interface EpicRowBase {
  epic_sequence: number;
}

@Injectable()
export class TransferRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  epicTasks(project: string): Promise<(EpicRowBase & Record<string, unknown>)[]> {
    return this.dataSource.query(
      `SELECT i.project_sequence AS epic_sequence, t.task_num, t.title, t.worktree, t.context_estimate, t.dependencies,
              t.status, t.dispatch_attempts, t.max_attempts, t.body, t.github_issue, t.branch, t.worktree_path,
              t.agent_id, ${isoUtc('t.last_heartbeat')} AS last_heartbeat
         FROM epic_tasks t JOIN items i ON i.id = t.epic_id
        WHERE i.project = $1 ORDER BY i.project_sequence, t.task_num`,
      [project],
    );
  }

  epicFiles(
    project: string,
  ): Promise<(EpicRowBase & { task_num: number; file_path: string; action: string | null })[]> {
    return this.dataSource.query(
      `SELECT i.project_sequence AS epic_sequence, f.task_num, f.file_path, f.action
         FROM epic_task_files f JOIN items i ON i.id = f.epic_id
        WHERE i.project = $1 ORDER BY i.project_sequence, f.task_num, f.id`,
      [project],
    );
  }

  epicChains(project: string): Promise<(EpicRowBase & Record<string, unknown>)[]> {
    return this.dataSource.query(
      `SELECT i.project_sequence AS epic_sequence, c.worktree, c.worktree_path, c.queue, c.current_index, c.current_task,
              c.current_attempt, c.max_attempts, c.no_chain, ${isoUtc('c.started_at')} AS started_at,
              ${isoUtc('c.last_updated')} AS last_updated
         FROM epic_dispatch_chains c JOIN items i ON i.id = c.epic_id
        WHERE i.project = $1 ORDER BY i.project_sequence, c.worktree`,
      [project],
    );
  }

  epicNotes(project: string): Promise<(EpicRowBase & Record<string, unknown>)[]> {
    return this.dataSource.query(
      `SELECT i.project_sequence AS epic_sequence, n.task_num, n.note_num, n.body, n.author,
              ${isoUtc('n.created_at')} AS created_at
         FROM epic_progress_notes n JOIN items i ON i.id = n.epic_id
        WHERE i.project = $1 ORDER BY i.project_sequence, n.task_num, n.note_num`,
      [project],
    );
  }

  verdicts(prefix: string): Promise<(Required<Omit<DocVerdict, 'key'>> & { id: number })[]> {
    return this.dataSource.query(
      `SELECT id, item, transition, worker, verdict, caveats, attempt, ${isoUtc('created_at')} AS created_at
         FROM shepherd_verdicts WHERE ${RECORD_ITEM('$1')} ORDER BY created_at, id`,
      [prefix],
    );
  }

  dispositions(
    prefix: string,
  ): Promise<(Required<Omit<DocDisposition, 'verdict_key'>> & { verdict_id: number | null })[]> {
    return this.dataSource.query(
      `SELECT item, transition, attempt, caveat_num, caveat_text, disposition, resolution_details, verdict_id,
              ${isoUtc('created_at')} AS created_at
         FROM caveat_dispositions WHERE ${RECORD_ITEM('$1')}
        ORDER BY item, transition, attempt, caveat_num`,
      [prefix],
    );
  }

  // The project, locked, with how much it holds: an import over anything it holds is a replace.
  async projectForUpdate(id: string, manager: EntityManager) {
    const rows: {
      id: string;
      public_item_prefix: string;
      policy: Record<string, unknown>;
      items: string;
      deployments: string;
    }[] = await manager.query(
      `SELECT p.id, p.public_item_prefix, p.policy, (SELECT count(*) FROM items i WHERE i.project = p.id) AS items,
              (SELECT count(*) FROM deployment_flows f WHERE f.project = p.id)
              + (SELECT count(*) FROM environments e WHERE e.project = p.id)
              + (SELECT count(*) FROM deployment_runs r WHERE r.project = p.id) AS deployments
         FROM projects p WHERE p.id = $1 FOR UPDATE`,
      [id],
    );
    return rows[0] ?? null;
  }

  // The project's items, locked until the replace commits: a write on one of them (status, fields, sections, claims
  // through the rulebook's row lock) waits, so the snapshot read next is the project the replace removes.
  async lockItems(project: string, manager: EntityManager): Promise<void> {
    await manager.query(`SELECT id FROM items WHERE project = $1 ORDER BY id FOR UPDATE`, [project]);
  }

  claimsOf(project: string, manager: EntityManager): Promise<ImportNotCarried['claims']> {
    return manager.query(
      `SELECT p.public_item_prefix || '-' || i.project_sequence AS item, c.session_id, a.name AS actor, s.harness,
              ${isoUtc('c.expires_at')} AS expires_at
         FROM item_claims c
         JOIN items i ON i.id = c.item_id
         JOIN projects p ON p.id = i.project
         LEFT JOIN executor_sessions s ON s.id = c.session_id
         LEFT JOIN actors a ON a.id = s.actor_id
        WHERE c.project = $1
        ORDER BY i.project_sequence`,
      [project],
    );
  }

  commentsOf(project: string, manager: EntityManager): Promise<HeldComment[]> {
    return manager.query(
      `SELECT p.public_item_prefix || '-' || i.project_sequence AS item, c.actor_name AS author, c.session_id,
              c.harness, c.path, c.body, ${isoUtc('c.created_at')} AS created_at
         FROM item_comments c
         JOIN items i ON i.id = c.item_id
         JOIN projects p ON p.id = i.project
        WHERE i.project = $1
        ORDER BY c.id`,
      [project],
    );
  }

  async insertSnapshot(
    s: { project: string; actorId: number; reason: string; document: unknown; held: unknown },
    manager: EntityManager,
  ): Promise<string> {
    const rows: { id: string }[] = await manager.query(
      `INSERT INTO project_snapshots (project, taken_by, reason, document, held)
       VALUES ($1, $2, $3, $4::jsonb, $5::jsonb) RETURNING id::text AS id`,
      [s.project, s.actorId, s.reason, JSON.stringify(s.document), JSON.stringify(s.held)],
    );
    return rows[0].id;
  }

  snapshots(project: string): Promise<ProjectSnapshotSummary[]> {
    return this.dataSource.query(`${SNAPSHOT_SELECT('')} WHERE s.project = $1 ORDER BY s.id DESC`, [project]);
  }

  async snapshot(project: string, id: string): Promise<ProjectSnapshot | null> {
    const rows: ProjectSnapshot[] = await this.dataSource.query(
      `${SNAPSHOT_SELECT(', s.document, s.held')} WHERE s.project = $1 AND s.id = $2::bigint`,
      [project, id],
    );
    return rows[0] ?? null;
  }

  async snapshotApprovals(project: string, manager: EntityManager): Promise<{ run_id: string; approval: unknown }[]> {
    return manager.query(
      `SELECT DISTINCT r.value ->> 'id' AS run_id, a.value AS approval
         FROM project_snapshots s
        CROSS JOIN LATERAL jsonb_array_elements(COALESCE(s.document -> 'deployments' -> 'runs', '[]'::jsonb)) r(value)
        CROSS JOIN LATERAL jsonb_array_elements(COALESCE(r.value -> 'approvals', '[]'::jsonb)) a(value)
        WHERE s.project = $1`,
      [project],
    );
  }

  snapshotStatuses(project: string, manager: EntityManager): Promise<{ ref: string; status: string }[]> {
    return manager.query(
      `SELECT DISTINCT i.value ->> 'ref' AS ref, i.value ->> 'status' AS status
         FROM project_snapshots s
        CROSS JOIN LATERAL jsonb_array_elements(COALESCE(s.document -> 'items', '[]'::jsonb)) i(value)
        WHERE s.project = $1`,
      [project],
    );
  }

  async insertApproval(runId: string, a: DocApproval, itemId: number | null, manager: EntityManager): Promise<void> {
    await manager.query(
      `INSERT INTO deployment_approvals (run_id, stage_index, stage, item_id, approved_by, approver_role, approved_at)
       VALUES ($1, $2, $3, $4, (SELECT id FROM actors WHERE name = $5), $6, $7::timestamptz)
       ON CONFLICT (run_id, stage_index) DO NOTHING`,
      [runId, a.stage_index, a.stage, itemId, a.approved_by ?? null, a.approver_role, a.approved_at],
    );
  }

  async updateProject(
    id: string,
    name: string | undefined,
    policy: Record<string, unknown> | undefined,
    manager: EntityManager,
  ): Promise<void> {
    await manager.query(
      `UPDATE projects SET name = COALESCE($2, name), policy = COALESCE($3::jsonb, policy), updated_at = now()
        WHERE id = $1`,
      [id, name ?? null, policy === undefined ? null : JSON.stringify(policy)],
    );
  }

  async setNextSequence(id: string, next: number, manager: EntityManager): Promise<void> {
    await manager.query(
      `UPDATE projects SET next_sequence = GREATEST($2, COALESCE(
        (SELECT max(project_sequence) + 1 FROM items WHERE project = $1), 1)) WHERE id = $1`,
      [id, next],
    );
  }

  // Edges of other projects whose blocker lives here: re-pointed after a replace by sequence.
  externalEdges(project: string, manager: EntityManager): Promise<{ id: number; sequence: number }[]> {
    return manager.query(
      `SELECT d.id, bi.project_sequence AS sequence
         FROM item_dependencies d
         JOIN items bi ON bi.id = d.blocking_item_id
         JOIN items di ON di.id = d.dependent_item_id
        WHERE bi.project = $1 AND di.project <> $1`,
      [project],
    );
  }

  async repointEdge(edgeId: number, blocker: number, manager: EntityManager): Promise<void> {
    await manager.query(`UPDATE item_dependencies SET blocking_item_id = $2 WHERE id = $1`, [edgeId, blocker]);
  }

  async clearProject(project: string, prefix: string, manager: EntityManager): Promise<void> {
    await manager.query(`DELETE FROM caveat_dispositions WHERE ${RECORD_ITEM('$1')}`, [prefix]);
    await manager.query(`DELETE FROM shepherd_verdicts WHERE ${RECORD_ITEM('$1')}`, [prefix]);
    await manager.query(`DELETE FROM deployment_runs WHERE project = $1`, [project]);
    await manager.query(`DELETE FROM environments WHERE project = $1`, [project]);
    await manager.query(`DELETE FROM items WHERE project = $1`, [project]);
    await manager.query(`DELETE FROM deployment_flows WHERE project = $1`, [project]);
  }

  resolveExisting(
    refs: readonly string[],
    manager: EntityManager,
  ): Promise<{ ref: string; id: number; project: string }[]> {
    if (refs.length === 0) return Promise.resolve([]);
    return manager.query(
      `SELECT r.ref, i.id, i.project
         FROM unnest($1::text[]) AS r(ref)
         JOIN projects p ON p.public_item_prefix = upper(split_part(r.ref, '-', 1))
         JOIN items i ON i.project = p.id AND i.project_sequence = split_part(r.ref, '-', 2)::integer`,
      [refs],
    );
  }

  async insertSections(sections: readonly { itemId: number; section: DocSection }[], manager: EntityManager) {
    const chunk = 5_000;
    for (let start = 0; start < sections.length; start += chunk) {
      const part = sections.slice(start, start + chunk);
      await manager.query(
        `INSERT INTO item_sections (item_id, section_name, content, ordering, created_at, updated_at)
         SELECT item_id, section_name, content, ordering, COALESCE(created_at, now()), COALESCE(updated_at, now())
           FROM unnest($1::int[], $2::text[], $3::text[], $4::int[], $5::timestamptz[], $6::timestamptz[])
             AS s(item_id, section_name, content, ordering, created_at, updated_at)`,
        [
          part.map((p) => p.itemId),
          part.map((p) => p.section.section_name),
          part.map((p) => p.section.content ?? null),
          part.map((p) => p.section.ordering ?? 0),
          part.map((p) => p.section.created_at ?? null),
          part.map((p) => p.section.updated_at ?? null),
        ],
      );
    }
  }

  async insertTask(epicId: number, t: Record<string, unknown>, manager: EntityManager): Promise<void> {
    await manager.query(
      `INSERT INTO epic_tasks (epic_id, task_num, title, worktree, context_estimate, dependencies, status,
                               dispatch_attempts, max_attempts, body, github_issue, branch, worktree_path, agent_id,
                               last_heartbeat)
       VALUES ($1, $2, $3, $4, $5, $6, COALESCE($7, 'planning'), COALESCE($8, 0), COALESCE($9, 5), $10, $11, $12, $13,
               $14, $15::timestamptz)`,
      [
        epicId,
        t.task_num,
        t.title ?? null,
        t.worktree ?? null,
        t.context_estimate ?? null,
        t.dependencies ?? null,
        t.status ?? null,
        t.dispatch_attempts ?? null,
        t.max_attempts ?? null,
        t.body ?? null,
        t.github_issue ?? null,
        t.branch ?? null,
        t.worktree_path ?? null,
        t.agent_id ?? null,
        t.last_heartbeat ?? null,
      ],
    );
  }

  async insertFile(
    epicId: number,
    f: { task_num: number; file_path: string; action?: string | null },
    m: EntityManager,
  ) {
    await m.query(`INSERT INTO epic_task_files (epic_id, task_num, file_path, action) VALUES ($1, $2, $3, $4)`, [
      epicId,
      f.task_num,
      f.file_path,
      f.action ?? null,
    ]);
  }

  async insertChain(epicId: number, c: Record<string, unknown>, manager: EntityManager): Promise<void> {
    await manager.query(
      `INSERT INTO epic_dispatch_chains (epic_id, worktree, worktree_path, queue, current_index, current_task,
                                         current_attempt, max_attempts, no_chain, started_at, last_updated)
       VALUES ($1, $2, $3, $4, COALESCE($5, 0), $6, COALESCE($7, 1), COALESCE($8, 5), COALESCE($9, 0),
               $10::timestamptz, $11::timestamptz)`,
      [
        epicId,
        c.worktree,
        c.worktree_path ?? null,
        c.queue === undefined ? null : JSON.stringify(c.queue),
        c.current_index ?? null,
        c.current_task ?? null,
        c.current_attempt ?? null,
        c.max_attempts ?? null,
        c.no_chain ?? null,
        c.started_at ?? null,
        c.last_updated ?? null,
      ],
    );
  }

  async insertNote(
    epicId: number,
    n: { task_num: number; note_num: number; body: string; author?: string | null; created_at?: string },
    manager: EntityManager,
  ): Promise<void> {
    await manager.query(
      `INSERT INTO epic_progress_notes (epic_id, task_num, note_num, body, author, created_at)
       VALUES ($1, $2, $3, $4, $5, COALESCE($6::timestamptz, now()))`,
      [epicId, n.task_num, n.note_num, n.body, n.author ?? null, n.created_at ?? null],
    );
  }

  async insertVerdict(v: DocVerdict, item: string, manager: EntityManager): Promise<number> {
    const rows: { id: number }[] = await manager.query(
      `INSERT INTO shepherd_verdicts (item, transition, worker, verdict, caveats, attempt, created_at)
       VALUES ($1, $2, $3, $4, $5, COALESCE($6, 1), COALESCE($7::timestamptz, now())) RETURNING id`,
      [item, v.transition, v.worker, v.verdict, v.caveats ?? null, v.attempt ?? null, v.created_at ?? null],
    );
    return rows[0].id;
  }

  async insertDisposition(
    d: DocDisposition,
    item: string,
    verdictId: number | null,
    m: EntityManager,
  ): Promise<boolean> {
    const rows: unknown[] = await m.query(
      `INSERT INTO caveat_dispositions (item, transition, attempt, caveat_num, caveat_text, disposition,
                                        resolution_details, verdict_id, created_at)
       VALUES ($1, $2, COALESCE($3, 1), $4, $5, $6, $7, $8, COALESCE($9::timestamptz, now()))
       ON CONFLICT (item, transition, attempt, caveat_num) DO NOTHING RETURNING id`,
      [
        item,
        d.transition,
        d.attempt ?? null,
        d.caveat_num,
        d.caveat_text,
        d.disposition,
        d.resolution_details ?? null,
        verdictId,
        d.created_at ?? null,
      ],
    );
    return rows.length === 1;
  }

  async insertFlow(project: string, f: DocFlow, manager: EntityManager): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      `INSERT INTO deployment_flows (id, project, name, stages, target_tier, done_description, active, closing, created_at,
                                     complete_before_done)
       VALUES ($1, $2, $3, $4::jsonb, $5, $6, COALESCE($7, true), COALESCE($8, false), COALESCE($9::timestamptz, now()),
               COALESCE($10, true))
       ON CONFLICT (id) DO NOTHING RETURNING id`,
      [
        f.id,
        project,
        f.name,
        JSON.stringify(f.stages ?? []),
        f.target_tier ?? null,
        f.done_description ?? null,
        f.active ?? null,
        f.closing ?? null,
        f.created_at ?? null,
        f.complete_before_done ?? null,
      ],
    );
    return rows.length === 1;
  }

  async insertEnvironment(project: string, e: DocEnvironment, manager: EntityManager): Promise<void> {
    await manager.query(
      `INSERT INTO environments (project, name, tier, flow_id, created_at, retired_at)
       VALUES ($1, $2, $3, $4, COALESCE($5::timestamptz, now()), $6::timestamptz)`,
      [project, e.name, e.tier ?? null, e.flow_id ?? null, e.created_at ?? null, e.retired_at ?? null],
    );
  }

  async insertRun(project: string, r: DocRun, items: number[], manager: EntityManager): Promise<string | null> {
    const rows: { id: string }[] = await manager.query(
      `INSERT INTO deployment_runs (id, project, flow_id, environment, status, current_stage, stage_index, stage_count,
                                    carried_work, qa_summary, blocked_reason, started_at, finished_at)
       VALUES (COALESCE($1, gen_random_uuid()::text), $2, $3, $4, COALESCE($5, 'running'), $6, COALESCE($7, 0),
               COALESCE($8, 0), jsonb_build_object('items', to_jsonb($9::int[])), $10, $11,
               COALESCE($12::timestamptz, now()), $13::timestamptz)
       ON CONFLICT (id) DO NOTHING RETURNING id`,
      [
        r.id ?? null,
        project,
        r.flow_id ?? null,
        r.environment,
        r.status ?? null,
        r.current_stage ?? null,
        r.stage_index ?? null,
        r.stage_count ?? null,
        items,
        r.qa_summary ?? null,
        r.blocked_reason ?? null,
        r.started_at ?? null,
        r.finished_at ?? null,
      ],
    );
    return rows[0]?.id ?? null;
  }
}
