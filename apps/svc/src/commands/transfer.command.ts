import { writeFileSync } from 'node:fs';

import { Command } from 'commander';

import { apiOf, wantsJson } from '../context';
import { action, CliError, output, printJson, printKeyValues } from '../output';
import { readJsonFile } from './backlog-cli';
import { IMPORT_SOURCES, importFrom, ImportFromOptions } from './import-from';

export function registerTransferCommands(program: Command): void {
  program
    .command('import <file>')
    .description(
      'import a whole project (svc-backlog/v1 JSON): items, sections, edges, epics, records, deployments; ' +
        'or, with --from, a beads issues.jsonl or a Taskwarrior export (- reads standard input)',
    )
    .option('--replace', 'replace the contents of an existing project (admins; a snapshot keeps what it held)')
    .option('--from <tracker>', `convert another tracker's file: ${IMPORT_SOURCES.join(' or ')}`)
    .option('--project <project>', 'with --from: the project to import into')
    .option('--prefix <prefix>', 'with --from: create the project with this ref prefix')
    .option('--name <name>', "with --from: the new project's name")
    .option('--dry-run', 'with --from: print the summary, import nothing (the default when stdout is a terminal)')
    .option('--yes', 'with --from: import (needed when stdout is a terminal)')
    .action(
      action(async (file: string, options: ImportFromOptions & { from?: string }, command: Command) => {
        if (options.from !== undefined) return importFrom(file, options as ImportFromOptions, command);
        const body = await apiOf(command).importBacklog(readJsonFile(file), { replace: options.replace });
        output(command, body, (b) => printKeyValues(Object.entries(b)));
      }),
    );

  program
    .command('export')
    .description('export a whole project as svc-backlog/v1 JSON (stdout, or --output)')
    .requiredOption('--project <project>', 'project id')
    .option('--output <file>', 'write the document to a file')
    .option('--snapshot <id>', 'the project as a snapshot kept it (svc projects snapshots <project>; admins)')
    .action(
      action(async (options: { project: string; output?: string; snapshot?: string }, command: Command) => {
        const api = apiOf(command);
        const body = options.snapshot
          ? (await api.projectSnapshot(options.project, options.snapshot)).document
          : await api.exportBacklog(options.project);
        if (options.output) {
          try {
            writeFileSync(options.output, `${JSON.stringify(body, null, 2)}\n`);
          } catch (err) {
            throw new CliError('file_unwritable', `cannot write ${options.output}: ${(err as Error).message}`);
          }
          if (wantsJson(command))
            printJson({ project: options.project, output: options.output, items: body.items?.length ?? 0 });
          else
            process.stdout.write(
              `exported ${body.items?.length ?? 0} items of ${options.project} to ${options.output}\n`,
            );
          return;
        }
        // The document is JSON either way (exact, never made terminal-safe); --json changes nothing here.
        printJson(body);
      }),
    );
}
