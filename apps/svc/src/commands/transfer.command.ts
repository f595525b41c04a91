import { writeFileSync } from 'node:fs';

import { Command } from 'commander';

import { apiOf, wantsJson } from '../context';
import { action, CliError, output, printJson, printKeyValues } from '../output';
import { readJsonFile } from './backlog-cli';

export function registerTransferCommands(program: Command): void {
  program
    .command('import <file>')
    .description('import a whole project (svc-backlog/v1 JSON): items, sections, edges, epics, records, deployments')
    .option('--replace', 'replace the contents of an existing project (admins; a snapshot keeps what it held)')
    .action(
      action(async (file: string, options: { replace?: boolean }, command: Command) => {
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
