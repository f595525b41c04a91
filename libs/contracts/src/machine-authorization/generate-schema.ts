import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { buildMachineAuthorizationSchema, MACHINE_AUTHORIZATION_SCHEMA_FILE } from './models';

export const MACHINE_AUTHORIZATION_SCHEMA_PATH = join(__dirname, MACHINE_AUTHORIZATION_SCHEMA_FILE);

// Keys sorted at every level (arrays keep their order): the bytes depend only on the contract, not on the order
// in which models.ts happens to declare things.
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) sorted[key] = sortKeys((value as Record<string, unknown>)[key]);
  return sorted;
}

export function renderMachineAuthorizationSchema(): string {
  return `${JSON.stringify(sortKeys(buildMachineAuthorizationSchema()), null, 2)}\n`;
}

export interface SchemaDriftReport {
  drift: boolean;
  summary: string[];
}

const MAX_REPORTED_LINES = 20;

export function compareSchemaText(expected: string, actual: string | null): SchemaDriftReport {
  if (actual === null) return { drift: true, summary: ['file is missing'] };
  if (actual === expected) return { drift: false, summary: [] };
  const notes: string[] = [];
  if (actual.startsWith('\uFEFF')) notes.push('committed file starts with a byte order mark');
  if (actual.includes('\r')) notes.push('committed file has CR line endings');
  if (!actual.endsWith('\n')) notes.push('committed file lacks the final newline');
  const normalised = `${actual
    .replace(/^\uFEFF/, '')
    .replace(/\r\n?/g, '\n')
    .replace(/\n*$/, '')}\n`;
  if (notes.length > 0 && normalised === expected) return { drift: true, summary: notes };
  const want = expected.split('\n');
  const have = actual.split('\n');
  const lines: string[] = [];
  let differing = 0;
  for (let i = 0; i < Math.max(want.length, have.length); i++) {
    if (want[i] === have[i]) continue;
    differing++;
    if (lines.length < MAX_REPORTED_LINES * 2) {
      lines.push(`line ${i + 1}: - ${have[i] ?? '(none)'}`, `line ${i + 1}: + ${want[i] ?? '(none)'}`);
    }
  }
  return { drift: true, summary: [`${differing} line(s) differ (- committed, + generated)`, ...notes, ...lines] };
}

function readIfPresent(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

export function checkMachineAuthorizationSchema(path = MACHINE_AUTHORIZATION_SCHEMA_PATH): SchemaDriftReport {
  return compareSchemaText(renderMachineAuthorizationSchema(), readIfPresent(path));
}

export function writeMachineAuthorizationSchema(path = MACHINE_AUTHORIZATION_SCHEMA_PATH): void {
  writeFileSync(path, renderMachineAuthorizationSchema(), 'utf8');
}

export function main(argv: readonly string[]): number {
  const check = argv.includes('--check');
  const fileIndex = argv.indexOf('--file');
  const path = fileIndex >= 0 && argv[fileIndex + 1] ? argv[fileIndex + 1] : MACHINE_AUTHORIZATION_SCHEMA_PATH;
  if (!check) {
    writeMachineAuthorizationSchema(path);
    console.log(`wrote ${path}`);
    return 0;
  }
  const report = checkMachineAuthorizationSchema(path);
  if (!report.drift) {
    console.log(`${path} is up to date`);
    return 0;
  }
  console.error(`${path} differs from the generated contract; run npm run contracts:generate`);
  for (const line of report.summary) console.error(`  ${line}`);
  return 1;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));
