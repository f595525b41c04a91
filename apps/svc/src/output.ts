import { Command } from 'commander';

import { NotConnectedError, SvcConnectionError, SvcHttpError, terminalLine, terminalSafe } from '@app/client';

import { paint, paintErr } from './color';
import { printBlockerRefusal } from './commands/blockers-output';
import { outputOptions, wantsJson } from './context';
import { relativeTime } from './time';
import { ColumnSpec, columnsOf, renderTable, visibleWidth } from './table';

// Exit codes of the command line (`svc help exit-codes` prints this list; docs/user-guide.md and docs/adr/0003
// match it).
export const EXIT = {
  ok: 0,
  error: 1,
  unreachable: 2,
  notConnected: 3,
  usage: 64,
  cancelled: 130,
} as const;

export class CliError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly exitCode: number = EXIT.error,
  ) {
    super(message);
  }
}

export const usageError = (code: string, message: string) => new CliError(code, message, EXIT.usage);

type PlainObject = Record<string, unknown>;
const isObject = (v: unknown): v is PlainObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const isRowList = (v: unknown): v is PlainObject[] => Array.isArray(v) && v.every(isObject);

// `--json a,b`: the rows of every list in the body keep these fields only (a body that is one object: its own
// fields). An unknown field is a usage error naming the available ones, as gh does.
export function selectFields(body: unknown, fields: string[]): unknown {
  const lists: PlainObject[][] = [];
  if (isRowList(body)) lists.push(body);
  else if (isObject(body)) for (const v of Object.values(body)) if (isRowList(v) && v.length > 0) lists.push(v);
  const rows = lists.length > 0 ? lists.flat() : isObject(body) ? [body] : [];
  const available = new Set(rows.flatMap((r) => Object.keys(r)));
  const unknown = fields.filter((f) => rows.length > 0 && !available.has(f));
  if (unknown.length > 0) {
    throw usageError(
      'unknown_json_field',
      `unknown JSON field${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}; available fields: ${[...available].sort().join(', ')}`,
    );
  }
  const pick = (row: PlainObject) => Object.fromEntries(fields.filter((f) => f in row).map((f) => [f, row[f]]));
  if (isRowList(body)) return body.map(pick);
  if (!isObject(body)) return body;
  if (lists.length === 0) return pick(body);
  return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, isRowList(v) ? v.map(pick) : v]));
}

let pending: Promise<void>[] = [];

async function runJq(value: unknown, expression: string): Promise<void> {
  const jq = await import('jq-wasm');
  let out: string;
  try {
    // -r as gh: strings print raw, everything else as JSON
    out = await jq.raw(JSON.stringify(value), expression, ['-r']);
  } catch (err) {
    const message = (err instanceof Error ? err.message : String(err)).trim();
    if (/compile error|syntax error/.test(message)) throw usageError('invalid_jq', message);
    throw new CliError('jq_failed', message);
  }
  if (out.length > 0) process.stdout.write(out.endsWith('\n') ? out : `${out}\n`);
}

export function printJson(value: unknown): void {
  const { jsonFields, jq } = outputOptions();
  const selected = jsonFields ? selectFields(value, jsonFields) : value;
  if (jq !== undefined) {
    pending.push(runJq(selected, jq));
    return;
  }
  process.stdout.write(`${JSON.stringify(selected, null, 2)}\n`);
}

export async function flushOutput(): Promise<void> {
  const waiting = pending;
  pending = [];
  await Promise.all(waiting);
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;

// The CLI's own colours (picocolors: SGR sequences) in a cell it painted.
// eslint-disable-next-line no-control-regex
const SGR = /(\u001b\[[0-9;]*m)/;

// Text from the daemon was made safe before it was painted (output()); this catches a table built from anything else.
export function cellLine(text: string): string {
  if (!text.includes('\u001b')) return terminalLine(text);
  return text
    .split(SGR)
    .map((part, i) => (i % 2 === 1 ? part : terminalLine(part)))
    .join('');
}

// One table cell: timestamps become relative ("3h ago"), JSON values a summary, never the raw blob.
export function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return ISO_TIME.test(value) ? relativeTime(value) : cellLine(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return '';
    if (value.every((v) => v === null || ['string', 'number', 'boolean'].includes(typeof v))) {
      const joined = value.map((v) => cell(v)).join(', ');
      if (joined.length <= 60) return joined;
    }
    return `[${value.length} item${value.length === 1 ? '' : 's'}]`;
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as PlainObject);
    if (entries.length === 0) return '';
    // a small flat object reads best as its fields; anything else as its size
    if (entries.every(([, v]) => v === null || ['string', 'number', 'boolean'].includes(typeof v))) {
      const flat = entries.map(([k, v]) => `${terminalLine(k)}=${cell(v)}`).join(' ');
      if (flat.length <= 40) return flat;
    }
    return `{${entries.length} key${entries.length === 1 ? '' : 's'}}`;
  }
  return String(value);
}

// The width tables must fit: the terminal's on a TTY (COLUMNS when piped and set), none with --wide or in a pipe.
export function outputWidth(): number | null {
  if (outputOptions().wide) return null;
  if (process.stdout.isTTY) return process.stdout.columns || 80;
  const columns = Number(process.env.COLUMNS);
  return Number.isInteger(columns) && columns > 0 ? columns : null;
}

export function fitLine(line: string, width = outputWidth()): string {
  if (width === null || visibleWidth(line) <= width) return line;
  // cli-table3 cuts ANSI-coloured text safely: a one-cell table of that width
  return renderTable([{ header: '' }], [[line]], width).lines[1] ?? line;
}

export function printTable(columns: ColumnSpec[], rows: unknown[][]): void {
  if (rows.length === 0) {
    process.stdout.write('(none)\n');
    return;
  }
  const width = outputWidth();
  const p = paint();
  const cells = rows.map((row) => row.map(cell));
  const { lines, dropped } = renderTable(columnsOf(columns, cells), cells, width, (h) => p.bold(h));
  process.stdout.write(`${lines.join('\n')}\n`);
  // columns empty in every row are dropped without a word
  const hidden = dropped.filter((h) => {
    const i = columns.findIndex((c) => (typeof c === 'string' ? c : c.header) === h);
    return cells.some((r) => (r[i] ?? '') !== '');
  });
  if (hidden.length > 0) process.stdout.write(`${fitLine(p.dim(`(--wide shows ${hidden.join(', ')})`), width)}\n`);
}

export function printKeyValues(pairs: [string, unknown][]): void {
  const entries = pairs.map(([k, v]): [string, unknown] => [terminalLine(k), v]);
  const keyWidth = Math.max(...entries.map(([k]) => k.length));
  const width = outputWidth();
  for (const [key, value] of entries) {
    let text = typeof value === 'string' && ISO_TIME.test(value) ? `${relativeTime(value)} (${value})` : cell(value);
    // a detail view shows a JSON value whole when it fits the line (always into a pipe), else its summary
    if (typeof value === 'object' && value !== null) {
      // JSON escapes C0 controls but not DEL, C1 or bidi overrides
      const whole = terminalLine(JSON.stringify(value));
      if (width === null || keyWidth + 2 + visibleWidth(whole) <= width) text = whole;
    }
    process.stdout.write(`${fitLine(`${paint().bold(key.padEnd(keyWidth))}  ${text}`, width)}\n`);
  }
}

// Renderers get a copy whose every string is terminal-safe, so none can write stored text raw.
export function output<T>(command: Command, value: T, render: (value: T) => void): void {
  if (wantsJson(command)) printJson(value);
  else render(terminalSafe(value));
}

// A refusal's message may echo stored text (a name, a title): one line, escaped.
const safeLine = (text: unknown): string => terminalLine(String(text ?? ''));

export function reportError(err: unknown, json: boolean): number {
  if (err instanceof SvcHttpError) {
    if (json) process.stderr.write(`${JSON.stringify(err.body)}\n`);
    else
      process.stderr.write(`${paintErr().red('error:')} ${safeLine(err.body.code)}: ${safeLine(err.body.message)}\n`);
    if (!json) printBlockerRefusal(err.body);
    return err.status === 401 || err.status === 403 ? EXIT.notConnected : EXIT.error;
  }
  if (err instanceof SvcConnectionError) {
    if (json) process.stderr.write(`${JSON.stringify({ code: 'daemon_unreachable', message: err.message })}\n`);
    else process.stderr.write(`${paintErr().red('error:')} daemon_unreachable: ${safeLine(err.message)}\n`);
    return EXIT.unreachable;
  }
  if (err instanceof CliError || err instanceof NotConnectedError) {
    if (json) process.stderr.write(`${JSON.stringify({ code: err.code, message: err.message })}\n`);
    else process.stderr.write(`${paintErr().red('error:')} ${safeLine(err.code)}: ${safeLine(err.message)}\n`);
    return err instanceof CliError ? err.exitCode : EXIT.notConnected;
  }
  const message = err instanceof Error ? err.message : String(err);
  if (json) process.stderr.write(`${JSON.stringify({ code: 'internal_error', message })}\n`);
  else process.stderr.write(`${paintErr().red('error:')} ${safeLine(message)}\n`);
  return EXIT.error;
}

export function action<A extends unknown[]>(fn: (...args: A) => Promise<void> | void) {
  return async (...args: A): Promise<void> => {
    const command = args[args.length - 1] as Command;
    try {
      await fn(...args);
      await flushOutput();
    } catch (err) {
      pending = [];
      process.exitCode = reportError(err, wantsJson(command));
    }
  };
}
