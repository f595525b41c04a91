import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

// Taskwarrior (2.6) on the same neutral graph, as ../shared/bench/README.md describes: one import into a throwaway
// TASKDATA, one warm-up `task ready`, then the median of timed runs. Skipped (null) when `task` is not on PATH.
export interface NeutralItem {
  id: string;
  title: string;
  priority: 'H' | 'M' | 'L';
  status: 'open' | 'done';
  created_at: string;
  uuid?: string;
}

export interface TaskwarriorResult {
  version: string;
  import_ms: number;
  ready_ms: number;
  ready_ms_runs: number[];
  ready: number;
}

export function taskOnPath(): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => {
    const probe = spawnSync(join(dir, 'task'), ['--version'], { stdio: 'ignore' });
    return probe.status === 0;
  });
}

const twDate = (iso: string) => `${iso.slice(0, 19).replace(/[-:]/g, '')}Z`;

function uuidOf(index: number): string {
  return `00000000-0000-4000-8000-${(index + 1).toString(16).padStart(12, '0')}`;
}

export function timeTaskwarrior(
  items: readonly NeutralItem[],
  edges: readonly { blocker: string; dependent: string }[],
  runs: number,
): TaskwarriorResult | null {
  if (!taskOnPath()) return null;
  const home = mkdtempSync(join(tmpdir(), 'svc-bench-task-'));
  try {
    const rc = join(home, 'taskrc');
    const data = join(home, 'data');
    writeFileSync(
      rc,
      [
        `data.location=${data}`,
        'hooks=off',
        'confirmation=off',
        'verbose=nothing',
        'color=off',
        'detection=off',
        'defaultwidth=200',
        'recurrence=off',
        'json.array=on',
        '',
      ].join('\n'),
    );
    const env = { ...process.env, TASKRC: rc, TASKDATA: data };
    const task = (args: string[]) =>
      execFileSync('task', args, { env, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 256 * 1024 * 1024 });
    const uuid = new Map(items.map((item, i) => [item.id, item.uuid ?? uuidOf(i)]));
    const depends = new Map<string, string[]>();
    for (const e of edges) {
      const list = depends.get(e.dependent) ?? [];
      list.push(uuid.get(e.blocker)!);
      depends.set(e.dependent, list);
    }
    const tasks = items.map((item) => ({
      uuid: uuid.get(item.id),
      description: item.title,
      status: item.status === 'done' ? 'completed' : 'pending',
      entry: twDate(item.created_at),
      ...(item.status === 'done' ? { end: twDate(item.created_at) } : {}),
      priority: item.priority,
      ...(depends.has(item.id) ? { depends: depends.get(item.id) } : {}),
    }));
    const file = join(home, 'import.json');
    writeFileSync(file, JSON.stringify(tasks));
    const i0 = performance.now();
    task(['import', file]);
    const importMs = performance.now() - i0;
    const version = task(['--version']).toString().trim();
    const ready = Number(task(['+READY', 'count']).toString().trim());
    task(['ready']);
    const times: number[] = [];
    for (let r = 0; r < runs; r++) {
      const t0 = performance.now();
      task(['ready']);
      times.push(Math.round((performance.now() - t0) * 10) / 10);
    }
    const sorted = [...times].sort((a, b) => a - b);
    return {
      version,
      import_ms: Math.round(importMs),
      ready_ms: sorted[Math.floor(sorted.length / 2)],
      ready_ms_runs: times,
      ready,
    };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

if (require.main === module) {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const graph = require(process.argv[2]) as { items: NeutralItem[]; edges: { blocker: string; dependent: string }[] };
  process.stdout.write(`${JSON.stringify(timeTaskwarrior(graph.items, graph.edges, 3))}\n`);
}
