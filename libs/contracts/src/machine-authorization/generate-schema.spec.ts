import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import {
  checkMachineAuthorizationSchema,
  compareSchemaText,
  MACHINE_AUTHORIZATION_SCHEMA_PATH,
  renderMachineAuthorizationSchema,
} from './generate-schema';

const ROOT = resolve(__dirname, '../../../..');
const SCRIPT = 'libs/contracts/src/machine-authorization/generate-schema.ts';

function runScript(args: string[]): { status: number | null; output: string } {
  const result = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules/ts-node/dist/bin.js'), '-T', '-r', 'tsconfig-paths/register', SCRIPT, ...args],
    { cwd: ROOT, encoding: 'utf8', timeout: 60_000 },
  );
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('machine_authorization.schema.v1.json', () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-contracts-'));
  });

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  describe(checkMachineAuthorizationSchema.name, () => {
    it('should find no byte drift between the committed file and the generated contract', () => {
      expect(checkMachineAuthorizationSchema()).toEqual({ drift: false, summary: [] });
    });
  });

  describe(renderMachineAuthorizationSchema.name, () => {
    it('should render sorted keys, two-space indent and a trailing newline, the same every time', () => {
      const text = renderMachineAuthorizationSchema();
      expect(text).toBe(renderMachineAuthorizationSchema());
      expect(text.endsWith('}\n')).toBe(true);
      expect(text.startsWith('{\n  "$defs": {\n    "MachineAuthorizationApproved": {\n')).toBe(true);
      expect(JSON.parse(text)).toEqual(JSON.parse(readFileSync(MACHINE_AUTHORIZATION_SCHEMA_PATH, 'utf8')));
    });
  });

  describe(compareSchemaText.name, () => {
    const expected = renderMachineAuthorizationSchema();

    it('should report a missing file', () => {
      expect(compareSchemaText(expected, null)).toEqual({ drift: true, summary: ['file is missing'] });
    });

    it('should report changed lines', () => {
      const report = compareSchemaText(expected, expected.replace('"maxLength": 128', '"maxLength": 129'));
      expect(report.drift).toBe(true);
      expect(report.summary[0]).toBe('1 line(s) differ (- committed, + generated)');
      expect(report.summary.join('\n')).toContain('"maxLength": 129');
    });

    it('should name drift that is only bytes: CRLF, a missing final newline or a BOM', () => {
      expect(compareSchemaText(expected, expected.replace(/\n/g, '\r\n'))).toEqual({
        drift: true,
        summary: ['committed file has CR line endings'],
      });
      expect(compareSchemaText(expected, expected.slice(0, -1))).toEqual({
        drift: true,
        summary: ['committed file lacks the final newline'],
      });
      expect(compareSchemaText(expected, `\uFEFF${expected}`)).toEqual({
        drift: true,
        summary: ['committed file starts with a byte order mark'],
      });
    });
  });

  describe('contracts:check script', () => {
    it('should exit 0 on the committed file', () => {
      const { status, output } = runScript(['--check']);
      expect(output).toContain('is up to date');
      expect(status).toBe(0);
    });

    it('should exit 1 with a diff summary on a drifted file', () => {
      const file = join(dir, 'drifted.json');
      writeFileSync(file, renderMachineAuthorizationSchema().replace('"v1"', '"v2"'));
      const { status, output } = runScript(['--check', '--file', file]);
      expect(status).toBe(1);
      expect(output).toContain('run npm run contracts:generate');
      expect(output).toContain('"x-contract-version": "v2"');
    });

    it('should write a file that then passes the check', () => {
      const file = join(dir, 'fresh.json');
      expect(runScript(['--file', file]).status).toBe(0);
      expect(readFileSync(file, 'utf8')).toBe(renderMachineAuthorizationSchema());
    });
  });
});
