#!/usr/bin/env node
// `npm run build` (also `pretest`): a full, type-checked build that never leaves dist/ missing or a file in it
// half-written. It compiles into a folder beside dist/, then moves each file into place with rename (atomic per
// file: a reader sees the old file or the new one), and last removes files the new build no longer has. A daemon
// started from dist/ (npm start) keeps running while tests rebuild; nothing it loaded is deleted from under a
// module path that still exists in the new build.
'use strict';
const { execFileSync } = require('node:child_process');
const { existsSync, mkdirSync, readdirSync, renameSync, rmSync, unlinkSync } = require('node:fs');
const { join, relative } = require('node:path');

const root = join(__dirname, '..');
const dist = join(root, 'dist');
const next = join(root, `dist.next-${process.pid}`);
const bin = (name) => join(root, 'node_modules', '.bin', name);
// the inputs as they are when the compiler reads them: an edit during the build makes the next start rebuild
const inputsHash = require('./build-stamp').inputsHash(root);

function files(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? files(path) : [path];
  });
}

rmSync(next, { recursive: true, force: true });
try {
  execFileSync(bin('tsc'), ['-p', 'tsconfig.build.json', '--outDir', next], { cwd: root, stdio: 'inherit' });
  execFileSync(bin('tsc-alias'), ['-p', 'tsconfig.build.json', '--outDir', next], { cwd: root, stdio: 'inherit' });
} catch {
  rmSync(next, { recursive: true, force: true });
  process.exit(1);
}
const built = new Set();
for (const file of files(next)) {
  const rel = relative(next, file);
  built.add(rel);
  mkdirSync(join(dist, rel, '..'), { recursive: true });
  renameSync(file, join(dist, rel));
}
// Outputs of sources that no longer exist (only compiled code: data other tools keep in dist/ stays).
for (const file of files(dist)) {
  const rel = relative(dist, file);
  if (!built.has(rel) && /\.(js|js\.map|d\.ts)$/.test(rel)) unlinkSync(file);
}
rmSync(next, { recursive: true, force: true });
// last: dist/ is now the build of these inputs (npm start skips the build while they stay the same)
require('./build-stamp').writeStamp(root, inputsHash);
