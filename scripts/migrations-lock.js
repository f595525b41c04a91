#!/usr/bin/env node
// Landed migrations never change: apps/daemon/src/database/migrations.sha256 holds the SHA-256 of every migration
// file (sha256sum's format). `node scripts/migrations-lock.js` checks it (CI runs it, and a unit test calls
// checkMigrations): a listed file that changed or disappeared fails, and so does a migration file not listed.
// `--add` appends the files not yet listed (a new migration); it never rewrites a listed line.
'use strict';
const { createHash } = require('node:crypto');
const { appendFileSync, existsSync, readdirSync, readFileSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
const DIR = join('apps', 'daemon', 'src', 'database', 'migrations');
const LOCK = join('apps', 'daemon', 'src', 'database', 'migrations.sha256');

function sha256(path) {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

function readLock(root) {
  const path = join(root, LOCK);
  if (!existsSync(path)) return new Map();
  const listed = new Map();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.trim() === '' || line.startsWith('#')) continue;
    const match = /^([0-9a-f]{64}) {2}(\S+)$/.exec(line);
    if (!match) throw new Error(`${LOCK}: not a "<sha256>  <file>" line: ${line}`);
    listed.set(match[2], match[1]);
  }
  return listed;
}

function migrationFiles(root) {
  return readdirSync(join(root, DIR))
    .filter((name) => /^\d+-[A-Za-z0-9]+\.ts$/.test(name))
    .sort();
}

// Every problem as a sentence; none when the migrations folder and the list agree.
function checkMigrations(root = ROOT) {
  const listed = readLock(root);
  const present = new Set(migrationFiles(root));
  const problems = [];
  for (const [name, digest] of listed) {
    if (!present.has(name)) problems.push(`${name} is listed but gone: a landed migration is never removed`);
    else if (sha256(join(root, DIR, name)) !== digest)
      problems.push(`${name} changed after it landed: restore it and make the change in a new migration`);
  }
  for (const name of present) {
    if (!listed.has(name)) problems.push(`${name} is not listed: run node scripts/migrations-lock.js --add`);
  }
  return problems;
}

function addNew(root = ROOT) {
  const listed = readLock(root);
  const added = migrationFiles(root).filter((name) => !listed.has(name));
  const lines = added.map((name) => `${sha256(join(root, DIR, name))}  ${name}\n`).join('');
  if (lines) appendFileSync(join(root, LOCK), lines);
  return added;
}

module.exports = { checkMigrations, addNew, LOCK, DIR };

if (require.main === module) {
  if (process.argv.includes('--add')) {
    const added = addNew();
    process.stdout.write(added.length ? added.map((n) => `listed ${n}\n`).join('') : 'no new migration\n');
  }
  const problems = checkMigrations();
  if (problems.length > 0) {
    process.stderr.write(`migration guard (${LOCK}):\n${problems.map((p) => `  - ${p}`).join('\n')}\n`);
    process.exit(1);
  }
  process.stdout.write(`migration guard: ${migrationFiles(ROOT).length} migrations match ${LOCK}\n`);
}
