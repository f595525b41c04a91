import { hostname } from 'node:os';

import type { LoggerService } from '@nestjs/common';

import { LogFormat, nestLogLevel, resolveLogFormat } from './logging';

// Lines outside a request go to stderr (stdout carries the request log); as JSON they are pino-shaped, so a
// collector reads every line of the output as JSON.
export type NoteLevel = 'debug' | 'info' | 'warn' | 'error' | 'fatal';

const PINO_LEVELS: Record<NoteLevel, number> = { debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };

// stderr decides: `svc daemon > file` on a terminal still shows a person the listening line.
export function noteFormat(
  env: NodeJS.ProcessEnv = process.env,
  stderrIsTty = process.stderr.isTTY === true,
): LogFormat {
  const setting = env.SVC_LOG_FORMAT;
  return resolveLogFormat(setting === 'json' || setting === 'pretty' ? setting : 'auto', stderrIsTty);
}

export function formatNote(
  format: LogFormat,
  level: NoteLevel,
  message: string,
  fields: Record<string, unknown> = {},
  now = Date.now(),
): string {
  if (format === 'pretty') return `svc daemon: ${message}\n`;
  const record = {
    level: PINO_LEVELS[level],
    time: now,
    pid: process.pid,
    hostname: hostname(),
    context: 'daemon',
    ...fields,
    msg: message,
  };
  return `${JSON.stringify(record)}\n`;
}

export class DaemonNotes {
  constructor(
    readonly format: LogFormat = noteFormat(),
    private readonly write: (text: string) => void = (text) => void process.stderr.write(text),
  ) {}

  note(message: string, level: NoteLevel = 'info', fields?: Record<string, unknown>): void {
    this.write(formatNote(this.format, level, message, fields));
  }
}

export const daemonNotes = new DaemonNotes();

// Until nestjs-pino takes over: a failed start writes Nest's buffered lines here, not as coloured text.
export class BootLogger implements LoggerService {
  constructor(private readonly notes: DaemonNotes = daemonNotes) {}

  private write(level: NoteLevel, message: unknown, params: unknown[]): void {
    const context = typeof params[params.length - 1] === 'string' ? (params[params.length - 1] as string) : undefined;
    const stack = level === 'error' && params.length > 1 && typeof params[0] === 'string' ? params[0] : undefined;
    const text =
      message instanceof Error ? message.message : typeof message === 'string' ? message : JSON.stringify(message);
    const fields: Record<string, unknown> = {};
    if (context) fields.context = context;
    if (stack) fields.stack = stack;
    if (message instanceof Error && message.stack) fields.stack = message.stack;
    this.notes.note(text, level, fields);
  }

  log(message: unknown, ...params: unknown[]): void {
    this.write(nestLogLevel(params[params.length - 1]), message, params);
  }
  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }
  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }
}
