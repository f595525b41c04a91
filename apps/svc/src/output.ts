import Table from 'cli-table3';
import { Command } from 'commander';

import { NotConnectedError, SvcConnectionError, SvcHttpError } from '@app/client';

import { paint, paintErr } from './color';
import { printBlockerRefusal } from './commands/blockers-output';
import { wantsJson } from './context';

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function printTable(head: string[], rows: (string | number | boolean | null | undefined)[][]): void {
  if (rows.length === 0) {
    process.stdout.write('(none)\n');
    return;
  }
  const p = paint();
  const table = new Table({
    head: head.map((h) => p.bold(h)),
    style: { head: [], border: [], compact: true },
    wordWrap: true,
  });
  for (const row of rows) table.push(row.map((cell) => (cell === null || cell === undefined ? '' : String(cell))));
  process.stdout.write(`${table.toString()}\n`);
}

export function printKeyValues(entries: [string, unknown][]): void {
  const width = Math.max(...entries.map(([k]) => k.length));
  for (const [key, value] of entries) {
    const text =
      value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
    process.stdout.write(`${paint().bold(key.padEnd(width))}  ${text}\n`);
  }
}

// `--json` prints the wire body unchanged; otherwise `render` prints a table or text.
export function output<T>(command: Command, value: T, render: (value: T) => void): void {
  if (wantsJson(command)) printJson(value);
  else render(value);
}

export class CliError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

// Errors print their code and message (and the body with --json) and set a non-zero exit code.
export function reportError(err: unknown, json: boolean): number {
  if (err instanceof SvcHttpError) {
    if (json) process.stderr.write(`${JSON.stringify(err.body)}\n`);
    else process.stderr.write(`${paintErr().red('error:')} ${err.body.code}: ${err.body.message}\n`);
    if (!json) printBlockerRefusal(err.body);
    return err.status === 401 || err.status === 403 ? 3 : 1;
  }
  if (err instanceof SvcConnectionError) {
    process.stderr.write(`${paintErr().red('error:')} daemon_unreachable: ${err.message}\n`);
    return 2;
  }
  if (err instanceof CliError || err instanceof NotConnectedError) {
    if (json) process.stderr.write(`${JSON.stringify({ code: err.code, message: err.message })}\n`);
    else process.stderr.write(`${paintErr().red('error:')} ${err.code}: ${err.message}\n`);
    return err instanceof CliError ? err.exitCode : 3;
  }
  process.stderr.write(`${paintErr().red('error:')} ${err instanceof Error ? err.message : String(err)}\n`);
  return 1;
}

// Wraps an action: runs it, reports errors uniformly.
export function action<A extends unknown[]>(fn: (...args: A) => Promise<void> | void) {
  return async (...args: A): Promise<void> => {
    const command = args[args.length - 1] as Command;
    try {
      await fn(...args);
    } catch (err) {
      process.exitCode = reportError(err, wantsJson(command));
    }
  };
}
