import { Command } from 'commander';

import {
  buildImportDocument,
  Conversion,
  convertBeads,
  convertTaskwarrior,
  ImportFormatError,
  SvcHttpError,
} from '@app/client';

import { apiOf, wantsJson } from '../context';
import { CliError, output, printKeyValues, usageError } from '../output';
import { readStdin, readText } from './backlog-cli';

// Converted here into svc's own backlog document and sent through POST /v1/import, so it passes the same rules and
// leaves the same write record. docs/migrating.md has the mappings.

export const IMPORT_SOURCES = ['beads', 'taskwarrior'] as const;

export interface ImportFromOptions {
  from: string;
  project?: string;
  prefix?: string;
  name?: string;
  dryRun?: boolean;
  yes?: boolean;
  replace?: boolean;
}

function progress(command: Command): (label: string, done: number, total: number) => void {
  if (wantsJson(command) || !process.stderr.isTTY) return () => undefined;
  let last = -1;
  return (label, done, total) => {
    const percent = total === 0 ? 100 : Math.floor((done * 100) / total);
    if (percent === last && done !== total) return;
    last = percent;
    const width = 30;
    const filled = Math.round((percent * width) / 100);
    process.stderr.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${percent}%`);
    if (done === total) process.stderr.write('\n');
  };
}

function convert(
  source: string,
  text: string,
  file: string,
  onLine: (done: number, total: number) => void,
): Conversion {
  try {
    return source === 'beads' ? convertBeads(text, onLine) : convertTaskwarrior(text);
  } catch (err) {
    if (err instanceof ImportFormatError) {
      throw new CliError(
        'invalid_import_file',
        `${file === '-' ? 'standard input' : file}: ${err.message}; nothing was imported`,
      );
    }
    throw err;
  }
}

export async function importFrom(file: string, options: ImportFromOptions, command: Command): Promise<void> {
  if (!(IMPORT_SOURCES as readonly string[]).includes(options.from)) {
    throw usageError('unknown_import_source', `--from takes ${IMPORT_SOURCES.join(' or ')}, not ${options.from}`);
  }
  if (!options.project) {
    throw usageError(
      'project_required',
      'name the project to import into: --project <id> (and --prefix for a new one)',
    );
  }
  if (options.prefix !== undefined && !/^[A-Z][A-Z0-9]{0,15}$/.test(options.prefix)) {
    throw usageError('invalid_prefix', '--prefix is an uppercase letter then up to 15 uppercase letters or digits');
  }
  const show = progress(command);
  const text = file === '-' ? await readStdin() : readText(file);
  const conversion = convert(options.from, text, file, (done, total) => show('reading', done, total));

  const api = apiOf(command);
  let existing: Record<string, unknown> | null = null;
  try {
    await api.project(options.project);
    existing = (await api.exportBacklog(options.project)) as Record<string, unknown>;
  } catch (err) {
    if (!(err instanceof SvcHttpError && err.status === 404)) throw err;
  }
  if (existing === null && options.prefix === undefined) {
    throw usageError(
      'project_not_found',
      `project ${options.project} does not exist (or is not visible to you); to create it, add --prefix <PREFIX>`,
    );
  }
  const prefix = (existing?.project as { public_item_prefix?: string } | undefined)?.public_item_prefix;
  if (existing !== null && options.prefix !== undefined && options.prefix !== prefix) {
    throw usageError('prefix_mismatch', `project ${options.project} has the prefix ${prefix}, not ${options.prefix}`);
  }
  const plan = buildImportDocument(
    conversion,
    { id: options.project, prefix: options.prefix ?? prefix ?? '', name: options.name },
    existing,
  );

  const dryRun = Boolean(options.dryRun) || (process.stdout.isTTY === true && !options.yes);
  let imported: unknown = null;
  if (!dryRun && plan.changed) {
    show('importing', 0, 1);
    imported = await api.importBacklog(plan.document, { replace: plan.replace });
    show('importing', 1, 1);
  }
  const summary = {
    source: conversion.source,
    file,
    project: options.project,
    new_project: existing === null,
    dry_run: dryRun,
    items: conversion.items.length,
    created: plan.created,
    updated: plan.updated,
    unchanged: plan.unchanged,
    dependencies: plan.dependencies,
    dependencies_added: plan.dependencies_added,
    dependencies_removed: plan.dependencies_removed,
    ready_in_source: conversion.ready.length,
    skipped: conversion.skipped,
    mapping: conversion.mapping,
    changed: plan.changed,
    imported,
  };
  output(command, summary, (s) => {
    printKeyValues([
      ['source', `${s.source} (${s.file})`],
      ['project', `${s.project}${s.new_project ? ' (new)' : ''}`],
      ['items', `${s.items}: ${s.created} new, ${s.updated} updated, ${s.unchanged} unchanged`],
      ['dependencies', `${s.dependencies}: ${s.dependencies_added} added, ${s.dependencies_removed} removed`],
      ['ready in source', String(s.ready_in_source)],
      ['skipped', String(s.skipped.length)],
    ]);
    for (const skip of s.skipped) {
      process.stdout.write(
        `  - ${skip.id ?? '?'}${skip.line !== null ? ` (line ${skip.line})` : ''}: ${skip.reason}\n`,
      );
    }
    process.stdout.write('mapping:\n');
    for (const line of s.mapping) process.stdout.write(`  - ${line}\n`);
    if (s.dry_run) process.stdout.write('dry run: nothing was imported; run again with --yes to import\n');
    else if (!s.changed) process.stdout.write('nothing changed: the project already holds this file\n');
    else process.stdout.write(`imported into ${s.project}\n`);
  });
}
