import { readFileSync } from 'node:fs';

import { InvalidArgumentError } from 'commander';

import { CliError } from '../output';

// CRLF line ends (a Windows editor) become LF: the daemon takes newline and tab only in prose fields.
const lfLineEnds = (text: string) => text.replace(/\r\n/g, '\n');

export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return lfLineEnds(Buffer.concat(chunks).toString('utf8'));
}

export function readText(path: string): string {
  try {
    return lfLineEnds(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new CliError('file_unreadable', `cannot read ${path}: ${(err as Error).message}`);
  }
}

export function parseJsonText(text: string, source: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new CliError('invalid_json', `${source} is not valid JSON: ${(err as Error).message}`);
  }
}

export function readJsonFile(path: string): unknown {
  return parseJsonText(readText(path), path);
}

export function parseIntOption(value: string): number {
  if (!/^-?[0-9]{1,9}$/.test(value)) throw new InvalidArgumentError('must be an integer');
  return Number(value);
}

export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function jsonObjectOption(value: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new InvalidArgumentError('must be a JSON object');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new InvalidArgumentError('must be a JSON object');
  }
  return parsed as Record<string, unknown>;
}

export const ref = (value: string) => encodeURIComponent(value);

export function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function printText(value: string): void {
  process.stdout.write(value.endsWith('\n') || value.length === 0 ? value : `${value}\n`);
}
