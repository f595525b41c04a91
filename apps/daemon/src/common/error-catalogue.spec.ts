import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

import { HttpStatus } from '@nestjs/common';

import { GENERIC_ERROR_STATUS, GenericErrorCode } from './domain-error';

const DAEMON_SRC = join(__dirname, '..');
const REPO_ROOT = join(DAEMON_SRC, '..', '..', '..');

interface Catalogue {
  file: string;
  name: string;
  table: Record<string, number>;
}

// Every `<feature>.errors.ts` of the daemon, found on disk so a new feature's catalogue is checked without listing it.
function errorFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return errorFiles(path);
    return entry.name.endsWith('.errors.ts') ? [path] : [];
  });
}

const files = errorFiles(DAEMON_SRC);
const modules = files.map((file) => ({
  file: relative(DAEMON_SRC, file),
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  exports: require(file) as Record<string, unknown>,
}));

const catalogues: Catalogue[] = [
  { file: 'common/domain-error.ts', name: 'GENERIC_ERROR_STATUS', table: { ...GENERIC_ERROR_STATUS } },
  ...modules.flatMap(({ file, exports }) =>
    Object.entries(exports)
      .filter(([name]) => name.endsWith('_ERROR_STATUS'))
      .map(([name, table]) => ({ file, name, table: table as Record<string, number> })),
  ),
];

// Spec codes that are not snake_case (the DB-claim prose gate's code is upper case in the spec).
const SPEC_UPPER_CASE_CODES = new Set(['GATE_DB_CLAIM_PROSE_MISMATCH']);

// The machine-authorization contract answers "not yet" (authorization_pending) as 202 with its error model.
const CONTRACT_NON_ERROR_STATUSES: Record<string, number> = { authorization_pending: HttpStatus.ACCEPTED };

// The same code answers with another status in another feature, on purpose: the wire has always done so.
const CROSS_FEATURE_STATUSES: Record<string, number[]> = {
  // the caller's own account (403) vs the target of an admin's change (409)
  actor_disabled: [403, 409],
  // a flow named in an item's field (400) vs the flow addressed by the path (404)
  deployment_flow_not_found: [400, 404],
  // an epic of an import file (bad document, 400) vs an item addressed as an epic (409)
  not_an_epic: [400, 409],
  // an item of an import file (400) vs a status change of a stored item (409)
  stage_not_in_workflow: [400, 409],
};

describe('error catalogue', () => {
  it('should find a catalogue in every feature errors file', () => {
    expect(files.length).toBeGreaterThanOrEqual(15);
    const withTable = new Set(catalogues.map((c) => c.file));
    expect(modules.map((m) => m.file).filter((file) => !withTable.has(file))).toEqual([]);
  });

  it('should map every code of every enum, and nothing else', () => {
    const mismatches = modules.flatMap(({ file, exports }) => {
      const enums = Object.entries(exports).filter(
        ([name, value]) => /ErrorCode$/.test(name) && typeof value === 'object',
      );
      const tables = catalogues.filter((c) => c.file === file);
      return enums.flatMap(([name, value]) => {
        const codes = Object.values(value as Record<string, string>).sort();
        const match = tables.some((t) => JSON.stringify(Object.keys(t.table).sort()) === JSON.stringify(codes));
        return match ? [] : [`${file}: ${name}`];
      });
    });
    expect(mismatches).toEqual([]);
    expect(Object.keys(GENERIC_ERROR_STATUS).sort()).toEqual(Object.values(GenericErrorCode).sort());
  });

  it('should give every code an HTTP error status', () => {
    const bad = catalogues.flatMap((c) =>
      Object.entries(c.table)
        .filter(([code, status]) => CONTRACT_NON_ERROR_STATUSES[code] !== status)
        .filter(([, status]) => !Number.isInteger(status) || status < 400 || status > 599)
        .map(([code, status]) => `${c.name}.${code} → ${status}`),
    );
    expect(bad).toEqual([]);
  });

  it('should spell every code in snake_case, except the spec codes in upper case', () => {
    const bad = catalogues.flatMap((c) =>
      Object.keys(c.table).filter(
        (code) => !/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/.test(code) && !SPEC_UPPER_CASE_CODES.has(code),
      ),
    );
    expect(bad).toEqual([]);
  });

  it('should answer a code with one status across features, except the documented differences', () => {
    const statuses = new Map<string, Set<number>>();
    for (const c of catalogues) {
      for (const [code, status] of Object.entries(c.table)) {
        statuses.set(code, (statuses.get(code) ?? new Set()).add(status));
      }
    }
    const differing = Object.fromEntries(
      [...statuses.entries()].filter(([, s]) => s.size > 1).map(([code, s]) => [code, [...s].sort()]),
    );
    expect(differing).toEqual(CROSS_FEATURE_STATUSES);
  });

  it('should document every code in docs/ (with docs/adr/) or the README', () => {
    const docs = [
      readFileSync(join(REPO_ROOT, 'README.md'), 'utf8'),
      // docs/adr/ included: some codes are documented only in the decision that introduced them
      ...readdirSync(join(REPO_ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.md'))
        .map((f) => readFileSync(join(REPO_ROOT, 'docs', f), 'utf8')),
    ].join('\n');
    const codes = new Set(catalogues.flatMap((c) => Object.keys(c.table)));
    const undocumented = [...codes].filter((code) => !new RegExp(`\\b${code}\\b`).test(docs));
    expect(undocumented).toEqual([]);
  });

  it('should keep the wire codes the spec and the e2e tests rely on', () => {
    const table = Object.assign({}, ...catalogues.map((c) => c.table)) as Record<string, number>;
    expect(table).toMatchObject({
      validation_failed: HttpStatus.BAD_REQUEST,
      invalid_request: HttpStatus.BAD_REQUEST,
      database_unavailable: HttpStatus.SERVICE_UNAVAILABLE,
      project_required: HttpStatus.BAD_REQUEST,
      blocked_by_dependencies: HttpStatus.CONFLICT,
      machine_credential_unavailable: HttpStatus.SERVICE_UNAVAILABLE,
      GATE_DB_CLAIM_PROSE_MISMATCH: HttpStatus.CONFLICT,
    });
  });
});
