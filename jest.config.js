/* Jest: swc transpiles (type checking is the build's job), three tiers share one run.
 * Each tier starts only what it needs: the unit tier nothing (no database; `npm run test:unit`), the e2e tier the
 * PostgreSQL servers (libs/testing/src/global-setup.ts), the integration tier those plus its migrated template.
 * Jest runs a project's globalSetup only when that project has tests in the run, so `npm test` (every tier) and
 * `jest --selectProjects e2e` start the servers and `--selectProjects unit` starts none. */
const { availableParallelism } = require('node:os');

const swc = ['@swc/jest', { swcrc: true }];
const moduleNameMapper = {
  '^@app/(core|contracts|client|credentials|database|testing)$': '<rootDir>/libs/$1/src',
  '^@app/(core|contracts|client|credentials|database|testing)/(.*)$': '<rootDir>/libs/$1/src/$2',
};
const common = {
  rootDir: __dirname,
  transform: { '^.+\\.ts$': swc },
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper,
  testEnvironment: 'node',
  modulePathIgnorePatterns: ['<rootDir>/dist/'],
};

module.exports = {
  testTimeout: 60000,
  // Two files at a time even on two cores (Jest's default there is one): an e2e file mostly waits on its daemon,
  // PostgreSQL, tmux or a subprocess, so a second file fills that wait. The whole run took 1,190 s with one worker
  // and 613 s with two (same tree, the second run on a busier machine); every test file has its own database and
  // daemon ports, so two files never share state.
  maxWorkers: Math.max(2, availableParallelism() - 1),
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/apps/**/*.spec.ts', '<rootDir>/libs/**/*.spec.ts', '<rootDir>/bench/**/*.spec.ts'],
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      testTimeout: 60000,
      globalSetup: '<rootDir>/libs/testing/src/global-setup.ts',
      globalTeardown: '<rootDir>/libs/testing/src/global-teardown.ts',
    },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/apps/daemon/test/integration/**/*.integration-spec.ts'],
      globalSetup: '<rootDir>/apps/daemon/test/integration/setup/global-setup.ts',
      globalTeardown: '<rootDir>/apps/daemon/test/integration/setup/global-teardown.ts',
    },
  ],
};
