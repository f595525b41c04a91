#!/usr/bin/env node
// Whether dist/ is the build of the sources as they are now, so that `npm start` can skip a 15 s rebuild.
// scripts/build.js hashes the build's inputs before compiling and writes the hash to dist/.build-stamp when it
// succeeds. dist/ is up to date when the stamp names the inputs' current hash (contents, not mtimes: a checkout or
// `touch` does not count as a change) and nothing in dist/ was written after the stamp (`npm run build:fast`
// writes no stamp: its output is never trusted). Run as a script: exit 0 when up to date, 1 when a build is due.
'use strict';
const { createHash } = require('node:crypto');
const { existsSync, readdirSync, readFileSync, statSync, writeFileSync } = require('node:fs');
const { join, relative, sep } = require('node:path');

const STAMP = '.build-stamp';
// What tsconfig.build.json compiles (apps, libs, bench, without tests), plus what configures the build.
const SOURCE_DIRS = ['apps', 'libs', 'bench'];
const CONFIG_FILES = ['tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json', 'scripts/build.js'];
const EXCLUDED = [
  /\.spec\.ts$/,
  /\.e2e-spec\.ts$/,
  /^libs\/testing\//,
  /^apps\/daemon\/test\//,
  /(^|\/)node_modules\//,
];

function walk(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? walk(path) : [path];
  });
}

function inputs(root) {
  const sources = SOURCE_DIRS.flatMap((dir) => walk(join(root, dir)))
    .map((file) => relative(root, file).split(sep).join('/'))
    .filter((rel) => !EXCLUDED.some((pattern) => pattern.test(rel)));
  const configs = CONFIG_FILES.filter((rel) => existsSync(join(root, rel)));
  return [...sources, ...configs].sort();
}

function inputsHash(root) {
  const hash = createHash('sha256');
  for (const rel of inputs(root)) {
    hash.update(`${rel}\0`);
    hash.update(readFileSync(join(root, rel)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

function writeStamp(root, hash) {
  writeFileSync(join(root, 'dist', STAMP), `${hash}\n`);
}

// null when up to date, else why a build is due (printed by `npm start`)
function staleReason(root) {
  const dist = join(root, 'dist');
  const stampPath = join(dist, STAMP);
  if (!existsSync(stampPath)) return 'no complete build in dist/';
  if (readFileSync(stampPath, 'utf8').trim() !== inputsHash(root)) return 'sources changed since the last build';
  const stampedAt = statSync(stampPath).mtimeMs;
  if (walk(dist).some((file) => statSync(file).mtimeMs > stampedAt)) return 'dist/ was written after the last build';
  return null;
}

module.exports = { STAMP, inputs, inputsHash, staleReason, writeStamp };

if (require.main === module) {
  const reason = staleReason(join(__dirname, '..'));
  process.stderr.write(reason ? `svc: building (${reason})\n` : 'svc: dist/ is up to date; skipping the build\n');
  process.exit(reason ? 1 : 0);
}
