#!/usr/bin/env node
// `npm run build` (also `pretest`): a full, type-checked build that never leaves dist/ missing or half-written.
// It compiles into a folder beside dist/ and swaps it in with two renames, so a daemon started from dist/ (npm
// start) keeps running while tests rebuild, and `svc` started meanwhile finds a whole build.
'use strict';
const { execFileSync } = require('node:child_process');
const { existsSync, renameSync, rmSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const dist = join(root, 'dist');
const next = join(root, `dist.next-${process.pid}`);
const old = join(root, `dist.old-${process.pid}`);
const bin = (name) => join(root, 'node_modules', '.bin', name);

rmSync(next, { recursive: true, force: true });
try {
  execFileSync(bin('tsc'), ['-p', 'tsconfig.build.json', '--outDir', next], { cwd: root, stdio: 'inherit' });
  execFileSync(bin('tsc-alias'), ['-p', 'tsconfig.build.json', '--outDir', next], { cwd: root, stdio: 'inherit' });
} catch {
  rmSync(next, { recursive: true, force: true });
  process.exit(1);
}
if (existsSync(dist)) renameSync(dist, old);
renameSync(next, dist);
rmSync(old, { recursive: true, force: true });
