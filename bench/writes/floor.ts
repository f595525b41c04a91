import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';

import { Client } from 'pg';

import { EmbeddedServer } from '../../libs/database/src';
import { cpuMeter, round } from '../live/proc';

// The floor under bench:writes (issue 38): the same closed-loop priority writes over HTTP, against a Node server
// with nothing of svc in it (floor-server.ts: Fastify, pg, ten connections like the daemon's pool), on the same
// embedded PostgreSQL. Two shapes: 4 round trips (lock, update, in one transaction) and svc's 9 of a priority write.
// What it answers: how many writes a second a Node process on this machine can serve at all with those round
// trips, so the daemon's own cost per write reads against it. No follower, no event record, no notice.
//
//   npm run bench:writes:floor [-- --items 100000 --writers 1,8,32 --seconds 10]

const ROOT = resolve(__dirname, '..', '..');
const note = (line: string) => process.stderr.write(`[bench:writes:floor] ${line}\n`);
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)];

function option(args: string[], flag: string, fallback: string): string {
  const at = args.indexOf(flag);
  return at >= 0 ? args[at + 1] : fallback;
}

async function startServer(url: string, shape: number): Promise<{ child: ChildProcess; base: string }> {
  const child = spawn(
    process.execPath,
    [
      ...(process.env.FLOOR_NODE_ARGS ?? '').split(' ').filter(Boolean),
      '-r',
      'ts-node/register/transpile-only',
      join(ROOT, 'bench', 'writes', 'floor-server.ts'),
    ],
    {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: url, SHAPE: String(shape) },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const line = await new Promise<string>((done, fail) => {
    createInterface({ input: child.stdout! }).once('line', done);
    child.once('exit', (code) => fail(new Error(`the floor server exited (${code})`)));
  });
  return { child, base: line.trim() };
}

async function phase(base: string, pid: number, items: number, writers: number, seconds: number) {
  const latencies: number[] = [];
  let errors = 0;
  const cpu = cpuMeter(pid);
  const started = performance.now();
  const end = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      for (let k = 0; performance.now() < end; k++) {
        const id = 1 + ((w * 7919 + k * 104729) % items);
        const t = performance.now();
        const res = await fetch(`${base}/items/${id}/priority`, {
          method: 'PATCH',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ value: ['high', 'medium', 'low'][k % 3] }),
        });
        await res.arrayBuffer();
        if (res.ok) latencies.push(performance.now() - t);
        else errors++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  return {
    writers,
    writes_per_s: round(latencies.length / elapsed),
    p50_ms: round(pct(latencies, 50)),
    p99_ms: round(pct(latencies, 99)),
    errors,
    server_cpu_pct: cpu(),
  };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const items = Number(option(args, '--items', '100000'));
  const writers = option(args, '--writers', '1,8,32').split(',').map(Number);
  const seconds = Number(option(args, '--seconds', '10'));
  const home = mkdtempSync(join(tmpdir(), 'svc-bench-floor-'));
  const server = new EmbeddedServer({ home, log: note });
  try {
    const connection = await server.start();
    await server.createDatabase('floor');
    const url = connection.url('floor');
    const client = new Client({ connectionString: url });
    await client.connect();
    await client.query(`
      CREATE TABLE floor_tokens (id int PRIMARY KEY, name text);
      CREATE TABLE floor_items (id int PRIMARY KEY, project text, title text, priority text, updated_at timestamptz);
      CREATE TABLE floor_claims (item_id int PRIMARY KEY, session_id int);
      CREATE TABLE floor_comments (id serial PRIMARY KEY, item_id int, body text);
      CREATE INDEX ON floor_comments (item_id, id);
      INSERT INTO floor_tokens VALUES (1, 'admin');
      INSERT INTO floor_items SELECT g, 'bench', 'item ' || g, 'medium', now() FROM generate_series(1, ${items}) g;`);
    await client.query('VACUUM ANALYZE');
    await client.end();
    for (const shape of [4, 9]) {
      const { child, base } = await startServer(url, shape);
      try {
        for (const n of writers) {
          const row = { items, round_trips: shape, ...(await phase(base, child.pid!, items, n, seconds)) };
          process.stdout.write(`${JSON.stringify(row)}\n`);
        }
      } finally {
        child.kill();
      }
    }
  } finally {
    await server.stop();
    rmSync(home, { recursive: true, force: true });
  }
}

void main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
