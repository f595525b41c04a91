import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

// Lint enforces the house (eslint.config.mjs, issue 30): each planted violation below, linted as if it were the
// text of a real file of the tree, fails with the boundary's rule. One node process runs ESLint's Node API for every
// case, under the real eslint.config.mjs. The type-aware cases get a TypeScript program of the planted file alone
// (the whole tsconfig.json project, as `npx eslint` loads it, was most of this file's time); the others, whose rules
// read only the syntax, are linted with type information off.
const ROOT = join(__dirname, '../../..');

interface Case {
  name: string;
  filePath: string;
  code: string;
}

const CASES: Case[] = [
  {
    name: "a daemon feature imports another feature's repository",
    filePath: 'apps/daemon/src/items/items.service.ts',
    code: "import { ProjectsRepository } from '../projects/projects.repository';\nexport const planted = ProjectsRepository;\n",
  },
  {
    name: 'a module exports its repository',
    filePath: 'apps/daemon/src/items/items.module.ts',
    code: "import { Module } from '@nestjs/common';\nimport { ItemsRepository } from './items.repository';\n@Module({ providers: [ItemsRepository], exports: [ItemsRepository] })\nexport class ItemsModule {}\n",
  },
  {
    name: 'the daemon imports the command line (relative path)',
    filePath: 'apps/daemon/src/main.ts',
    code: "import { buildProgram } from '../../svc/src/program';\nexport const planted = buildProgram;\n",
  },
  {
    name: 'the daemon imports the command line (baseUrl path)',
    filePath: 'apps/daemon/src/main.ts',
    code: "import { buildProgram } from 'apps/svc/src/program';\nexport const planted = buildProgram;\n",
  },
  {
    name: 'the command line imports the terminal UI',
    filePath: 'apps/svc/src/program.ts',
    code: "import { run } from '../../tui/src/app';\nexport const planted = run;\n",
  },
  {
    name: 'the command line takes vocabulary from the core',
    filePath: 'apps/svc/src/program.ts',
    code: "import { GATE_POINTS } from '@app/core';\nexport const planted = GATE_POINTS;\n",
  },
  {
    name: 'a lib imports an app',
    filePath: 'libs/client/src/api.ts',
    code: "import { AppModule } from '../../../apps/daemon/src/app.module';\nexport const planted = AppModule;\n",
  },
  {
    name: 'the core imports another lib',
    filePath: 'libs/core/src/index.ts',
    code: "import { SvcApi } from '@app/client';\nexport const planted = SvcApi;\n",
  },
  {
    name: 'the contracts climb out of their folder',
    filePath: 'libs/contracts/src/index.ts',
    code: "import { planted as p } from '../../core/src';\nexport const planted = p;\n",
  },
  {
    name: 'a floating promise',
    filePath: 'apps/daemon/src/main.ts',
    code: 'async function work(): Promise<void> {}\nwork();\n',
  },
  {
    name: 'a promise where a void callback is expected',
    filePath: 'apps/svc/src/program.ts',
    code: "import { EventEmitter } from 'node:events';\nnew EventEmitter().on('x', async () => {});\n",
  },
  {
    name: 'a service writes SQL',
    filePath: 'apps/daemon/src/items/items.service.ts',
    code: "import type { EntityManager } from 'typeorm';\nexport const planted = (m: EntityManager) => m.query('SELECT 1');\n",
  },
  {
    name: 'a repository imports TypeORM at runtime',
    filePath: 'apps/daemon/src/items/items.repository.ts',
    code: "import { DataSource } from 'typeorm';\nexport const planted = (d: DataSource) => d;\n",
  },
  {
    name: 'a repository injects through @nestjs/typeorm',
    filePath: 'apps/daemon/src/items/items.repository.ts',
    code: "import { InjectDataSource } from '@nestjs/typeorm';\nexport const planted = InjectDataSource;\n",
  },
  {
    name: 'a provider injects HttpAdapterHost by its class',
    filePath: 'apps/daemon/src/items/items.service.ts',
    code: "import { HttpAdapterHost } from '@nestjs/core';\nexport const planted = HttpAdapterHost;\n",
  },
  {
    name: 'a source file past 700 lines',
    filePath: 'apps/daemon/src/items/items.service.ts',
    code: Array.from({ length: 701 }, (_, i) => `export const planted${i} = ${i};`).join('\n') + '\n',
  },
  {
    name: 'allowed: own repository and a lib (last)',
    filePath: 'apps/daemon/src/items/items.service.ts',
    code: "import type { DataSource } from 'typeorm';\nimport { ItemsRepository } from './items.repository';\nimport { SvcApi } from '@app/client';\nexport const planted = [ItemsRepository, SvcApi];\nexport type Planted = DataSource;\n",
  },
];

const EXPECTED_RULE: Record<string, string> = {
  'a module exports its repository': 'no-restricted-syntax',
  'a service writes SQL': 'no-restricted-syntax',
  'a source file past 700 lines': 'max-lines',
  'a repository imports TypeORM at runtime': '@typescript-eslint/no-restricted-imports',
  'a repository injects through @nestjs/typeorm': '@typescript-eslint/no-restricted-imports',
  'a provider injects HttpAdapterHost by its class': '@typescript-eslint/no-restricted-imports',
  'a floating promise': '@typescript-eslint/no-floating-promises',
  'a promise where a void callback is expected': '@typescript-eslint/no-misused-promises',
};

const expectedRule = (name: string): string => EXPECTED_RULE[name] ?? 'no-restricted-imports';

const TYPE_AWARE_RULES = ['@typescript-eslint/no-floating-promises', '@typescript-eslint/no-misused-promises'];

const SCRIPT = `
const { ESLint } = require('eslint');
(async () => {
  const cases = JSON.parse(process.argv[1]);
  const typeAware = JSON.parse(process.argv[3]);
  const { mkdtempSync, writeFileSync } = require('node:fs');
  const { join } = require('node:path');
  const { tmpdir } = require('node:os');
  const dir = mkdtempSync(join(tmpdir(), 'house-lint-'));
  // A program of the planted file alone per type-aware case: the rules see its types as in the whole project, and the
  // program is not the whole tsconfig.json project (loading that was most of this file's time).
  const projectFor = (filePath) => {
    const tsconfig = join(dir, filePath.replace(/[^A-Za-z0-9]/g, '_') + '.json');
    writeFileSync(tsconfig, JSON.stringify({
      compilerOptions: { strict: true, target: 'ES2022', module: 'commonjs', types: ['node'], noEmit: true,
                         typeRoots: [join(process.argv[2], 'node_modules/@types')] },
      files: [join(process.argv[2], filePath)],
    }));
    return new ESLint({
      cwd: process.argv[2],
      // Under CI=true typescript-eslint would infer a single run and type the file as it is on disk, not the planted text.
      overrideConfig: {
        languageOptions: {
          parserOptions: { projectService: false, project: [tsconfig], disallowAutomaticSingleRunInference: true },
        },
      },
    });
  };
  const syntaxOnly = new ESLint({
    cwd: process.argv[2],
    overrideConfig: {
      languageOptions: { parserOptions: { projectService: false } },
      rules: Object.fromEntries(typeAware.map((rule) => [rule, 'off'])),
    },
  });
  const out = [];
  for (const c of cases) {
    const eslint = typeAware.includes(c.rule) ? projectFor(c.filePath) : syntaxOnly;
    const [result] = await eslint.lintText(c.code, { filePath: c.filePath });
    out.push(result.messages.map((m) => ({ ruleId: m.ruleId, message: m.message, fatal: !!m.fatal })));
  }
  process.stdout.write(JSON.stringify(out));
})().catch((e) => { console.error(e); process.exit(1); });
`;

describe('lint enforces the house', () => {
  let results: { ruleId: string | null; message: string; fatal: boolean }[][];

  beforeAll(() => {
    const cases = CASES.map((c) => ({ ...c, rule: expectedRule(c.name) }));
    const args = ['-e', SCRIPT, JSON.stringify(cases), ROOT, JSON.stringify(TYPE_AWARE_RULES)];
    const stdout = execFileSync(process.execPath, args, {
      cwd: ROOT,
      encoding: 'utf8',
      maxBuffer: 16 * 1024 * 1024,
    });
    results = JSON.parse(stdout);
  }, 120_000);

  it("a feature's own repository, a lib and TypeORM's types stay allowed", () => {
    const messages = results[CASES.length - 1];
    expect(messages.filter((m) => m.fatal)).toEqual([]);
    expect(messages.map((m) => m.ruleId)).not.toContain('no-restricted-imports');
    expect(messages.map((m) => m.ruleId)).not.toContain('@typescript-eslint/no-restricted-imports');
  });

  it.each(CASES.slice(0, -1).map((c, i) => [c.name, i] as const))('%s fails lint', (name, i) => {
    const messages = results[i];
    expect(messages.filter((m) => m.fatal)).toEqual([]);
    expect(messages.map((m) => m.ruleId)).toContain(expectedRule(name));
  });
});

// One wire vocabulary (ADR 0082): a type libs/contracts exports is declared there only. The apps and libs/client
// import it; a same-named interface or type alias elsewhere is a second definition that drifts from the wire.
const CONTRACTS_INDEX = join(ROOT, 'libs/contracts/src/index.ts');
const VOCABULARY_USERS = ['apps', 'libs/client'];

function contractExports(): Set<string> {
  // Export names need only the contracts' own files bound: no standard library, no @types (those were 400 of the
  // program's 480 files).
  const program = ts.createProgram([CONTRACTS_INDEX], {
    noEmit: true,
    skipLibCheck: true,
    resolveJsonModule: true,
    esModuleInterop: true,
    noLib: true,
    types: [],
  });
  const checker = program.getTypeChecker();
  const symbol = checker.getSymbolAtLocation(program.getSourceFile(CONTRACTS_INDEX)!)!;
  return new Set(checker.getExportsOfModule(symbol).map((s) => s.getName()));
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules' || entry.name === 'dist') return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

// Every interface or type alias, at any depth of the file, whose name the contracts export.
function shadowedContractTypes(fileName: string, text: string, exported: ReadonlySet<string>): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) && exported.has(node.name.text)) {
      const { line } = ts.getLineAndCharacterOfPosition(node.getSourceFile(), node.getStart());
      found.push(`${relative(ROOT, fileName)}:${line + 1} ${node.name.text}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true));
  return found;
}

describe('one wire vocabulary', () => {
  let exported: Set<string>;

  beforeAll(() => {
    exported = contractExports();
  }, 60_000);

  it('reads the contracts exports through their index', () => {
    expect(exported.has('RunWire')).toBe(true);
    expect(exported.has('ItemWorkflowWire')).toBe(true);
  });

  it('finds a planted redeclaration of a contracts type', () => {
    const planted = 'export interface RunWire { id: string }\nfunction f() { type FlowWire = string; }\n';
    const file = join(ROOT, 'apps/svc/src/planted.ts');
    expect(shadowedContractTypes(file, planted, exported)).toEqual([
      'apps/svc/src/planted.ts:1 RunWire',
      'apps/svc/src/planted.ts:2 FlowWire',
    ]);
  });

  it('no app and not libs/client declares a type the contracts export', () => {
    const files = VOCABULARY_USERS.flatMap((dir) => tsFiles(join(ROOT, dir)));
    const shadows = files.flatMap((file) => shadowedContractTypes(file, readFileSync(file, 'utf8'), exported));
    expect(shadows).toEqual([]);
  });
});

// One validation library for request bodies (class-validator) and one for JSON schemas (ajv): zod is not a third.
// The MCP SDK still loads it for itself; no file of the project does.
const ZOD_IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)['"]zod(?:\/[^'"]*)?['"]/m;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.(ts|js|mjs|cjs)$/.test(entry.name) ? [path] : [];
  });
}

describe('no zod in the project', () => {
  it('recognises an import of zod in each spelling, and not a mention', () => {
    for (const code of [
      "import { z } from 'zod';",
      'import * as z from "zod/v4";',
      "import 'zod';",
      "const { z } = require('zod');",
      "const z = await import('zod');",
      "export { z } from 'zod';",
    ])
      expect(code).toMatch(ZOD_IMPORT);
    for (const code of ['// a zod schema, once', "const name = 'zod';", "import { x } from 'zodiac';"])
      expect(code).not.toMatch(ZOD_IMPORT);
  });

  it('no file under apps/ or libs/ imports zod', () => {
    const importing = ['apps', 'libs']
      .flatMap((dir) => sourceFiles(join(ROOT, dir)))
      // this file spells the imports it looks for
      .filter((file) => file !== __filename && ZOD_IMPORT.test(readFileSync(file, 'utf8')))
      .map((file) => relative(ROOT, file));
    expect(importing).toEqual([]);
  });
});
