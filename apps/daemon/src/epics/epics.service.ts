import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

import {
  EpicChainsResponse,
  EpicFilesResponse,
  EpicNotesResponse,
  EpicTasksResponse,
  EpicTaskWire,
} from '@app/contracts';
import { DependencyPair, findCycleIfAdded } from '@app/core';

import { AuthenticatedActor } from '../auth/actor';
import { assertTitle } from '../items/items.service';
import { ProjectAccessService } from '../projects/project-access.service';
import type { ResolvedRef } from '../refs/refs.service';
import {
  AddNoteDto,
  AddTaskFileDto,
  ChainWire,
  CreateEpicTaskDto,
  EpicTaskRow,
  NoteWire,
  parseTaskNumbers,
  toChainResponse,
  toTaskResponse,
  UpdateEpicTaskDto,
  UpsertChainDto,
} from './dto/epics.dto';
import {
  invalidWorktree,
  maxAttemptsReached,
  notAnEpic,
  taskCycle,
  taskExists,
  taskNotFound,
  unknownQueuedTasks,
  unknownTaskDependencies,
} from './epics.errors';
import { EpicsRepository } from './epics.repository';

export const EPIC_WORKFLOW = 'epic';

export function checkTaskDependencies(
  epic: string,
  tasks: readonly EpicTaskRow[],
  num: number,
  deps: number[],
): string {
  const known = new Set(tasks.map((t) => t.task_num));
  const unknown = deps.filter((d) => !known.has(d) || d === num);
  if (unknown.length > 0) {
    throw unknownTaskDependencies(epic, unknown);
  }
  const pairs: DependencyPair[] = tasks
    .filter((t) => t.task_num !== num)
    .flatMap((t) => parseTaskNumbers(t.dependencies).map((d) => ({ blocker: d, dependent: t.task_num })));
  for (const dep of deps) {
    const cycle = findCycleIfAdded(pairs, { blocker: dep, dependent: num });
    if (cycle) {
      throw taskCycle(epic, cycle);
    }
    pairs.push({ blocker: dep, dependent: num });
  }
  return [...new Set(deps)].join(',');
}

@Injectable()
export class EpicsService {
  constructor(
    private readonly repository: EpicsRepository,
    private readonly access: ProjectAccessService,
  ) {}

  private async epic(actor: AuthenticatedActor, ref: string): Promise<ResolvedRef> {
    const epic = await this.access.resolveItem(actor, ref);
    const info = await this.repository.epicInfo(epic.id);
    if (info.workflow_id !== EPIC_WORKFLOW) {
      throw notAnEpic(epic.ref, info.workflow_id);
    }
    return epic;
  }

  private async lock(epic: ResolvedRef, manager: EntityManager) {
    return this.repository.lockEpic(epic.id, manager);
  }

  async overview(actor: AuthenticatedActor, ref: string) {
    const epic = await this.epic(actor, ref);
    const [tasks, files, chains, notes] = await Promise.all([
      this.repository.tasks(epic.id),
      this.repository.files(epic.id),
      this.repository.chains(epic.id),
      this.repository.notes(epic.id, null),
    ]);
    return {
      epic: epic.ref,
      tasks: tasks.map((t) => toTaskResponse(epic.ref, t)),
      files,
      chains: chains.map((c) => toChainResponse(epic.ref, c)),
      notes,
    };
  }

  async tasks(actor: AuthenticatedActor, ref: string): Promise<EpicTasksResponse> {
    const epic = await this.epic(actor, ref);
    return { epic: epic.ref, tasks: (await this.repository.tasks(epic.id)).map((t) => toTaskResponse(epic.ref, t)) };
  }

  async task(actor: AuthenticatedActor, ref: string, num: number): Promise<EpicTaskWire> {
    const epic = await this.epic(actor, ref);
    const row = await this.repository.task(epic.id, num);
    if (!row) throw taskNotFound(epic.ref, num);
    return toTaskResponse(epic.ref, row);
  }

  async createTask(actor: AuthenticatedActor, ref: string, dto: CreateEpicTaskDto): Promise<EpicTaskWire> {
    const epic = await this.epic(actor, ref);
    const num = await this.repository.transaction(async (manager) => {
      const { policy } = await this.lock(epic, manager);
      assertTitle(dto.title, policy);
      const tasks = await this.repository.tasks(epic.id, manager);
      const num = dto.task_num ?? tasks.reduce((max, t) => Math.max(max, t.task_num), 0) + 1;
      if (tasks.some((t) => t.task_num === num)) {
        throw taskExists(epic.ref, num);
      }
      const { dependencies, ...rest } = dto;
      const values: Record<string, unknown> = { ...rest };
      delete values.task_num;
      if (dependencies) values.dependencies = checkTaskDependencies(epic.ref, tasks, num, dependencies);
      await this.repository.insertTask(epic.id, num, values, manager);
      return num;
    });
    return toTaskResponse(epic.ref, (await this.repository.task(epic.id, num))!);
  }

  async updateTask(actor: AuthenticatedActor, ref: string, num: number, dto: UpdateEpicTaskDto): Promise<EpicTaskWire> {
    const epic = await this.epic(actor, ref);
    await this.repository.transaction(async (manager) => {
      const { policy } = await this.lock(epic, manager);
      const tasks = await this.repository.tasks(epic.id, manager);
      if (!tasks.some((t) => t.task_num === num)) throw taskNotFound(epic.ref, num);
      if (dto.title !== undefined) assertTitle(dto.title, policy);
      const { dependencies, heartbeat, ...rest } = dto;
      const values: Record<string, unknown> = { ...rest };
      if (dependencies) values.dependencies = checkTaskDependencies(epic.ref, tasks, num, dependencies);
      await this.repository.updateTask(epic.id, num, values, heartbeat === true, manager);
    });
    return toTaskResponse(epic.ref, (await this.repository.task(epic.id, num))!);
  }

  async dispatch(actor: AuthenticatedActor, ref: string, num: number): Promise<EpicTaskWire> {
    const epic = await this.epic(actor, ref);
    const row = await this.repository.task(epic.id, num);
    if (!row) throw taskNotFound(epic.ref, num);
    if (!(await this.repository.countDispatch(epic.id, num))) {
      throw maxAttemptsReached(epic.ref, num, row.dispatch_attempts, row.max_attempts);
    }
    return toTaskResponse(epic.ref, (await this.repository.task(epic.id, num))!);
  }

  async files(actor: AuthenticatedActor, ref: string): Promise<EpicFilesResponse> {
    const epic = await this.epic(actor, ref);
    return { epic: epic.ref, files: await this.repository.files(epic.id) };
  }

  async addFile(actor: AuthenticatedActor, ref: string, num: number, dto: AddTaskFileDto) {
    const epic = await this.epic(actor, ref);
    if (!(await this.repository.task(epic.id, num))) throw taskNotFound(epic.ref, num);
    await this.repository.insertFile(epic.id, num, dto.file_path, dto.action ?? null);
    return { epic: epic.ref, files: await this.repository.files(epic.id) };
  }

  async chains(actor: AuthenticatedActor, ref: string): Promise<EpicChainsResponse> {
    const epic = await this.epic(actor, ref);
    return { epic: epic.ref, chains: (await this.repository.chains(epic.id)).map((c) => toChainResponse(epic.ref, c)) };
  }

  async upsertChain(actor: AuthenticatedActor, ref: string, worktree: string, dto: UpsertChainDto): Promise<ChainWire> {
    if (worktree.length === 0 || worktree.length > 500) {
      throw invalidWorktree();
    }
    const epic = await this.epic(actor, ref);
    await this.repository.transaction(async (manager) => {
      await this.lock(epic, manager);
      const values: Record<string, unknown> = { ...dto };
      if (dto.queue) {
        const known = new Set((await this.repository.tasks(epic.id, manager)).map((t) => t.task_num));
        const unknown = dto.queue.filter((n) => !known.has(n));
        if (unknown.length > 0) {
          throw unknownQueuedTasks(epic.ref, unknown);
        }
        values.queue = JSON.stringify(dto.queue);
      }
      await this.repository.upsertChain(epic.id, worktree, values, manager);
    });
    const chain = (await this.repository.chains(epic.id)).find((c) => c.worktree === worktree)!;
    return toChainResponse(epic.ref, chain);
  }

  async notes(actor: AuthenticatedActor, ref: string, task?: number): Promise<EpicNotesResponse> {
    const epic = await this.epic(actor, ref);
    return { epic: epic.ref, notes: await this.repository.notes(epic.id, task ?? null) };
  }

  async addNote(actor: AuthenticatedActor, ref: string, num: number, dto: AddNoteDto): Promise<NoteWire> {
    const epic = await this.epic(actor, ref);
    const noteNum = await this.repository.transaction(async (manager) => {
      await this.lock(epic, manager);
      if (!(await this.repository.task(epic.id, num, manager))) throw taskNotFound(epic.ref, num);
      return this.repository.insertNote(epic.id, num, dto.body, dto.author ?? actor.name, manager);
    });
    return (await this.repository.notes(epic.id, num)).find((n) => n.note_num === noteNum)!;
  }
}
