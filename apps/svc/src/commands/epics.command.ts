import { Command, Option } from 'commander';

import { CONTEXT_ESTIMATES, EPIC_TASK_STATUSES, EpicTaskWire, FILE_ACTIONS } from '@app/contracts';

import { apiOf } from '../context';
import { action, output, printKeyValues, printTable } from '../output';
import { parseIntOption, printText, readText } from './backlog-cli';

interface TaskOptions {
  num?: number;
  title?: string;
  worktree?: string;
  estimate?: string;
  dependsOn?: string;
  status?: string;
  bodyFile?: string;
  branch?: string;
  worktreePath?: string;
  githubIssue?: string;
  maxAttempts?: number;
  agent?: string;
  dispatchAttempts?: number;
  heartbeat?: boolean;
}

function taskBody(o: TaskOptions): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (o.num !== undefined) body.task_num = o.num;
  if (o.title !== undefined) body.title = o.title;
  if (o.worktree !== undefined) body.worktree = o.worktree;
  if (o.estimate !== undefined) body.context_estimate = o.estimate;
  if (o.dependsOn !== undefined) body.dependencies = o.dependsOn.split(',').filter(Boolean).map(Number);
  if (o.status !== undefined) body.status = o.status;
  if (o.bodyFile !== undefined) body.body = readText(o.bodyFile);
  if (o.branch !== undefined) body.branch = o.branch;
  if (o.worktreePath !== undefined) body.worktree_path = o.worktreePath;
  if (o.githubIssue !== undefined) body.github_issue = o.githubIssue;
  if (o.maxAttempts !== undefined) body.max_attempts = o.maxAttempts;
  if (o.agent !== undefined) body.agent_id = o.agent;
  if (o.dispatchAttempts !== undefined) body.dispatch_attempts = o.dispatchAttempts;
  if (o.heartbeat) body.heartbeat = true;
  return body;
}

function taskOptions(command: Command): Command {
  return command
    .option('--title <title>', 'title (capped by the project policy)')
    .option('--worktree <name>', 'worktree')
    .addOption(new Option('--estimate <size>', 'context estimate').choices(CONTEXT_ESTIMATES))
    .option('--depends-on <nums>', 'task numbers this task waits on, comma-separated')
    .addOption(new Option('--status <status>', 'task status').choices(EPIC_TASK_STATUSES))
    .option('--body-file <path>', 'task body from a file')
    .option('--branch <branch>', 'branch')
    .option('--worktree-path <path>', 'worktree path')
    .option('--github-issue <issue>', 'external issue')
    .option('--max-attempts <n>', 'dispatch attempts allowed (default 5)', parseIntOption)
    .option('--agent <id>', 'agent id');
}

function renderTasks(b: { epic: string; tasks: EpicTaskWire[] }): void {
  printTable(
    ['task', 'title', 'status', 'depends on', 'size', 'attempts'],
    b.tasks.map((t) => [
      t.task_num,
      t.title,
      t.status,
      t.dependencies.join(','),
      t.context_estimate,
      `${t.dispatch_attempts}/${t.max_attempts}`,
    ]),
  );
}

function renderTask(t: EpicTaskWire): void {
  printKeyValues(Object.entries(t));
}

export function registerEpicsCommand(program: Command): void {
  const epics = program.command('epics').description('epic tasks, their files, dispatch chains and progress notes');

  epics
    .command('show <ref>')
    .description('everything recorded for an epic')
    .action(
      action(async (epic: string, _o: unknown, command: Command) => {
        const body = await apiOf(command).epic(epic);
        output(command, body, renderTasks);
      }),
    );

  const tasks = epics.command('tasks').description('epic tasks');
  tasks
    .command('list <ref>')
    .description("list an epic's tasks")
    .action(
      action(async (epic: string, _o: unknown, command: Command) => {
        output(command, await apiOf(command).epicTasks(epic), renderTasks);
      }),
    );
  tasks
    .command('get <ref> <num>')
    .description('show one task')
    .action(
      action(async (epic: string, num: string, _o: unknown, command: Command) => {
        output(command, await apiOf(command).epicTask(epic, num), renderTask);
      }),
    );
  taskOptions(
    tasks
      .command('add <ref>')
      .description('add a task (number: next free unless --num)')
      .option('--num <n>', 'task number', parseIntOption),
  ).action(
    action(async (epic: string, options: TaskOptions, command: Command) => {
      output(command, await apiOf(command).createEpicTask(epic, taskBody(options)), renderTask);
    }),
  );
  taskOptions(
    tasks
      .command('update <ref> <num>')
      .description('change a task')
      .option('--dispatch-attempts <n>', 'set the attempt counter', parseIntOption)
      .option('--heartbeat', 'stamp last_heartbeat now'),
  ).action(
    action(async (epic: string, num: string, options: TaskOptions, command: Command) => {
      const body = await apiOf(command).updateEpicTask(epic, num, taskBody(options));
      output(command, body, renderTask);
    }),
  );
  tasks
    .command('dispatch <ref> <num>')
    .description('count one dispatch attempt (refused once max_attempts is reached)')
    .action(
      action(async (epic: string, num: string, _o: unknown, command: Command) => {
        const body = await apiOf(command).dispatchEpicTask(epic, num);
        output(command, body, renderTask);
      }),
    );

  const files = epics.command('files').description('files a task touches');
  files
    .command('add <ref> <num> <path>')
    .description('record a file of a task')
    .addOption(new Option('--action <action>', 'what the task does to it').choices(FILE_ACTIONS))
    .action(
      action(async (epic: string, num: string, path: string, options: { action?: string }, command: Command) => {
        const body = await apiOf(command).addEpicTaskFile(epic, num, {
          file_path: path,
          ...(options.action ? { action: options.action } : {}),
        });
        output(command, body, (b) =>
          printTable(
            ['task', 'file', 'action'],
            b.files.map((f) => [f.task_num, f.file_path, f.action]),
          ),
        );
      }),
    );
  files
    .command('list <ref>')
    .description("list an epic's task files")
    .action(
      action(async (epic: string, _o: unknown, command: Command) => {
        const body = await apiOf(command).epicFiles(epic);
        output(command, body, (b) =>
          printTable(
            ['task', 'file', 'action'],
            b.files.map((f) => [f.task_num, f.file_path, f.action]),
          ),
        );
      }),
    );

  const chains = epics.command('chains').description('dispatch chains, one per worktree');
  chains
    .command('set <ref> <worktree>')
    .description('create or update the dispatch chain of a worktree')
    .option('--queue <nums>', 'task numbers in order, comma-separated')
    .option('--worktree-path <path>', 'worktree path')
    .option('--current-index <n>', 'position in the queue', parseIntOption)
    .option('--current-task <task>', 'current task')
    .option('--current-attempt <n>', 'current attempt', parseIntOption)
    .option('--max-attempts <n>', 'attempts allowed', parseIntOption)
    .option('--no-chain', 'do not chain to the next task')
    .action(
      action(
        async (
          epic: string,
          worktree: string,
          o: {
            queue?: string;
            worktreePath?: string;
            currentIndex?: number;
            currentTask?: string;
            currentAttempt?: number;
            maxAttempts?: number;
            chain?: boolean;
          },
          command: Command,
        ) => {
          const body = await apiOf(command).setEpicChain(epic, worktree, {
            ...(o.queue !== undefined ? { queue: o.queue.split(',').filter(Boolean).map(Number) } : {}),
            ...(o.worktreePath !== undefined ? { worktree_path: o.worktreePath } : {}),
            ...(o.currentIndex !== undefined ? { current_index: o.currentIndex } : {}),
            ...(o.currentTask !== undefined ? { current_task: o.currentTask } : {}),
            ...(o.currentAttempt !== undefined ? { current_attempt: o.currentAttempt } : {}),
            ...(o.maxAttempts !== undefined ? { max_attempts: o.maxAttempts } : {}),
            ...(o.chain === false ? { no_chain: 1 } : {}),
          });
          output(command, body, (b) => printKeyValues(Object.entries(b)));
        },
      ),
    );
  chains
    .command('list <ref>')
    .description("list an epic's dispatch chains")
    .action(
      action(async (epic: string, _o: unknown, command: Command) => {
        const body = await apiOf(command).epicChains(epic);
        output(command, body, (b) =>
          printTable(
            ['worktree', 'queue', 'index'],
            b.chains.map((c) => [c.worktree, c.queue.join(','), c.current_index]),
          ),
        );
      }),
    );

  const notes = epics.command('notes').description('progress notes per task');
  notes
    .command('add <ref> <num>')
    .description('append a progress note to a task')
    .requiredOption('--body <text>', 'the note')
    .option('--author <name>', 'author (default: you)')
    .action(
      action(async (epic: string, num: string, o: { body: string; author?: string }, command: Command) => {
        const body = await apiOf(command).addEpicNote(epic, num, {
          body: o.body,
          ...(o.author ? { author: o.author } : {}),
        });
        output(command, body, (b) => printText(`note ${b.task_num}.${b.note_num} added`));
      }),
    );
  notes
    .command('list <ref>')
    .description("list an epic's progress notes")
    .option('--task <n>', 'one task only', parseIntOption)
    .action(
      action(async (epic: string, o: { task?: number }, command: Command) => {
        const body = await apiOf(command).epicNotes(epic, { task: o.task });
        output(command, body, (b) =>
          printTable(
            ['task', 'note', 'author', 'body'],
            b.notes.map((n) => [n.task_num, n.note_num, n.author, n.body]),
          ),
        );
      }),
    );
}
