import { Command, Option } from 'commander';

import {
  ItemCommentWire,
  ItemDetailWire,
  ItemListWire,
  ItemWire,
  PRIORITIES,
  RESOLUTIONS,
} from '@app/contracts/backlog';

import { tone } from '../color';
import { allProjectsOption, apiOf, projectOption, scopedProject } from '../context';
import { action, CliError, output, printKeyValues, printTable } from '../output';
import { FieldValueOptions, fieldValueSource } from './field-value';
import { relativeTime } from '../time';
import { addDependencyCommands } from './dependencies.command';
import { addItemHistoryCommand } from './history.command';
import { collect, jsonObjectOption, parseIntOption, printText, readStdin, readText, text } from './backlog-cli';

interface CreateOptions {
  project: string;
  title: string;
  workflow?: string;
  status?: string;
  priority?: string;
  owner?: string;
  bodyFile?: string;
  specFile?: string;
  set?: string[];
  posture?: Record<string, unknown>;
  frozen?: boolean;
}

export function renderItem(item: ItemWire | ItemDetailWire): void {
  printKeyValues([
    ['item', item.item_id],
    ['title', item.title],
    ['project', item.project],
    ['workflow', `${item.workflow_id} v${item.workflow_version}`],
    ['status', item.status],
    ['priority', item.priority],
    ['blocked', item.blocked ? `yes: ${item.blocked_reason ?? ''}` : 'no'],
    ['frozen', item.frozen ? 'yes' : 'no'],
    ['owner', item.owner],
    ['resolution', item.resolution ? `${item.resolution} ${item.resolution_ref ?? ''}`.trim() : null],
    ['updated', item.updated_at],
  ]);
  if (item.body) process.stdout.write(`\n${item.body}\n`);
}

function commentHeading(c: ItemCommentWire): string {
  const who = c.author ?? 'unknown';
  const via = c.session_id !== null ? ` (session ${c.session_id}${c.harness ? `, ${c.harness}` : ''})` : '';
  return `${who}${via} · ${relativeTime(c.created_at)}`;
}

function renderComments(comments: readonly ItemCommentWire[]): void {
  for (const c of comments) process.stdout.write(`\n${commentHeading(c)}\n${indent(c.body)}\n`);
}

const indent = (body: string) =>
  body
    .replace(/\n+$/, '')
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');

export function renderItemDetail(item: ItemDetailWire): void {
  renderItem(item);
  const count = item.comment_count ?? 0;
  if (count === 0) return;
  const shown = item.comments ?? [];
  const more =
    count > shown.length ? ` (the newest ${shown.length}; svc items comments ${item.item_id} lists all)` : '';
  process.stdout.write(`\ncomments: ${count}${more}\n`);
  renderComments(shown);
}

function renderItems(list: ItemListWire): void {
  printTable(
    [
      { header: 'item', keep: true },
      { header: 'title', priority: 5, flex: true },
      { header: 'status', priority: 3 },
      { header: 'priority', priority: 2 },
      { header: 'state', priority: 4 },
    ],
    // one vocabulary with the frontier: frozen, blocked (runnable is the frontier's to say)
    list.items.map((i) => [
      i.item_id,
      i.title,
      i.status,
      tone(i.priority),
      [i.frozen ? tone('frozen') : '', i.blocked ? tone('blocked') : ''].filter(Boolean).join(', '),
    ]),
  );
  process.stdout.write(`${list.items.length} of ${list.total}\n`);
}

function simple(items: Command, name: string, description: string, path: string): void {
  items
    .command(`${name} <ref>`)
    .description(description)
    .action(
      action(async (item: string, _options: unknown, command: Command) => {
        output(command, await apiOf(command).itemAction(item, path), renderItem);
      }),
    );
}

export function registerItemsCommand(program: Command): void {
  const items = program.command('items').description('backlog items: create, list, read, update, move, block');

  items
    .command('create')
    .description('create an item, pinned to the current version of its workflow')
    .requiredOption('--project <project>', 'project id')
    .requiredOption('--title <title>', 'title (capped by the project policy)')
    .option('--workflow <workflow>', 'workflow id (default issue)')
    .option('--status <stage>', 'start at this stage (default: the initial stage)')
    .addOption(new Option('--priority <priority>', 'priority').choices(PRIORITIES))
    .option('--owner <actor-id>', 'owner actor id')
    .option('--body-file <path>', 'body text from a file')
    .option('--spec-file <path>', 'spec from a file')
    .option('--posture <json>', 'workflow_posture JSON object', jsonObjectOption)
    .option('--frozen', 'create frozen')
    .option('--set <field=value>', 'any other text column, e.g. github_issue=#12 (repeatable)', collect)
    .action(
      action(async (options: CreateOptions, command: Command) => {
        const body: Record<string, unknown> = { project: options.project, title: options.title };
        for (const pair of options.set ?? []) {
          const at = pair.indexOf('=');
          if (at <= 0) throw new CliError('invalid_argument', `--set expects field=value, got ${pair}`);
          body[pair.slice(0, at)] = pair.slice(at + 1);
        }
        if (options.workflow) body.workflow = options.workflow;
        if (options.status) body.status = options.status;
        if (options.priority) body.priority = options.priority;
        if (options.owner) body.owner = options.owner;
        if (options.bodyFile) body.body = readText(options.bodyFile);
        if (options.specFile) body.spec = readText(options.specFile);
        if (options.posture) body.workflow_posture = options.posture;
        if (options.frozen) body.frozen = 1;
        output(command, await apiOf(command).createItem(body), renderItem);
      }),
    );

  items
    .command('list')
    .description('list items (filters combine)')
    .addOption(projectOption('only this project'))
    .addOption(allProjectsOption())
    .option('--status <stages>', 'stage id, or several comma-separated')
    .addOption(new Option('--priority <priority>', 'priority').choices(PRIORITIES))
    .addOption(new Option('--blocked <0|1>', 'operator block flag').choices(['0', '1']))
    .addOption(new Option('--frozen <0|1>', 'frozen flag').choices(['0', '1']))
    .option('--workflow <workflow>', 'workflow id')
    .option('--limit <n>', 'page size (default 100, at most 1000)', parseIntOption)
    .option('--offset <n>', 'skip this many', parseIntOption)
    .action(
      action(async (options: Record<string, string | number | undefined>, command: Command) => {
        const query = Object.fromEntries(
          Object.entries(options).filter(([k]) => k !== 'json' && k !== 'project' && k !== 'allProjects'),
        );
        const project = scopedProject(options.project as string | undefined, { allProjects: !!options.allProjects });
        if (project) query.project = project;
        output(command, await apiOf(command).items(query), renderItems);
      }),
    );

  items
    .command('get <ref> [field]')
    .alias('show')
    .description('show an item with its newest comments, or one field of it (any column, body, sections, or db-claim)')
    .action(
      action(async (item: string, field: string | undefined, _options: unknown, command: Command) => {
        const api = apiOf(command);
        if (field === undefined) {
          output(command, await api.item(item), renderItemDetail);
        } else if (field === 'db-claim') {
          output(command, await api.dbClaim(item), (b) => printKeyValues(Object.entries(b)));
        } else {
          const body = await api.itemField(item, field);
          output(command, body, (b) => printText(text(b.value)));
        }
      }),
    );

  items
    .command('update <ref> <field> [value]')
    .description('write one field: structured fields (spec, design_spec, ...) and plain columns')
    .option('--stdin', 'read the value from standard input')
    .option('--value <text>', 'the value (same as the value argument; for values that start with -)')
    .option('--clear', 'set the field to null')
    .action(
      action(
        async (
          item: string,
          field: string,
          positional: string | undefined,
          options: FieldValueOptions,
          command: Command,
        ) => {
          const source = fieldValueSource(positional, options);
          const value = source.kind === 'clear' ? null : source.kind === 'stdin' ? await readStdin() : source.value;
          const body = await apiOf(command).setItemField(item, field, {
            value,
          });
          output(command, body, renderItem);
        },
      ),
    );

  items
    .command('status <ref> <stage>')
    .description("move an item to a stage of its pinned workflow (the stage's gates must pass)")
    .option('--force', "a project admin's override of another session's claim (recorded; the claim is released)")
    .action(
      action(async (item: string, stage: string, options: { force?: boolean }, command: Command) => {
        const body = await apiOf(command).setItemStatus(item, stage, options.force === true);
        output(command, body, renderItem);
      }),
    );

  items
    .command('block <ref>')
    .description('set the operator block flag (status is preserved)')
    .requiredOption('--reason <text>', 'why it is blocked')
    .action(
      action(async (item: string, options: { reason: string }, command: Command) => {
        const body = await apiOf(command).blockItem(item, {
          reason: options.reason,
        });
        output(command, body, renderItem);
      }),
    );
  simple(items, 'unblock', 'clear the operator block flag (status is preserved)', 'unblock');
  simple(items, 'freeze', 'freeze an item (it leaves the active frontier)', 'freeze');
  simple(items, 'unfreeze', 'unfreeze an item', 'unfreeze');

  items
    .command('resolve <ref>')
    .description('resolve an item: completed (→ done), duplicate or wontfix (→ cancelled)')
    .addOption(new Option('--resolution <resolution>', 'resolution').choices(RESOLUTIONS).makeOptionMandatory())
    .option('--duplicate-of <ref>', 'the item this duplicates (resolution_ref)')
    .option('--comment <text>', 'resolution comment')
    .option('--status <stage>', 'terminal stage to move to instead of the default')
    .action(
      action(
        async (
          item: string,
          options: { resolution: string; duplicateOf?: string; comment?: string; status?: string },
          command: Command,
        ) => {
          const body = await apiOf(command).resolveItem(item, {
            resolution: options.resolution,
            ...(options.duplicateOf ? { resolution_ref: options.duplicateOf } : {}),
            ...(options.comment ? { resolution_comment: options.comment } : {}),
            ...(options.status ? { status: options.status } : {}),
          });
          output(command, body, renderItem);
        },
      ),
    );

  items
    .command('progress <ref>')
    .description('deployment progress of an item (item_progress_view)')
    .action(
      action(async (item: string, _options: unknown, command: Command) => {
        const body = await apiOf(command).itemProgress(item);
        // the halt in words ("awaiting approval for production since 3h"); its fields are in --json
        output(command, body, ({ halt, ...rest }) =>
          printKeyValues([...Object.entries(rest), ['halt', halt ? halt.summary : 'none']]),
        );
      }),
    );

  items
    .command('comment <ref> [text]')
    .description("comment on an item (a note, not a change: allowed while another session holds it); '-' reads stdin")
    .option('--file <path>', 'the comment from a file')
    .action(
      action(async (item: string, positional: string | undefined, options: { file?: string }, command: Command) => {
        if ((positional !== undefined) === (options.file !== undefined)) {
          throw new CliError(
            'invalid_argument',
            positional === undefined
              ? "give the comment: svc items comment <ref> <text> ('-' reads stdin, or --file <path>)"
              : 'give the comment once: a text argument and --file were both given',
          );
        }
        const body =
          options.file !== undefined ? readText(options.file) : positional === '-' ? await readStdin() : positional!;
        const comment = await apiOf(command).addComment(item, body);
        output(command, comment, (c) => printText(`${c.item_id}: comment ${c.id} added`));
      }),
    );

  items
    .command('comments <ref>')
    .description("an item's comments, newest first")
    .option('--limit <n>', 'page size (default 50, at most 200)', parseIntOption)
    .option('--cursor <id>', "older than this (a page's next_cursor)")
    .action(
      action(async (item: string, options: { limit?: number; cursor?: string }, command: Command) => {
        const page = await apiOf(command).listComments(item, options);
        output(command, page, (p) => {
          if (p.comments.length === 0) printText(`${p.item_id}: no comments`);
          renderComments(p.comments);
          if (p.next_cursor) printText(`\nolder: svc items comments ${p.item_id} --cursor ${p.next_cursor}`);
        });
      }),
    );

  addDependencyCommands(items);
  addItemHistoryCommand(items);
}

export function registerSectionsCommand(program: Command): void {
  const sections = program.command('sections').description('named Markdown sections of an item body');

  sections
    .command('upsert <ref> <section_name>')
    .description('create or replace a section; the body renders from sections on the next read')
    .option('--content-file <path>', 'Markdown content from a file')
    .option('--stdin', 'content from standard input')
    .option('--ordering <int>', 'render order, lower first', parseIntOption)
    .action(
      action(
        async (
          item: string,
          name: string,
          options: { contentFile?: string; stdin?: boolean; ordering?: number },
          command: Command,
        ) => {
          if (Boolean(options.contentFile) === Boolean(options.stdin)) {
            throw new CliError('invalid_argument', 'give one of --content-file or --stdin');
          }
          const content = options.contentFile ? readText(options.contentFile) : await readStdin();
          const body = await apiOf(command).putSection(item, name, {
            content,
            ...(options.ordering === undefined ? {} : { ordering: options.ordering }),
          });
          output(command, body, (b) =>
            printKeyValues([
              ['item', b.item_id],
              ['section', b.section.section_name],
              ['ordering', b.section.ordering],
              ['updated', b.section.updated_at],
            ]),
          );
        },
      ),
    );

  sections
    .command('list <ref>')
    .description("list an item's sections")
    .action(
      action(async (item: string, _options: unknown, command: Command) => {
        const detail = await apiOf(command).item(item);
        const body = { item_id: detail.item_id, sections: detail.sections };
        output(command, body, (b) =>
          printTable(
            ['section', 'ordering', 'updated', 'characters'],
            b.sections.map((s) => [s.section_name, s.ordering, relativeTime(s.updated_at), s.content?.length ?? 0]),
          ),
        );
      }),
    );

  sections
    .command('delete <ref> <section_name>')
    .description('remove a section')
    .action(
      action(async (item: string, name: string, _options: unknown, command: Command) => {
        const body = await apiOf(command).deleteSection(item, name);
        output(command, body, (b) => printText(`${b.item_id}: section ${name} removed`));
      }),
    );
}
