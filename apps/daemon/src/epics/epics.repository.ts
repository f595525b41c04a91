import { Injectable } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';

import { InjectDataSource } from '../common/inject-data-source';
import { affected, isoUtc } from '../database/backlog-sql';
import { ChainRow, EpicTaskRow, NoteWire, TaskFileWire } from './dto/epics.dto';

export const TASK_SELECT = `
  SELECT task_num, title, worktree, context_estimate, dependencies, status, dispatch_attempts, max_attempts, body,
         github_issue, branch, worktree_path, agent_id, ${isoUtc('last_heartbeat')} AS last_heartbeat
    FROM epic_tasks`;

export const CHAIN_SELECT = `
  SELECT worktree, worktree_path, queue, current_index, current_task, current_attempt, max_attempts, no_chain,
         ${isoUtc('started_at')} AS started_at, ${isoUtc('last_updated')} AS last_updated
    FROM epic_dispatch_chains`;

// Task columns a write may set; names come from this list, never from input.
export const TASK_COLUMNS = [
  'title',
  'worktree',
  'context_estimate',
  'dependencies',
  'status',
  'dispatch_attempts',
  'body',
  'github_issue',
  'branch',
  'worktree_path',
  'max_attempts',
  'agent_id',
] as const;

@Injectable()
export class EpicsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  async lockEpic(
    id: number,
    manager: EntityManager,
  ): Promise<{ workflow_id: string; policy: Record<string, unknown> }> {
    const rows: { workflow_id: string; policy: Record<string, unknown> }[] = await manager.query(
      `SELECT i.workflow_id, p.policy FROM items i JOIN projects p ON p.id = i.project WHERE i.id = $1 FOR UPDATE OF i`,
      [id],
    );
    return rows[0];
  }

  async epicInfo(id: number): Promise<{ workflow_id: string }> {
    const rows: { workflow_id: string }[] = await this.dataSource.query(`SELECT workflow_id FROM items WHERE id = $1`, [
      id,
    ]);
    return rows[0];
  }

  tasks(epicId: number, manager = this.dataSource.manager): Promise<EpicTaskRow[]> {
    return manager.query(`${TASK_SELECT} WHERE epic_id = $1 ORDER BY task_num`, [epicId]);
  }

  async task(epicId: number, num: number, manager = this.dataSource.manager): Promise<EpicTaskRow | null> {
    const rows: EpicTaskRow[] = await manager.query(`${TASK_SELECT} WHERE epic_id = $1 AND task_num = $2`, [
      epicId,
      num,
    ]);
    return rows[0] ?? null;
  }

  async insertTask(epicId: number, num: number, values: Record<string, unknown>, manager: EntityManager) {
    const columns = ['epic_id', 'task_num'];
    const params: unknown[] = [epicId, num];
    for (const column of TASK_COLUMNS) {
      if (values[column] === undefined) continue;
      columns.push(column);
      params.push(values[column]);
    }
    await manager.query(
      `INSERT INTO epic_tasks (${columns.join(', ')}) VALUES (${columns.map((_c, i) => `$${i + 1}`).join(', ')})`,
      params,
    );
  }

  async updateTask(
    epicId: number,
    num: number,
    values: Record<string, unknown>,
    heartbeat: boolean,
    manager: EntityManager,
  ): Promise<void> {
    const sets: string[] = [];
    const params: unknown[] = [epicId, num];
    for (const column of TASK_COLUMNS) {
      if (values[column] === undefined) continue;
      params.push(values[column]);
      sets.push(`${column} = $${params.length}`);
    }
    if (heartbeat) sets.push('last_heartbeat = now()');
    if (sets.length === 0) return;
    await manager.query(`UPDATE epic_tasks SET ${sets.join(', ')} WHERE epic_id = $1 AND task_num = $2`, params);
  }

  // One conditional statement: an attempt is counted only while attempts remain.
  async countDispatch(epicId: number, num: number): Promise<boolean> {
    const { count } = affected(
      await this.dataSource.query(
        `UPDATE epic_tasks SET dispatch_attempts = dispatch_attempts + 1
          WHERE epic_id = $1 AND task_num = $2 AND dispatch_attempts < max_attempts`,
        [epicId, num],
      ),
    );
    return count > 0;
  }

  files(epicId: number, manager = this.dataSource.manager): Promise<TaskFileWire[]> {
    return manager.query(
      `SELECT task_num, file_path, action FROM epic_task_files WHERE epic_id = $1 ORDER BY task_num, id`,
      [epicId],
    );
  }

  async insertFile(
    epicId: number,
    num: number,
    path: string,
    action: string | null,
    manager = this.dataSource.manager,
  ) {
    await manager.query(`INSERT INTO epic_task_files (epic_id, task_num, file_path, action) VALUES ($1, $2, $3, $4)`, [
      epicId,
      num,
      path,
      action,
    ]);
  }

  chains(epicId: number, manager = this.dataSource.manager): Promise<ChainRow[]> {
    return manager.query(`${CHAIN_SELECT} WHERE epic_id = $1 ORDER BY worktree`, [epicId]);
  }

  async upsertChain(epicId: number, worktree: string, values: Record<string, unknown>, manager: EntityManager) {
    await manager.query(
      `INSERT INTO epic_dispatch_chains (epic_id, worktree, worktree_path, queue, current_index, current_task,
                                         current_attempt, max_attempts, no_chain, started_at, last_updated)
       VALUES ($1, $2, $3, $4, COALESCE($5, 0), $6, COALESCE($7, 1), COALESCE($8, 5), COALESCE($9, 0), now(), now())
       ON CONFLICT (epic_id, worktree) DO UPDATE SET
         worktree_path = COALESCE($3, epic_dispatch_chains.worktree_path),
         queue = COALESCE($4, epic_dispatch_chains.queue),
         current_index = COALESCE($5, epic_dispatch_chains.current_index),
         current_task = COALESCE($6, epic_dispatch_chains.current_task),
         current_attempt = COALESCE($7, epic_dispatch_chains.current_attempt),
         max_attempts = COALESCE($8, epic_dispatch_chains.max_attempts),
         no_chain = COALESCE($9, epic_dispatch_chains.no_chain),
         last_updated = now()`,
      [
        epicId,
        worktree,
        values.worktree_path ?? null,
        values.queue ?? null,
        values.current_index ?? null,
        values.current_task ?? null,
        values.current_attempt ?? null,
        values.max_attempts ?? null,
        values.no_chain ?? null,
      ],
    );
  }

  notes(epicId: number, task: number | null, manager = this.dataSource.manager): Promise<NoteWire[]> {
    return manager.query(
      `SELECT task_num, note_num, body, author, ${isoUtc('created_at')} AS created_at
         FROM epic_progress_notes WHERE epic_id = $1 AND ($2::int IS NULL OR task_num = $2)
        ORDER BY task_num, note_num`,
      [epicId, task],
    );
  }

  // Runs under the epic's row lock, so note numbers per task are gap-free and unique.
  async insertNote(epicId: number, num: number, body: string, author: string, manager: EntityManager): Promise<number> {
    const rows: { note_num: number }[] = await manager.query(
      `INSERT INTO epic_progress_notes (epic_id, task_num, note_num, body, author)
       SELECT $1, $2, COALESCE(max(note_num), 0) + 1, $3, $4 FROM epic_progress_notes WHERE epic_id = $1 AND task_num = $2
       RETURNING note_num`,
      [epicId, num, body, author],
    );
    return rows[0].note_num;
  }
}
