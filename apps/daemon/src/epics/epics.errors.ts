import { HttpStatus } from '@nestjs/common';

import { errorFactory, ErrorStatusTable } from '../common/domain-error';

export enum EpicErrorCode {
  EpicTaskNotFound = 'epic_task_not_found',
  UnknownTask = 'unknown_task',
  DependencyCycle = 'dependency_cycle',
  NotAnEpic = 'not_an_epic',
  EpicTaskExists = 'epic_task_exists',
  MaxAttemptsReached = 'max_attempts_reached',
  InvalidValue = 'invalid_value',
}

export const EPIC_ERROR_STATUS: ErrorStatusTable<EpicErrorCode> = {
  [EpicErrorCode.EpicTaskNotFound]: HttpStatus.NOT_FOUND,
  [EpicErrorCode.UnknownTask]: HttpStatus.BAD_REQUEST,
  [EpicErrorCode.DependencyCycle]: HttpStatus.CONFLICT,
  [EpicErrorCode.NotAnEpic]: HttpStatus.CONFLICT,
  [EpicErrorCode.EpicTaskExists]: HttpStatus.CONFLICT,
  [EpicErrorCode.MaxAttemptsReached]: HttpStatus.CONFLICT,
  [EpicErrorCode.InvalidValue]: HttpStatus.BAD_REQUEST,
};

const epicError = errorFactory(EPIC_ERROR_STATUS);

export const taskNotFound = (epic: string, num: number) =>
  epicError(EpicErrorCode.EpicTaskNotFound, `${epic} has no task ${num}`, { epic, task_num: num });

export const unknownTaskDependencies = (epic: string, unknown: number[]) =>
  epicError(
    EpicErrorCode.UnknownTask,
    `${epic}: task dependencies must name other tasks of the epic (${unknown.join(', ')})`,
    { unknown },
  );

export const unknownQueuedTasks = (epic: string, unknown: number[]) =>
  epicError(EpicErrorCode.UnknownTask, `${epic}: queue names unknown tasks ${unknown.join(', ')}`, { unknown });

export const taskCycle = (epic: string, cycle: number[]) =>
  epicError(EpicErrorCode.DependencyCycle, `${epic}: task dependencies would form a cycle ${cycle.join(' → ')}`, {
    cycle,
  });

export const notAnEpic = (ref: string, workflow: string) =>
  epicError(EpicErrorCode.NotAnEpic, `${ref} is not an epic (workflow ${workflow})`);

export const taskExists = (epic: string, num: number) =>
  epicError(EpicErrorCode.EpicTaskExists, `${epic} already has task ${num}`);

export const maxAttemptsReached = (epic: string, num: number, attempts: number, max: number) =>
  epicError(EpicErrorCode.MaxAttemptsReached, `${epic} task ${num} has used all ${max} dispatch attempts`, {
    dispatch_attempts: attempts,
    max_attempts: max,
  });

export const invalidWorktree = () =>
  epicError(EpicErrorCode.InvalidValue, 'worktree must be 1..500 characters', { field: 'worktree' });
