import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';

import { SvcApi, SvcHttpError } from '../../libs/client/src';
import { MixedOp, MixedOpName, MixedOutcome, MixedSettle, MixedWriter, PoolItem, statusPath } from './mixed-plan';
import { cpuMeter, round, statusMb } from './proc';

// bench/live's mixed-writes phase (issue 27: "the daemon's memory ≤ 450 MB through ten minutes of mixed writes").
// Three writers, each 10 writes a second, through the daemon's HTTP API as the CLI sends them (SvcApi), over priority,
// status, block/unblock, freeze/unfreeze, add/remove a dependency and new items (mixed-plan.ts), while the TUI keeps
// running; the daemon's and the TUI's resident memory (VmRSS) sampled every second.

export const MIXED_WRITERS = 3;
export const MIXED_WRITES_PER_SECOND = 10;
// the items each writer works on: the top of the frontier (runnable, then blocked), split between the writers
const POOL_PER_WRITER = 200;
const SAMPLE_MS = 1000;
// the daemon's memory in the result every this many samples (a 10-minute run: 60 values)
const SERIES_EVERY = 10;

export interface MixedResult {
  mixed_minutes: number;
  mixed_writers: number;
  // writes the daemon took (2xx), refused (4xx: a gate, a conflict), failed (5xx or no answer)
  mixed_writes: number;
  mixed_refused: number;
  mixed_errors: number;
  mixed_created: number;
  // taken writes a second, and all write requests a second (the load offered: 3 × 10 asked)
  mixed_writes_per_s: number;
  mixed_requests_per_s: number;
  mixed_daemon_rss_start_mb: number;
  mixed_daemon_rss_peak_mb: number;
  mixed_daemon_rss_end_mb: number;
  mixed_tui_rss_peak_mb: number;
  mixed_tui_rss_end_mb: number;
  mixed_daemon_cpu_pct: number;
  mixed_tui_cpu_pct: number;
  // the TUI's frontier mirror over the phase: deltas applied, full answers taken instead
  mixed_tui_deltas: number;
  mixed_tui_full_fallbacks: number;
  mixed_tui_exited: boolean;
  mixed_daemon_rss_series_mb: number[];
  mixed_by_op: Partial<Record<MixedOpName, { done: number; refused: number; errors: number }>>;
  mixed_refusal_codes: Record<string, number>;
  mixed_error_samples: string[];
  // the 1-minute load average before and after the phase
  mixed_load_average: [number, number];
}

export interface MixedOptions {
  api: SvcApi;
  project: string;
  minutes: number;
  daemonPid: number;
  tuiPid: number;
  // the TUI mirror's counters (bench/live's SVC_TUI_BENCH_STATS file)
  tuiStats: () => { fallbacks: number; deltas: number };
  note: (line: string) => void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function send(api: SvcApi, project: string, op: MixedOp): Promise<MixedSettle> {
  switch (op.op) {
    case 'priority':
      await api.setItemField(op.ref, 'priority', { value: op.to });
      return {};
    case 'status':
      await api.setItemStatus(op.ref, op.to);
      return {};
    case 'block':
      await api.blockItem(op.ref, { reason: op.reason });
      return {};
    case 'unblock':
    case 'freeze':
    case 'unfreeze':
      await api.itemAction(op.ref, op.op);
      return {};
    case 'dependency-add': {
      const r = await api.addDependency(op.dependent, {
        blocker: op.blocker,
        gate_point: 'activation',
        satisfaction: 'status:done',
        source: 'operator',
      });
      return { created: r.created };
    }
    case 'dependency-remove':
      await api.removeDependency(op.dependent, op.blocker, { gate_point: 'activation' });
      return {};
    case 'create': {
      const item = await api.createItem({ project, title: op.title, priority: op.priority });
      return {
        item: { ref: item.item_id, status: item.status, priority: item.priority, workflow_id: item.workflow_id },
      };
    }
  }
}

// A 4xx is the daemon refusing the write (a stage gate, a conflict): counted apart from failures.
function outcomeOf(err: unknown): { outcome: MixedOutcome; code: string } {
  if (err instanceof SvcHttpError && err.status < 500) return { outcome: 'refused', code: err.code };
  return { outcome: 'error', code: err instanceof SvcHttpError ? err.code : 'no_answer' };
}

function rss(pid: number): number | null {
  try {
    return statusMb(pid, 'VmRSS');
  } catch {
    return null; // gone
  }
}

export async function runMixed(options: MixedOptions): Promise<MixedResult> {
  const { api, project, minutes, daemonPid, tuiPid, note } = options;
  const read = await api.frontier({ project });
  if (read.notModified) throw new Error('unexpected 304 on an unconditional frontier read');
  const top = [...read.body.runnable, ...read.body.blocked].slice(0, POOL_PER_WRITER * MIXED_WRITERS);
  const paths = new Map<string, string[]>();
  for (const workflow of new Set(top.map((i) => i.workflow_id))) {
    paths.set(workflow, statusPath((await api.workflowDefinition(workflow)).definition.stages));
  }
  const pools: PoolItem[][] = Array.from({ length: MIXED_WRITERS }, () => []);
  top.forEach((i, k) =>
    pools[k % MIXED_WRITERS].push({
      ref: i.item_id,
      status: i.status,
      priority: i.priority,
      workflow_id: i.workflow_id,
    }),
  );
  const writers = pools.map((pool, w) => new MixedWriter(w, pool, paths));
  note(
    `mixed: ${MIXED_WRITERS} writers × ${MIXED_WRITES_PER_SECOND}/s for ${minutes} min, pools of ${pools[0].length}`,
  );

  const byOp: MixedResult['mixed_by_op'] = {};
  const refusalCodes: Record<string, number> = {};
  const errorSamples: string[] = [];
  const totals = { done: 0, refused: 0, errors: 0, created: 0 };
  const count = (op: MixedOpName, outcome: MixedOutcome) => {
    const row = (byOp[op] ??= { done: 0, refused: 0, errors: 0 });
    const key = outcome === 'done' ? 'done' : outcome === 'refused' ? 'refused' : 'errors';
    row[key]++;
    totals[key]++;
  };

  // memory every second, from before the first write to after the last
  const daemonStart = rss(daemonPid) ?? NaN;
  let daemonPeak = daemonStart;
  let tuiPeak = rss(tuiPid) ?? NaN;
  let tuiExited = false;
  const series: number[] = [daemonStart];
  let samples = 0;
  const sample = () => {
    const d = rss(daemonPid);
    const t = rss(tuiPid);
    if (d !== null) daemonPeak = Math.max(daemonPeak, d);
    if (t !== null) tuiPeak = Math.max(tuiPeak, t);
    else tuiExited = true;
    if (++samples % SERIES_EVERY === 0 && d !== null) series.push(d);
    return { d, t };
  };
  const sampler = setInterval(sample, SAMPLE_MS);
  const statsBefore = options.tuiStats();
  const daemonCpu = cpuMeter(daemonPid);
  const tuiCpu = existsSync(`/proc/${tuiPid}`) ? cpuMeter(tuiPid) : () => NaN;
  const safely = (meter: () => number) => {
    try {
      return meter();
    } catch {
      return NaN; // the process is gone
    }
  };

  const loadBefore = round(loadavg()[0]);
  const interval = 1000 / MIXED_WRITES_PER_SECOND;
  const started = performance.now();
  const end = started + minutes * 60_000;
  let lastMinute = 0;
  try {
    await Promise.all(
      writers.map(async (writer, w) => {
        await sleep((w * interval) / MIXED_WRITERS);
        while (performance.now() < end) {
          const due = performance.now() + interval;
          const op = writer.next();
          try {
            const learned = await send(api, project, op);
            writer.settle(op, 'done', learned);
            count(op.op, 'done');
            if (op.op === 'create') totals.created++;
          } catch (err) {
            const { outcome, code } = outcomeOf(err);
            writer.settle(op, outcome);
            count(op.op, outcome);
            if (outcome === 'refused') refusalCodes[`${op.op}:${code}`] = (refusalCodes[`${op.op}:${code}`] ?? 0) + 1;
            else if (errorSamples.length < 5) errorSamples.push(`${op.op}: ${(err as Error).message}`.slice(0, 300));
          }
          const minute = Math.floor((performance.now() - started) / 60_000);
          if (w === 0 && minute > lastMinute) {
            lastMinute = minute;
            note(
              `mixed: minute ${minute}, ${totals.done} taken, ${totals.refused} refused, ${totals.errors} failed, ` +
                `daemon ${rss(daemonPid)} MB (peak ${daemonPeak})`,
            );
          }
          await sleep(Math.max(0, due - performance.now()));
        }
      }),
    );
  } finally {
    clearInterval(sampler);
  }
  const seconds = (performance.now() - started) / 1000;
  const cpu = { daemon: safely(daemonCpu), tui: safely(tuiCpu) };
  const last = sample();
  const statsAfter = options.tuiStats();
  if (series[series.length - 1] !== last.d && last.d !== null) series.push(last.d);
  const requests = totals.done + totals.refused + totals.errors;
  return {
    mixed_minutes: minutes,
    mixed_writers: MIXED_WRITERS,
    mixed_writes: totals.done,
    mixed_refused: totals.refused,
    mixed_errors: totals.errors,
    mixed_created: totals.created,
    mixed_writes_per_s: round(totals.done / seconds),
    mixed_requests_per_s: round(requests / seconds),
    mixed_daemon_rss_start_mb: daemonStart,
    mixed_daemon_rss_peak_mb: daemonPeak,
    mixed_daemon_rss_end_mb: last.d ?? NaN,
    mixed_tui_rss_peak_mb: tuiPeak,
    mixed_tui_rss_end_mb: last.t ?? NaN,
    mixed_daemon_cpu_pct: cpu.daemon,
    mixed_tui_cpu_pct: cpu.tui,
    mixed_tui_deltas: statsAfter.deltas - statsBefore.deltas,
    mixed_tui_full_fallbacks: statsAfter.fallbacks - statsBefore.fallbacks,
    mixed_tui_exited: tuiExited,
    mixed_daemon_rss_series_mb: series,
    mixed_by_op: byOp,
    mixed_refusal_codes: refusalCodes,
    mixed_error_samples: errorSamples,
    mixed_load_average: [loadBefore, round(loadavg()[0])],
  };
}
