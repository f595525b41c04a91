import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import globals from 'globals';

// The house's boundaries (docs/engineering.md; issue 30), as no-restricted-imports patterns on the import string.
// ESLint applies one configuration of a rule per file (a later block replaces an earlier one), so each block below
// states every boundary that holds for its files. Imports come in three spellings: relative ('../../svc/src/x'),
// from the baseUrl ('apps/svc/src/x') and the libs' aliases ('@app/core').
const APPS = ['daemon', 'svc', 'tui'];
const otherApps = (app) => APPS.filter((a) => a !== app).join('|');
const noOtherApps = (app) => ({
  regex: `^((\\.\\./)+(apps/)?|apps/)(${otherApps(app)})(/|$)`,
  message: `apps never import other apps: move what both need into a lib (libs/*) that both may import.`,
});
const noApps = {
  regex: '^(\\.\\./)*apps(/|$)',
  message: 'libs never import apps: a lib is what apps share, so it cannot depend on one.',
};
const noProjectCode = {
  // Out of their folder: an alias, the baseUrl, or a relative path that climbs to a project folder.
  regex:
    '^(@app/|(\\.\\./)*(apps|libs|test|bench|scripts)(/|$)|\\.\\./(\\.\\./)*(client|contracts|core|credentials|database|testing)(/|$))',
  message: 'libs/core and libs/contracts import no other project code: they are the bottom of the house.',
};
const noCoreInCli = {
  // The command line speaks the wire: its vocabulary (gate points, sources, statuses) comes from libs/contracts.
  regex: '^(@app/core|(\\.\\./)+(libs/)?core/src|libs/core)(/|$)',
  message: 'the command line takes wire vocabulary from @app/contracts, never from @app/core.',
};
const noOtherFeaturesRepository = {
  // From apps/daemon/src/<feature>/…: '../<other>/<x>.repository' (or deeper). A feature asks another feature's
  // exported service; its repository (raw SQL over that feature's tables) is private to it.
  regex: '^(\\.\\./)+[^./][^/]*/(.*/)?[^/]+\\.repository$',
  message: "a feature never imports another feature's repository: inject that feature's exported service instead.",
};
// A module exports its services, never its repository (the SQL over its tables is private to the feature).
const NO_EXPORTED_REPOSITORY = {
  selector: "Property[key.name='exports'] > ArrayExpression > Identifier[name=/Repository$/]",
  message: 'a module never exports its repository: export a service method for what other features need.',
};
// SQL lives in repositories (and database/: migrations, the COPY reader, the snapshot tool): a `.query(...)` whose
// first argument is written out as a string anywhere else in the daemon is refused (issue 42).
const NO_SQL_OUTSIDE_REPOSITORIES = {
  selector: "CallExpression[callee.property.name='query'][arguments.0.type=/^(Literal|TemplateLiteral)$/]",
  message: "SQL lives in the feature's repository (*.repository.ts): add a method there and call it.",
};
const SQL_ANYWHERE = [
  'apps/daemon/src/**/*.repository.ts',
  'apps/daemon/src/database/**',
  'apps/daemon/src/**/*.spec.ts',
];
// A room holds one concern: a source file past 700 lines is split. The exceptions are listed, each with why.
const MAX_LINES = ['error', { max: 700, skipBlankLines: true, skipComments: true }];
const LONG_FILES = [
  // the initial schema is one committed migration, never edited
  'apps/daemon/src/database/migrations/1763784000000-InitialSchema.ts',
  // tests and fixtures: one file per feature's scenarios
  '**/*.spec.ts',
  '**/*.e2e-spec.ts',
  '**/*.integration-spec.ts',
  'libs/testing/**',
  'bench/**',
];
// The frontier's wire code (serializer, delta, wire fields, ref book, mapper) turns the core's answer into bytes: it
// reads no database and is no Nest provider, so the read path can change around it and its byte-level tests need
// nothing started.
const noFrameworkOrDatabaseInWire = {
  regex: '^(@nestjs/|typeorm$|typeorm/|pg$|pg/|(\\.\\./)+read-path(/|$))',
  message: 'frontier/wire/ is pure: no Nest, TypeORM, pg or read-path import; pass what it needs in as values.',
};
// Outside database/ the daemon takes TypeORM's types only, and its DataSource through common/inject-data-source.ts;
// Nest's HttpAdapterHost likewise through common/inject-http-adapter-host.ts. A runtime import of typeorm,
// @nestjs/typeorm or @nestjs/core costs every unit spec that loads the file a quarter of a second (docs/adr/0087).
const TYPEORM_TYPES_ONLY = [
  {
    name: 'typeorm',
    allowTypeImports: true,
    message:
      "outside database/ import TypeORM's types only: `import type { DataSource, EntityManager } from 'typeorm'`.",
  },
  {
    name: '@nestjs/typeorm',
    message:
      "inject the data source with InjectDataSource of common/inject-data-source.ts; TypeORM's module is database/'s.",
  },
];
const HTTP_ADAPTER_HOST_TYPE_ONLY = {
  name: '@nestjs/core',
  importNames: ['HttpAdapterHost'],
  allowTypeImports: true,
  message: 'inject it with InjectHttpAdapterHost of common/inject-http-adapter-host.ts and import its type only.',
};
const restrict = (...patterns) => ['error', { patterns }];

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'dist.*/**',
      '.*-dist/**',
      'node_modules/**',
      'coverage/**',
      'bench/results/**',
      'eslint.config.mjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: { parserOptions: { projectService: false } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-console': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { globals: globals.node, sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Type-aware: a promise nobody awaits loses its error; a promise where a boolean or a void callback is expected
    // is always truthy / never awaited. The project service reads tsconfig.json (apps, libs, test, bench).
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  {
    files: ['apps/daemon/**/*.ts'],
    rules: { 'no-restricted-imports': restrict(noOtherApps('daemon')) },
  },
  {
    files: ['apps/daemon/src/*/**/*.ts'],
    rules: { 'no-restricted-imports': restrict(noOtherApps('daemon'), noOtherFeaturesRepository) },
  },
  {
    files: ['apps/daemon/src/frontier/wire/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict(noOtherApps('daemon'), noOtherFeaturesRepository, noFrameworkOrDatabaseInWire),
    },
  },
  {
    files: ['apps/daemon/src/**/*.ts'],
    ignores: ['apps/daemon/src/database/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { paths: [...TYPEORM_TYPES_ONLY, HTTP_ADAPTER_HOST_TYPE_ONLY] },
      ],
    },
  },
  {
    // the one provider of the token, as Nest's own
    files: ['apps/daemon/src/common/http-adapter.module.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { paths: TYPEORM_TYPES_ONLY }] },
  },
  {
    files: ['apps/daemon/src/**/*.ts'],
    ignores: SQL_ANYWHERE,
    rules: { 'no-restricted-syntax': ['error', NO_SQL_OUTSIDE_REPOSITORIES] },
  },
  {
    files: ['apps/daemon/src/**/*.module.ts'],
    rules: { 'no-restricted-syntax': ['error', NO_EXPORTED_REPOSITORY, NO_SQL_OUTSIDE_REPOSITORIES] },
  },
  {
    files: ['apps/**/*.ts', 'libs/**/*.ts', 'scripts/**/*.js'],
    ignores: LONG_FILES,
    rules: { 'max-lines': MAX_LINES },
  },
  { files: ['apps/svc/**/*.ts'], rules: { 'no-restricted-imports': restrict(noOtherApps('svc'), noCoreInCli) } },
  { files: ['apps/tui/**/*.ts'], rules: { 'no-restricted-imports': restrict(noOtherApps('tui')) } },
  { files: ['libs/**/*.ts'], rules: { 'no-restricted-imports': restrict(noApps) } },
  {
    files: ['libs/core/**/*.ts', 'libs/contracts/**/*.ts'],
    rules: { 'no-restricted-imports': restrict(noApps, noProjectCode) },
  },
  {
    files: ['**/*.spec.ts', '**/*.e2e-spec.ts', 'test/**/*.ts', 'libs/testing/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
);
