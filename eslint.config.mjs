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
    '^(@app/|(\\.\\./)*(apps|libs|test|bench|scripts)(/|$)|\\.\\./(\\.\\./)*(client|contracts|core|database|testing)(/|$))',
  message: 'libs/core and libs/contracts import no other project code: they are the bottom of the house.',
};
const noOtherFeaturesRepository = {
  // From apps/daemon/src/<feature>/…: '../<other>/<x>.repository' (or deeper). A feature asks another feature's
  // exported service; its repository (raw SQL over that feature's tables) is private to it.
  regex: '^(\\.\\./)+[^./][^/]*/(.*/)?[^/]+\\.repository$',
  message: "a feature never imports another feature's repository: inject that feature's exported service instead.",
};
// Today's cross-feature repository imports (issue 30, Deliver 1, burns this list down): each file here may still
// import another feature's repository; every other daemon file may not. Remove a line when its file is fixed.
const CROSS_FEATURE_REPOSITORY_ALLOWED = [
  'apps/daemon/src/approval-page/approval-page.module.ts', // ../oidc/oidc.repository (oidc/ has no module yet)
  'apps/daemon/src/approval-page/approval-page.service.ts', // ../auth/auth.repository, ../machine-authorization/rate-limit.repository
  'apps/daemon/src/charge/charge.service.ts', // ../frontier/frontier.repository
  'apps/daemon/src/db-claims/db-claims.service.ts', // ../refs/refs.repository
  'apps/daemon/src/db-claims/db-claims.service.spec.ts', // type NewEvent from ../events/events.repository
  'apps/daemon/src/epics/epics.service.ts', // ../refs/refs.repository
  'apps/daemon/src/events/events.repository.ts', // ../auth/auth.repository
  'apps/daemon/src/frontier/frontier.errors.ts', // ../auth/auth.repository
  'apps/daemon/src/frontier/frontier.repository.ts', // ../dependencies/dependencies.repository
  'apps/daemon/src/projects/project-access.service.ts', // ../refs/refs.repository
  'apps/daemon/src/sessions/sessions.service.ts', // ../frontier/frontier.repository
  'apps/daemon/src/transfer/transfer.service.ts', // dependencies, deployments, items, projects repositories
];
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
    ignores: CROSS_FEATURE_REPOSITORY_ALLOWED,
    rules: { 'no-restricted-imports': restrict(noOtherApps('daemon'), noOtherFeaturesRepository) },
  },
  { files: ['apps/svc/**/*.ts'], rules: { 'no-restricted-imports': restrict(noOtherApps('svc')) } },
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
