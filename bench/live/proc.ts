import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

// What bench/live reads of a process from /proc: CPU seconds and memory.

export const round = (x: number) => Math.round(x * 10) / 10;

// CPU seconds (user + system) of a process, from /proc.
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

// A memory field of /proc/<pid>/status in MB (VmRSS: resident now; VmHWM: the resident peak since the start).
export function statusMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return round(Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024);
}

// CPU % of one core over a window.
export function cpuMeter(pid: number): () => number {
  const cpu = cpuSeconds(pid);
  const started = performance.now();
  return () => round(((cpuSeconds(pid) - cpu) / ((performance.now() - started) / 1000)) * 100);
}
