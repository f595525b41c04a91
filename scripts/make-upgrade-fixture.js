#!/usr/bin/env node
// Makes test/fixtures/upgrade-<commit>.sql: a database as an earlier release left it, for test/upgrade.e2e-spec.ts.
//   node scripts/make-upgrade-fixture.js <commit or tag> [server admin URL, default postgres://postgres@127.0.0.1:5432/postgres]
// The files are named after the commit (upgrade-<7 hex>.sql); the first line of the SQL names the full commit, and
// the tag when one was given, which is how a fixture stays tied to the release it came from.
// 1. builds <commit> in a temporary git worktree (node_modules shared with this clone);
// 2. runs that build's migrations on a fresh database, recording every statement they execute;
// 3. starts that build's daemon on it and adds data through its API (plus a few rows by SQL, as its tests do),
//    then records its frontier of each project;
// 4. writes the recorded statements, the migrations table and every row (INSERTs, triggers off) to one SQL file,
//    with the frontier in a JSON file beside it. Only Node and a PostgreSQL server are needed (no pg_dump).
'use strict';
const { execFileSync, spawn } = require('node:child_process');
const { mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync, realpathSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { Client } = require('pg');

const ROOT = join(__dirname, '..');
const ADMIN_TOKEN = 'svc_upgrade_fixture_admin_token_0123456789abcdefghijklmn';
const SECRET = 'upgrade-fixture-secret-0123456789abcdefghijklmn';

function run(cmd, args, cwd) {
  execFileSync(cmd, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'] });
}

function build(commit) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-fixture-'));
  rmSync(dir, { recursive: true, force: true });
  run('git', ['worktree', 'add', '--detach', dir, commit], ROOT);
  symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(dir, 'node_modules'));
  try {
    run(join(dir, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.build.json', '--noCheck'], dir);
  } catch {
    // --noCheck still emits; type errors against today's node_modules do not matter here
  }
  run(join(dir, 'node_modules', '.bin', 'tsc-alias'), ['-p', 'tsconfig.build.json'], dir);
  return dir;
}

function literal(value) {
  return value === null || value === undefined ? 'NULL' : `'${String(value).replace(/'/g, "''")}'`;
}

function parameter(value) {
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) return literal(JSON.stringify(value));
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return literal(value instanceof Date ? value.toISOString() : value);
}

// The old build's migrations, each run through a recording query runner in one transaction, as TypeORM would.
async function migrate(dir, client) {
  const folder = join(dir, 'dist', 'apps', 'daemon', 'src', 'database', 'migrations');
  const classes = [];
  for (const file of readdirSync(folder).filter((f) => /^\d+-\w+\.js$/.test(f))) {
    for (const value of Object.values(require(join(folder, file))))
      if (typeof value === 'function') classes.push(value);
  }
  const named = classes
    .map((C) => ({ C, name: new C().name ?? C.name }))
    .sort((a, b) => a.name.slice(-13) - b.name.slice(-13));
  const statements = [
    'CREATE TABLE "migrations" ("id" SERIAL NOT NULL, "timestamp" bigint NOT NULL, "name" character varying NOT NULL, ' +
      'CONSTRAINT "PK_8c82d7f526340ab734260ea46be" PRIMARY KEY ("id"));',
  ];
  await client.query(statements[0]);
  for (const { C, name } of named) {
    const recorder = {
      query: async (sql, params) => {
        const inlined = (params ?? []).length === 0 ? sql : sql.replace(/\$(\d+)/g, (_, n) => parameter(params[n - 1]));
        statements.push(`${inlined.trim().replace(/;?$/, ';')}`);
        return (await client.query(sql, params)).rows;
      },
    };
    await client.query('BEGIN');
    statements.push('BEGIN;');
    await new C().up(recorder);
    const insert = `INSERT INTO "migrations" ("timestamp", "name") VALUES (${name.slice(-13)}, ${literal(name)});`;
    await client.query(insert);
    statements.push(insert, 'COMMIT;');
    await client.query('COMMIT');
    process.stderr.write(`migrated ${name}\n`);
  }
  return { statements, migrations: named.map((m) => m.name) };
}

function startDaemon(dir, url) {
  const home = mkdtempSync(join(tmpdir(), 'svc-fixture-home-'));
  const child = spawn(process.execPath, [join(dir, 'dist', 'apps', 'daemon', 'src', 'main.js')], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      SVC_HOME: home,
      SVC_CONFIG_DIR: home,
      SVC_PORT: '0',
      SVC_HOST: '127.0.0.1',
      SVC_DATABASE_URL: url,
      SVC_SERVER_SECRET: SECRET,
      SVC_BOOTSTRAP_TOKEN: ADMIN_TOKEN,
      SVC_LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk) => {
      err += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(err);
      if (match) resolve({ url: match[1], child });
    });
    child.once('exit', (code) => reject(new Error(`the old daemon exited (${code}):\n${err}`)));
  });
}

async function api(base, method, path, body) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

// Representative data, through the old daemon's API wherever it had one.
async function populate(base, client) {
  await api(base, 'POST', '/v1/projects', { id: 'shop', name: 'Shop', public_item_prefix: 'SHOP' });
  await api(base, 'POST', '/v1/projects', { id: 'ops', name: 'Ops', public_item_prefix: 'OPS' });
  for (let i = 1; i <= 8; i++) {
    await api(base, 'POST', '/v1/items', {
      project: i <= 5 ? 'shop' : 'ops',
      title: `Item ${i}`,
      priority: ['high', 'medium', 'low'][i % 3],
    });
  }
  await api(base, 'POST', '/v1/items/SHOP-2/dependencies', { blocker: 'SHOP-1' });
  await api(base, 'POST', '/v1/items/SHOP-3/dependencies', { blocker: 'SHOP-2' });
  await api(base, 'POST', '/v1/items/OPS-2/dependencies', { blocker: 'SHOP-4' });
  await api(base, 'POST', '/v1/deployments/flows', {
    id: 'ship',
    project: 'shop',
    name: 'ship',
    stages: ['build', { name: 'production', environment: 'production', approval: true }],
  });
  // a device-code connection, approved: a machine credential
  const machine = { machine_id: 'fixture-machine-1', machine_name: 'build box' };
  const started = await api(base, 'POST', '/api/machine/authorizations', machine);
  await api(base, 'POST', '/v1/machine-authorizations/resolve', { code: started.user_code, action: 'approve' });
  await api(base, 'POST', '/api/machine/authorizations/token', { device_code: started.device_code, ...machine });
  // a pending one
  await api(base, 'POST', '/api/machine/authorizations', { machine_id: 'fixture-machine-2', machine_name: 'laptop' });
  // a running and a halted deployment run, by SQL as the tests of that time did
  await client.query(`INSERT INTO environments (project, name, tier) VALUES ('shop', 'production', 'production')`);
  await client.query(
    `INSERT INTO deployment_runs (project, flow_id, environment, status, carried_work, current_stage, stage_index, stage_count)
     SELECT 'shop', 'ship', 'production', 'halted', jsonb_build_object('items', jsonb_build_array(id)), 'production', 2, 2
       FROM items WHERE project = 'shop' AND project_sequence = 4`,
  );
  await client.query(
    `UPDATE deployment_runs SET halt_kind = 'awaiting-approval', halt_stage = 'production', halted_at = now()`,
  );
  await client.query(
    `INSERT INTO deployment_runs (project, flow_id, environment, status, carried_work, current_stage, stage_index, stage_count)
     SELECT 'shop', 'ship', 'production', 'running', jsonb_build_object('items', jsonb_build_array(id)), 'build', 1, 2
       FROM items WHERE project = 'shop' AND project_sequence = 5`,
  );
}

async function dumpRows(client) {
  const tables = (
    await client.query(
      `SELECT c.relname AS name, array_agg(a.attname::text ORDER BY a.attnum) AS columns
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
         JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
        WHERE c.relkind = 'r' AND c.relname <> 'migrations' GROUP BY c.relname ORDER BY c.relname`,
    )
  ).rows;
  // the rows some migrations seeded (default workflows) are among the rows below
  const lines = [`TRUNCATE ${tables.map((t) => `"${t.name}"`).join(', ')};`];
  for (const { name, columns } of tables) {
    const cols = columns.map((c) => `"${c}"`).join(', ');
    const values = columns.map((c) => `quote_nullable(t."${c}"::text)`).join(` || ', ' || `);
    const rows = await client.query(`SELECT ${values} AS v FROM "${name}" t ORDER BY 1`);
    for (const { v } of rows.rows) lines.push(`INSERT INTO "${name}" (${cols}) VALUES (${v});`);
  }
  const sequences = (
    await client.query(
      `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind = 'S' ORDER BY 1`,
    )
  ).rows;
  for (const { name } of sequences) {
    const { last_value, is_called } = (await client.query(`SELECT last_value, is_called FROM "${name}"`)).rows[0];
    lines.push(`SELECT setval('"${name}"', ${last_value}, ${is_called});`);
  }
  return lines;
}

async function main() {
  const [commit, serverArg] = process.argv.slice(2);
  if (!commit) throw new Error('usage: node scripts/make-upgrade-fixture.js <commit or tag> [server admin URL]');
  // ^{commit}: an annotated tag names a tag object; the fixture is named after, and built from, the commit it marks
  const full = execFileSync('git', ['rev-parse', '--verify', `${commit}^{commit}`], { cwd: ROOT })
    .toString()
    .trim();
  const ref = full.startsWith(commit.toLowerCase()) ? '' : ` (${commit})`;
  const server = serverArg ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const dir = build(full);
  const dbName = `svc_fixture_${Date.now().toString(36)}`;
  const admin = new Client({ connectionString: server });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${dbName}"`);
  const url = new URL(server);
  url.pathname = `/${dbName}`;
  const client = new Client({ connectionString: url.toString() });
  await client.connect();
  let daemon = null;
  try {
    const { statements, migrations } = await migrate(dir, client);
    daemon = await startDaemon(dir, url.toString());
    await populate(daemon.url, client);
    const frontier = {};
    for (const project of ['shop', 'ops']) {
      frontier[project] = await api(daemon.url, 'GET', `/v1/charge/frontier?project=${project}`);
    }
    daemon.child.kill('SIGTERM');
    await new Promise((r) => daemon.child.once('exit', r));
    daemon = null;
    const rows = await dumpRows(client);
    const short = full.slice(0, 7);
    const out = join(ROOT, 'test', 'fixtures', `upgrade-${short}.sql`);
    writeFileSync(
      out,
      [
        `-- svc database as left by commit ${full}${ref} (its migrations as they ran, then its data).`,
        `-- Made by scripts/make-upgrade-fixture.js; loaded by test/upgrade.e2e-spec.ts. Do not edit.`,
        `-- migrations: ${migrations.join(' ')}`,
        ...statements,
        // the data as it was: no trigger stamps, counts or refuses it again
        'BEGIN;',
        'SET LOCAL session_replication_role = replica;',
        ...rows,
        'COMMIT;',
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(ROOT, 'test', 'fixtures', `upgrade-${short}.frontier.json`),
      `${JSON.stringify({ commit: full, admin_token: ADMIN_TOKEN, frontier }, null, 2)}\n`,
    );
    process.stderr.write(`wrote ${out}\n`);
  } finally {
    if (daemon) daemon.child.kill('SIGKILL');
    await client.end();
    await admin.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
    await admin.end();
    run('git', ['worktree', 'remove', '--force', dir], ROOT);
  }
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
