import { readFileSync } from 'node:fs';

import { Command, InvalidArgumentError, Option } from 'commander';

import { SvcHttpError, terminalLine } from '@app/client';
import type { DbClaimResponse } from '@app/contracts';

import { apiOf, wantsJson } from '../context';
import { action, CliError, output, printTable, reportError } from '../output';

interface AmendOptions {
  item: string;
  file?: string;
  stdin?: boolean;
  state?: string;
  reason?: string;
  session?: number;
}

interface FieldProblem {
  field: string;
  code?: string;
  message?: string;
}

function parseSession(value: string): number {
  if (!/^[1-9][0-9]{0,9}$/.test(value)) throw new InvalidArgumentError('a session id is a positive integer');
  return Number(value);
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

async function readPayload(options: AmendOptions): Promise<unknown> {
  let text: string;
  const source = options.file !== undefined ? options.file : 'standard input';
  if (options.file !== undefined) {
    try {
      text = readFileSync(options.file, 'utf8');
    } catch (err) {
      throw new CliError('file_unreadable', `cannot read ${options.file}: ${(err as Error).message}`);
    }
  } else {
    text = await readStdin();
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new CliError('invalid_json', `${source} is not valid JSON: ${(err as Error).message}`);
  }
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.join('\n');
  return JSON.stringify(value);
}

export function renderDbClaim(view: DbClaimResponse): void {
  const { claim } = view;
  const rows: [string, string][] = [
    ['item', view.item_id],
    ['reviewed', `${view.reviewed} (${view.reviewed_reason})`],
    ...(view.malformed ? ([['malformed', view.malformed_halves.join(', ')]] as [string, string][]) : []),
    ['state', cell(claim.state)],
    ['affected_surfaces', (claim.affected_surfaces ?? []).map((s) => `${s.table}(${s.columns.join(', ')})`).join('\n')],
    [
      'pre_merge_readers_writers',
      (claim.pre_merge_readers_writers ?? []).map((e) => `${e.path} (${e.role})`).join('\n'),
    ],
  ];
  const shown = new Set(['state', 'affected_surfaces', 'pre_merge_readers_writers']);
  for (const [key, value] of Object.entries(claim)) {
    if (!shown.has(key) && value !== null) rows.push([key, cell(value)]);
  }
  printTable(['field', 'value'], rows);
}

function fieldProblems(err: unknown): FieldProblem[] {
  if (!(err instanceof SvcHttpError) || !Array.isArray(err.body.fields)) return [];
  return (err.body.fields as unknown[]).filter(
    (f): f is FieldProblem => typeof f === 'object' && f !== null && typeof (f as FieldProblem).field === 'string',
  );
}

export function registerDbClaimsCommand(program: Command): void {
  program
    .command('db-claim-amend')
    .description(
      'amend the DB claim of an item: the flat claim payload from --file or --stdin, ' +
        'or the negative shortcut --state none --reason <text>; prints the stored claim',
    )
    .requiredOption('--item <ref>', 'the item, e.g. PRJ-12')
    .option('--file <path>', 'read the flat claim payload (a JSON object) from this file')
    .option('--stdin', 'read the flat claim payload from standard input')
    .option('--state <state>', 'none: store the reviewed-negative claim (needs --reason)')
    .option('--reason <text>', 'why; stored with --state none, recorded on the DbClaimAmended event')
    .addOption(
      new Option('--session <id>', 'executor session recorded on the event')
        .env('SVC_SESSION_ID')
        .argParser(parseSession),
    )
    .action(
      action(async (options: AmendOptions, command: Command) => {
        const sources = [options.file !== undefined, options.stdin === true, options.state !== undefined];
        if (sources.filter(Boolean).length !== 1) {
          throw new CliError('invalid_arguments', 'give exactly one of --file <path>, --stdin or --state none');
        }
        if (options.state !== undefined && options.state !== 'none') {
          throw new CliError(
            'invalid_arguments',
            `--state accepts only none; declare a claim with --file or --stdin (got ${JSON.stringify(options.state)})`,
          );
        }
        const api = apiOf(command);
        try {
          const view =
            options.state === 'none'
              ? await api.negativeDbClaim(
                  options.item,
                  options.reason === undefined ? {} : { reason: options.reason },
                  { session_id: options.session },
                )
              : await api.amendDbClaim(options.item, await readPayload(options), {
                  session_id: options.session,
                  reason: options.reason,
                });
          output(command, view, renderDbClaim);
        } catch (err) {
          const problems = fieldProblems(err);
          if (problems.length === 0 || wantsJson(command)) throw err;
          process.exitCode = reportError(err, false);
          for (const p of problems)
            process.stderr.write(`  - ${terminalLine(`${p.field}: ${p.message ?? ''} (${p.code ?? 'invalid'})`)}\n`);
        }
      }),
    );
}
