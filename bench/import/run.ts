import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { EmbeddedServer } from '../../libs/database/src';
import { runSvc, svcEnv } from '../../libs/testing/src/cli';
import { startDaemonProcess } from '../../libs/testing/src/daemon-process';
import { bigBeadsFixture, toJsonl } from '../../libs/testing/src/tracker-fixtures';

// `npm run bench:import [-- --no-build]` (issue 41): `svc import --from beads` of generated issue files (the
// fixture generator, seed 41: a few thousand issues, a third as many dependencies) into a new project, then the
// same file again (nothing changes), through the real `svc` and daemon on embedded PostgreSQL, default limits.

const REPO = resolve(__dirname, '..', '..');
const RESULTS = join(REPO, 'bench', 'results', 'import.json');
const SIZES = [
  { issues: 3_000, dependencies: 1_000 },
  { issues: 10_000, dependencies: 3_000 },
];
const RUNS = 3;

const note = (line: string) => process.stderr.write(`bench:import: ${line}\n`);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
  if (!process.argv.includes('--no-build')) {
    note('building dist (npm run build:fast)');
    execFileSync('npm', ['run', '-s', 'build:fast'], { cwd: REPO, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  const loadBefore = Math.round(loadavg()[0] * 10) / 10;
  const home = mkdtempSync(join(tmpdir(), 'svc-bench-import-'));
  const server = new EmbeddedServer({ home, log: note });
  await server.start();
  const rows: { issues: number; dependencies: number; bytes: number; import_ms: number; reimport_ms: number }[] = [];
  try {
    const database = `bench_import_${Date.now().toString(36)}`;
    await server.createDatabase(database);
    const daemon = await startDaemonProcess({
      env: { SVC_DATABASE_URL: server.connection.url(database), SVC_LOG_LEVEL: 'warn' },
      timeoutMs: 120_000,
    });
    try {
      const env = svcEnv(daemon);
      for (const size of SIZES) {
        const text = toJsonl(bigBeadsFixture(size.issues, size.dependencies));
        const file = join(home, `issues-${size.issues}.jsonl`);
        writeFileSync(file, text);
        const first: number[] = [];
        const again: number[] = [];
        for (let run = 0; run < RUNS; run++) {
          const project = `b${size.issues}r${run}`;
          const timed = async (args: string[]) => {
            const started = process.hrtime.bigint();
            const result = await runSvc(['import', '--from', 'beads', file, '--project', project, ...args, '--yes'], {
              env,
              timeoutMs: 600_000,
            });
            if (result.code !== 0) throw new Error(`svc import failed: ${result.stderr}`);
            return Number(process.hrtime.bigint() - started) / 1e6;
          };
          first.push(await timed(['--prefix', `B${run}X${size.issues}`]));
          again.push(await timed([]));
        }
        const row = {
          ...size,
          bytes: Buffer.byteLength(text),
          import_ms: Math.round(median(first)),
          reimport_ms: Math.round(median(again)),
        };
        note(JSON.stringify(row));
        rows.push(row);
      }
    } finally {
      await daemon.stop();
    }
  } finally {
    await server.stop();
    rmSync(home, { recursive: true, force: true });
  }
  const result = { at: new Date().toISOString(), load_before: loadBefore, runs: RUNS, rows };
  const previous = (() => {
    try {
      return JSON.parse(readFileSync(RESULTS, 'utf8')) as unknown[];
    } catch {
      return [];
    }
  })();
  writeFileSync(RESULTS, `${JSON.stringify([...previous, result], null, 2)}\n`);
  process.stdout.write(
    [
      '| issues | dependencies | file | import (median of 3) | re-import, nothing changed |',
      '| ---: | ---: | ---: | ---: | ---: |',
      ...rows.map(
        (r) =>
          `| ${r.issues.toLocaleString('en')} | ${r.dependencies.toLocaleString('en')} | ` +
          `${(r.bytes / 1024 / 1024).toFixed(1)} MiB | ${r.import_ms.toLocaleString('en')} ms | ` +
          `${r.reimport_ms.toLocaleString('en')} ms |`,
      ),
      '',
    ].join('\n'),
  );
  note(`load average before: ${loadBefore}; results appended to bench/results/import.json`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:import failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
